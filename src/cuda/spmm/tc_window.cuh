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

namespace geblas::detail::cuda {

enum class WindowRouting { cost_model, all_tensor_cores };

// C (m x n) = A B or C += A B; element (i, j) of B / C at X[i * row_stride + j * col_stride].
struct TcWindowProblem {
  const SparseStorage* A = nullptr;  // on a CUDA device; its plan is cached with it
  const float* B = nullptr;
  Index b_row_stride = 0, b_col_stride = 1;
  float* C = nullptr;
  Index c_row_stride = 0, c_col_stride = 1;
  Index n = 0;
  bool accumulate = false;
};

// Empty when the variants can run a product of this kind; else why not (for the
// InvalidValue of a forced variant and for the dispatcher's trace).
std::string tc_window_unsupported(TypeId type, SemiringId semiring, bool allow_tf32, const SparseStorage& A,
                                  Index n);

// Runs the product on `stream` (the plan is built on first use and cached with A) and
// returns the facts for the trace.
std::string tc_window_run(const TcWindowProblem& p, WindowRouting routing, cudaStream_t stream);

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
