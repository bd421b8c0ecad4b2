// The public side of the tensor-core row-window SpMM (<geblas/tensor_cores.hpp>): the
// cost model's threshold and its calibration override, answered by the CUDA backend's
// policy (declared in core/cuda_tensor_cores.hpp); the plan
// query, handed to the backend that holds the matrix; and the explicit row reordering,
// which runs on the host.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/cuda_tensor_cores.hpp"
#include "geblas/detail/host_buffer.hpp"
#include "geblas/tensor_cores.hpp"

namespace geblas {

double tc_window_threshold(TypeId type, Index n) { return detail::cuda::tc_threshold(type, n); }

void set_tc_window_threshold(double entries_per_column) {
  if (!(entries_per_column > 0) || !std::isfinite(entries_per_column))
    throw InvalidValue("set_tc_window_threshold: the threshold must be a positive finite number, got " +
                       std::to_string(entries_per_column));
  detail::cuda::set_tc_threshold_override(entries_per_column);
}

void reset_tc_window_threshold() { detail::cuda::set_tc_threshold_override(0.0); }

namespace detail {

WindowPlanInfo window_plan_info(const SparseStorage& A, Index n) {
  if (n < 1) throw InvalidValue("window_plan_info: N (the columns of B) must be at least 1, got " + std::to_string(n));
  // The plan belongs to one CUDA variant, so it is asked of the CUDA backend directly
  // rather than through the generic table.
  if (!A.device.is_cuda())
    throw NotImplemented("window_plan_info is not implemented on " + A.device.str() +
                         " (the row-window plan is the CUDA tensor-core SpMM's)");
  backend_for(A.device);  // throws InvalidValue when no such device is available
  return cuda::window_plan_info(A, n);
}

std::vector<Index> window_row_order(const SparseStorage& A) {
  const auto ro = vector_from<Index>(A.row_offsets, static_cast<std::size_t>(A.nrows + 1));
  const auto ci = vector_from<ColIndex>(A.col_indices, static_cast<std::size_t>(A.nvals));
  // Two min-hashes per row: rows whose column sets overlap much are likely to share
  // both minima (the probability is their Jaccard similarity), so sorting by them
  // puts similar rows into the same window. Empty rows go last.
  auto hash = [](std::uint32_t x, std::uint32_t seed) {
    std::uint32_t h = x * 0x9E3779B1u + seed;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    return h;
  };
  struct Key {
    std::uint32_t h1, h2;
    Index len;
  };
  std::vector<Key> key(static_cast<std::size_t>(A.nrows));
  for (Index i = 0; i < A.nrows; ++i) {
    Key k{UINT32_MAX, UINT32_MAX, ro[i + 1] - ro[i]};
    for (Index p = ro[i]; p < ro[i + 1]; ++p) {
      const auto c = static_cast<std::uint32_t>(ci[static_cast<std::size_t>(p)]);
      k.h1 = std::min(k.h1, hash(c, 0x1234567u));
      k.h2 = std::min(k.h2, hash(c, 0x7654321u));
    }
    key[static_cast<std::size_t>(i)] = k;
  }
  std::vector<Index> perm(static_cast<std::size_t>(A.nrows));
  std::iota(perm.begin(), perm.end(), Index{0});
  std::stable_sort(perm.begin(), perm.end(), [&](Index a, Index b) {
    const Key& x = key[static_cast<std::size_t>(a)];
    const Key& y = key[static_cast<std::size_t>(b)];
    if ((x.len == 0) != (y.len == 0)) return y.len == 0;
    if (x.h1 != y.h1) return x.h1 < y.h1;
    if (x.h2 != y.h2) return x.h2 < y.h2;
    return x.len > y.len;
  });
  return perm;
}

}  // namespace detail
}  // namespace geblas
