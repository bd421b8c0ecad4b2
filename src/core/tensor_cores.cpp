// The device-independent side of the tensor-core row-window SpMM: the routing
// threshold setting, the plan query (handed to the backend that holds the matrix) and
// the explicit row reordering, which runs on the host.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "geblas/detail/host_buffer.hpp"
#include "geblas/tensor_cores.hpp"

namespace geblas {
namespace {

// Entries per 8-rounded distinct column from which a 16-row window is sent to tensor
// cores: the cost of one condensed column on tensor cores in units of one entry on CUDA
// cores (both gather a row of B). Run 2 of bench_spmm_hybrid (H100, docs/PERFORMANCE.md
// "Hybrid tensor-core SpMM") measured that ratio for the scalar-gather kernel as the
// time of tc_window_all per condensed column over geblas's fp32 time per entry: 2 to 3
// on road and mesh graphs, 3.5 to 5.5 on the power-law graphs and 10 to 18 on bcsstk16
// (whose CUDA-core time per entry is the lowest), at N = 64..512. 4 is their middle for
// the graphs that have dense windows at all; the vector-gather kernel since then has
// not been measured yet.
constexpr double default_tc_window_threshold = 4.0;

std::atomic<double>& threshold_setting() {
  static std::atomic<double> value{default_tc_window_threshold};
  return value;
}

}  // namespace

double tc_window_threshold() { return threshold_setting().load(std::memory_order_relaxed); }

void set_tc_window_threshold(double entries_per_column) {
  if (!(entries_per_column > 0) || !std::isfinite(entries_per_column))
    throw InvalidValue("set_tc_window_threshold: the threshold must be a positive finite number, got " +
                       std::to_string(entries_per_column));
  threshold_setting().store(entries_per_column, std::memory_order_relaxed);
}

namespace detail {

WindowPlanInfo window_plan_info(const SparseStorage& A) {
  return required(backend_for(A.device).window_plan, "window_plan_info", A.device)(A);
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
