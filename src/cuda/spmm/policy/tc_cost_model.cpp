// The tensor-core row windows' cost model (tc_cost_model.hpp): the table of thresholds,
// the calibration override and the dispatcher's minimum gain.
#include "cuda/spmm/policy/tc_cost_model.hpp"

#include <atomic>
#include <string>

#include "geblas/error.hpp"

namespace geblas::detail::cuda {
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
//   5.0 at 512; run 4 (H100, docs/PERFORMANCE.md) 9.9, 5.3, 5.5, 5.0.
// 16-bit (half, bfloat16; m16n8k16 kernel): run 4 gave 11.1 / 10.8 at N = 64, 6.0 / 5.8
//   at 128, 3.3 / 3.2 at 256 and 3.4 / 3.3 at 512 (half / bfloat16). A block's warps
//   (64 columns each, up to four) share one staged A tile, so from N = 256 the staging
//   weighs least per column (the likely reason for the step; not profiled).
struct TcCostModel {
  static constexpr Index small_n = 64;  // bands: N <= small_n, N <= medium_n, larger
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

double tc_threshold(TypeId type, Index n) {
  if (const double o = threshold_override().load(std::memory_order_relaxed); o > 0) return o;
  using M = TcCostModel;
  const int band = n <= M::small_n ? 0 : n <= M::medium_n ? 1 : 2;
  switch (type) {
    case TypeId::float32: return band == 0 ? M::tf32_small_n : band == 1 ? M::tf32_medium_n : M::tf32_large_n;
    case TypeId::float16:
    case TypeId::bfloat16: return band == 0 ? M::b16_small_n : band == 1 ? M::b16_medium_n : M::b16_large_n;
    default: break;
  }
  throw InvalidValue("tc_window_threshold: tensor-core windows compute float32, float16 and bfloat16, not " +
                     std::string(to_string(type)));
}

void set_tc_threshold_override(double entries_per_column) {
  threshold_override().store(entries_per_column, std::memory_order_relaxed);
}

double tc_min_gain(bool mixed) { return TcCostModel::min_gain + (mixed ? TcCostModel::mixed_launch_gain : 0.0); }

}  // namespace geblas::detail::cuda
