// The tensor-core row-window SpMM variants: "tc_window" routes each 16-row window by
// the cost model of window_plan.cuh (dense windows to TF32 mma, the rest to a CUDA-core
// warp-per-row kernel; a window belongs to one kind of core, so no partial results are
// merged), "tc_window_all" sends every window to tensor cores. Both compute
// C = A (+).(x) B (or C += it) for float plus_times, and only when the caller allowed
// TF32 (Options::allow_tf32).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/backend.hpp"
#include "cuda/spmm/problem.hpp"

namespace geblas::detail::cuda {

enum class WindowRouting { cost_model, all_tensor_cores };

// Empty when the variants can run a product of this kind; else why not (for the
// InvalidValue of a forced variant and for the dispatcher's trace).
std::string tc_window_unsupported(TypeId type, SemiringId semiring, bool allow_tf32, const SparseStorage& A,
                                  Index n);

// Runs the product p (p.matrix set, float plus_times: tc_window_unsupported is empty)
// on `stream`; the plan is built on first use and cached with A.
void tc_window_run(const spmm::SpmmProblem& p, WindowRouting routing, cudaStream_t stream);

// The dispatcher's facts for choosing tc_window (builds and caches the plan): the
// share of A's entries in windows the cost model sends to tensor cores, and the
// fraction of the CUDA-core work the model predicts tc_window to save, that is
// (entries of tensor-core windows - threshold x their 8-rounded condensed columns) /
// nvals: a CUDA-core window gathers a row of B per entry, a tensor-core one per
// condensed column at `threshold` times the cost.
struct TcWindowForecast {
  double share = 0;
  double gain = 0;
};
TcWindowForecast tc_window_forecast(const SparseStorage& A);

}  // namespace geblas::detail::cuda
