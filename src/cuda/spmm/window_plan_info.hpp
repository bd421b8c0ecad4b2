// The tensor-core SpMM's plan query, for the core (core/tensor_cores.cpp answers
// geblas::window_plan_info with it for CUDA matrices). Plain C++: the core includes it
// without CUDA headers; built without CUDA, src/cuda_off/ defines it to throw.
#pragma once

#include "geblas/detail/storage.hpp"
#include "geblas/tensor_cores.hpp"

namespace geblas::detail::cuda {

// A's row-window plan (built and cached on first use) routed for its type and B with n
// columns; A is on a CUDA device.
WindowPlanInfo window_plan_info(const SparseStorage& A, Index n);

}  // namespace geblas::detail::cuda
