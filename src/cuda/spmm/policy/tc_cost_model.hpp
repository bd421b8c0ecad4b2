// The cost model of the tensor-core row-window SpMM (tc_window, tc_window_all), beside
// the CUDA-core dispatch rules: the routing threshold per value class and band of N, the
// calibration override, and the dispatcher's minimum predicted gain. Plain C++: the core
// answers the public tc_window_threshold / set_tc_window_threshold of
// <geblas/tensor_cores.hpp> with it; built without CUDA, src/cuda_off/ defines these to
// throw NotImplemented.
#pragma once

#include "geblas/config.hpp"
#include "geblas/types.hpp"

namespace geblas::detail::cuda {

// Entries per condensed column (padded to the mma K) from which a window goes to tensor
// cores, for A's type (float32, float16, bfloat16; others throw InvalidValue) and B's n
// columns; the override when one is set.
double tc_threshold(TypeId type, Index n);

// A process-wide threshold for every class and band (calibration benches); 0 returns to
// the table. The caller has checked that it is 0 or positive and finite.
void set_tc_threshold_override(double entries_per_column);

// The minimum predicted gain for the dispatcher to take a tensor-core variant; `mixed`:
// the routing has windows of both kinds (two kernels run).
double tc_min_gain(bool mixed);

}  // namespace geblas::detail::cuda
