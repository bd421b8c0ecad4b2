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
#include "cuda/spmm/window_plan_info.hpp"
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
// Measured as bench_spmm_hybrid's `calib` lines: tc_window_all's time over all windows'
// padded condensed columns, divided by the CUDA-core time per entry of the same type,
// on bcsstk16, the one shared graph with dense windows (6.5 entries per 8-padded
// column, 6.3 per 16-padded one); the other graphs' windows hold 1 to 2 entries per
// column and stay on CUDA cores under any of these values.
// TF32: run 3 (H100, vector-gather kernel) gave 9.9 at N = 64, 5.45 at 128, 5.5 at 256,
//   5.0 at 512; run 4 (H100, 2026-11-23 ~17:00, docs/PERFORMANCE.md) 9.9, 5.3, 5.5, 5.0.
// 16-bit (half, bfloat16; m16n8k16 kernel): run 4 gave 11.1 / 10.8 at N = 64, 6.0 / 5.8
//   at 128, 3.3 / 3.2 at 256 and 3.4 / 3.3 at 512 (half / bfloat16). A block's warps
//   (64 columns each, up to four) share one staged A tile, so from N = 256 the staging
//   weighs least per column (the likely reason for the step; not profiled).
struct TcModel {
  static constexpr Index small_n = 64;    // bands: N <= small_n, N <= medium_n, larger
  static constexpr Index medium_n = 128;
  static constexpr double tf32_small_n = 10.0;
  static constexpr double tf32_medium_n = 5.5;
  static constexpr double tf32_large_n = 5.5;
  static constexpr double b16_small_n = 11.0;
  static constexpr double b16_medium_n = 5.8;
  static constexpr double b16_large_n = 3.4;
  // The dispatcher takes a tensor-core variant only for a predicted gain (the fraction of
  // the CUDA-core time saved) of at least min_gain. On bcsstk16 the model's gain for
  // tc_window_all was within 0.08 of the measured saving: run 4 TF32 0.15 predicted,
  // 0.19 / 0.15 / 0.23 measured at N = 128 / 256 / 512; 16-bit 0.08 at N = 128 (5.8)
  // against 0.06 measured, 0.46 at N = 512 (3.4) against 0.46. tc_window, which
  // launches a CUDA-core kernel after the tensor-core one when both kinds of window
  // occur, needs min_gain + mixed_launch_gain: on bcsstk16 it took 7.5 to 8.4 us longer
  // than tc_window_all in run 3 (7 of 306 windows on CUDA cores) and 8 to 13 us in run 4
  // at 16-bit (57 windows), 0.15 to 0.5 of its CUDA-core time.
  static constexpr double min_gain = 0.05;
  static constexpr double mixed_launch_gain = 0.3;
};

std::atomic<double>& threshold_override() {
  static std::atomic<double> value{0.0};  // 0: none, the table applies
  return value;
}

}  // namespace

double tc_window_threshold(TypeId type, Index n) {
  if (const double o = threshold_override().load(std::memory_order_relaxed); o > 0) return o;
  const int band = n <= TcModel::small_n ? 0 : n <= TcModel::medium_n ? 1 : 2;
  switch (type) {
    case TypeId::float32:
      return band == 0 ? TcModel::tf32_small_n : band == 1 ? TcModel::tf32_medium_n : TcModel::tf32_large_n;
    case TypeId::float16:
    case TypeId::bfloat16:
      return band == 0 ? TcModel::b16_small_n : band == 1 ? TcModel::b16_medium_n : TcModel::b16_large_n;
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
  // The plan belongs to one CUDA variant, so it is asked of the CUDA backend directly
  // rather than through the generic table.
  if (!A.device.is_cuda())
    throw NotImplemented("window_plan_info is not implemented on " + A.device.str() +
                         " (the row-window plan is the CUDA tensor-core SpMM's)");
  backend_for(A.device);  // throws InvalidValue when no such device is available
  return cuda::window_plan_info(A, n);
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
