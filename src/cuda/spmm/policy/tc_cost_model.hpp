// The cost model of the tensor-core row-window SpMM (tc_window, tc_window_all), beside
// the CUDA-core dispatch rules: the routing threshold per value class and band of N and
// the calibration override (declared for the core in core/cuda_tensor_cores.hpp), and the
// dispatcher's minimum predicted gain.
#pragma once

#include "core/cuda_tensor_cores.hpp"

namespace geblas::detail::cuda {

// The minimum predicted gain for the dispatcher to take a tensor-core variant; `mixed`:
// the routing has windows of both kinds (two kernels run).
double tc_min_gain(bool mixed);

}  // namespace geblas::detail::cuda
