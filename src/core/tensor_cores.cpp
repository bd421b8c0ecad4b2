// The device-independent side of the tensor-core row-window SpMM: the cost model's
// constants (thresholds per value class and band of N, the dispatcher's minimum gain)
// and the calibration override, the plan query (handed to the backend that holds the matrix) and
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

// The cost model of the tensor-core row windows (window_plan.cuh applies it), all its
// constants in one place. A window of e entries over c condensed columns (padded to the
// mma K) costs about tc(N) x c on tensor cores (one gathered row of B per condensed
// column, every column of the tile computed) and cc(N) x e on CUDA cores (one gathered
// row of B per entry); the threshold is tc(N) / cc(N), per value class and band of N.
//
// TF32: run 3 of bench_spmm_hybrid (H100, docs/PERFORMANCE.md "Hybrid tensor-core
// SpMM", vector-gather kernel), bcsstk16, the one shared graph with dense windows:
// tc_window_all's time over its 44808 8-padded condensed columns, divided by geblas's
// fp32 time per entry, was 9.9 at N = 64, 5.45 at 128, 5.5 at 256 and 5.0 at 512 (the
// fixed costs of staging the A tile weigh more at small N). On the other graphs the
// ratio was 2 to 5, but their windows hold 1 to 2 entries per column and stay on CUDA
// cores under any of these values.
// 16-bit (half, bfloat16): not measured yet. Both kinds of core gather half the bytes
// per row of B, and an m16n8k16 mma covers twice the K of an m16n8k8 one, so the ratio
// should be at most the TF32 one; the TF32 values stand until the H100 calibration
// (bench_spmm_hybrid prints the ratio per graph and N as "calib" lines).
struct TcModel {
  static constexpr Index small_n = 64;  // bands: N <= small_n, N > small_n
  static constexpr double tf32_small_n = 10.0;
  static constexpr double tf32_large_n = 5.5;
  static constexpr double b16_small_n = 10.0;
  static constexpr double b16_large_n = 5.5;
  // The dispatcher takes a tensor-core variant only for a predicted gain (the fraction of
  // the CUDA-core time saved) of at least min_gain: run 3 measured bcsstk16 (model gain
  // 0.15 at 5.5) 1.17x to 1.29x faster on tc_window_all at N >= 128, so 0.1 keeps a
  // margin for the model's error. tc_window, which launches a CUDA-core kernel after
  // the tensor-core one when both kinds of window occur, needs min_gain +
  // mixed_launch_gain: in run 3 it took 7.5 to 8.4 us longer than tc_window_all on
  // bcsstk16 (7 of 306 windows on CUDA cores), 0.15 to 0.4 of its fp32 time.
  static constexpr double min_gain = 0.1;
  static constexpr double mixed_launch_gain = 0.3;
};

std::atomic<double>& threshold_override() {
  static std::atomic<double> value{0.0};  // 0: none, the table applies
  return value;
}

}  // namespace

double tc_window_threshold(TypeId type, Index n) {
  if (const double o = threshold_override().load(std::memory_order_relaxed); o > 0) return o;
  const bool small = n <= TcModel::small_n;
  switch (type) {
    case TypeId::float32: return small ? TcModel::tf32_small_n : TcModel::tf32_large_n;
    case TypeId::float16:
    case TypeId::bfloat16: return small ? TcModel::b16_small_n : TcModel::b16_large_n;
    default: break;
  }
  throw InvalidValue("tc_window_threshold: tensor-core windows compute float32, float16 and bfloat16, not " +
                     std::string(to_string(type)));
}

void set_tc_window_threshold(double entries_per_column) {
  if (!(entries_per_column > 0) || !std::isfinite(entries_per_column))
    throw InvalidValue("set_tc_window_threshold: the threshold must be a positive finite number, got " +
                       std::to_string(entries_per_column));
  threshold_override().store(entries_per_column, std::memory_order_relaxed);
}

void reset_tc_window_threshold() { threshold_override().store(0.0, std::memory_order_relaxed); }

namespace detail {

WindowPlanInfo window_plan_info(const SparseStorage& A, Index n) {
  if (n < 1) throw InvalidValue("window_plan_info: N (the columns of B) must be at least 1, got " + std::to_string(n));
  return required(backend_for(A.device).window_plan, "window_plan_info", A.device)(A, n);
}

double tc_window_min_gain(bool mixed) { return TcModel::min_gain + (mixed ? TcModel::mixed_launch_gain : 0.0); }

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
