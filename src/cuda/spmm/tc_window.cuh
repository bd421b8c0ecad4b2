// The tensor-core row-window SpMM variants: "tc_window" routes each 16-row window by
// the cost model of window_plan.cuh (dense windows to TF32 mma, the rest to a CUDA-core
// warp-per-row kernel; a window belongs to one kind of core, so no partial results are
// merged), "tc_window_all" sends every window to tensor cores. Both compute
// C = A (+).(x) B (or C += it) for float plus_times, and only when the caller allowed
// TF32 (Options::allow_tf32).
#pragma once

#include <string>

#include "core/backend.hpp"

namespace geblas::detail::cuda {

enum class WindowRouting { cost_model, all_tensor_cores };

// Empty when the variant can run the call; else why not (for the InvalidValue of a
// forced variant and for the dispatcher's trace).
std::string tc_window_unsupported(const SpmmArgs& a);

// Runs the product; the plan is built on first use and cached with A.
void tc_window_run(const SpmmArgs& a, WindowRouting routing);

// The fraction of A's entries that the cost model sends to tensor cores (builds and
// caches the plan): the dispatcher's fact for choosing tc_window.
double tc_window_share(const SparseStorage& A);

// The backend's sparse x dense entry until the CUDA SpMM registry lands: the
// tensor-core variants, and NotImplemented for everything else.
void tc_window_only_spmm(const SpmmArgs& a);

}  // namespace geblas::detail::cuda
