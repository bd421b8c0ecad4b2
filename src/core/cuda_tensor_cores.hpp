// What the core asks of the CUDA backend's tensor-core SpMM beyond the backend table
// (core/tensor_cores.cpp answers <geblas/tensor_cores.hpp> with it): the cost model's
// routing threshold and its calibration override, and a matrix's row-window plan. Declared
// here so that the core includes no backend header; defined by src/cuda/spmm
// (policy/tc_cost_model.cpp, window_plan.cu) or, built without CUDA, by src/cuda_off/ to
// throw NotImplemented.
#pragma once

#include "geblas/config.hpp"
#include "geblas/detail/storage.hpp"
#include "geblas/tensor_cores.hpp"
#include "geblas/types.hpp"

namespace geblas::detail::cuda {

// Entries per condensed column (padded to the mma K) from which a window goes to tensor
// cores, for A's type (float32, float16, bfloat16; others throw InvalidValue) and B's n
// columns; the override when one is set.
double tc_threshold(TypeId type, Index n);

// A process-wide threshold for every class and band (calibration benches); 0 returns to
// the table. The caller has checked that it is 0 or positive and finite.
void set_tc_threshold_override(double entries_per_column);

// A's row-window plan (built and cached on first use) routed for its type and B with n
// columns; A is on a CUDA device.
WindowPlanInfo window_plan_info(const SparseStorage& A, Index n);

}  // namespace geblas::detail::cuda
