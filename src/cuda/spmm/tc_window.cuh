// The tensor-core row-window SpMM variants: "tc_window" routes each 16-row window by
// the cost model of window_plan.cuh (dense windows to mma, the rest to a CUDA-core
// warp-per-row kernel; a window belongs to one kind of core, so no partial results are
// merged), "tc_window_all" sends every window to tensor cores. Both compute
// C = A (+).(x) B (or C += it) for plus_times: float in TF32 (only when the caller
// allowed it, Options::allow_tf32; tc_window.cu), half and bfloat16 with fp32
// accumulation (always allowed; tc_window_16bit.cu).
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

// Device scratch the run needs (fp32 sums of split rows for the 16-bit types; none for
// float, which adds split rows into C with atomics). Builds the plan if needed.
std::size_t tc_window_workspace(const spmm::SpmmProblem& p, WindowRouting routing);

// Runs the product p (p.matrix set, tc_window_unsupported empty) on `stream` with at
// least tc_window_workspace bytes at `workspace`; the plan is built on first use and
// cached with A.
void tc_window_run(const spmm::SpmmProblem& p, WindowRouting routing, void* workspace, cudaStream_t stream);

struct WindowPlan;
struct WindowRoute;
// The 16-bit kernels (tc_window_16bit.cu), for p.type float16 or bfloat16.
void tc_window_run_16bit(const spmm::SpmmProblem& p, const WindowPlan& plan, const WindowRoute& route,
                         void* workspace, cudaStream_t stream);

// The dispatcher's facts for choosing a tensor-core variant for A's type and N (builds
// and caches the plan and routings). With the cost model's threshold for (type, N):
// `share` of A's entries in windows routed to tensor cores; `gain`, the fraction of the
// CUDA-core work tc_window is predicted to save, (entries of tensor-core windows -
// threshold x their padded condensed columns) / nvals (a CUDA-core window gathers a row
// of B per entry, a tensor-core one per condensed column at `threshold` times the
// cost); `gain_all` the same for tc_window_all (every window on tensor cores); `mixed`
// when tc_window runs windows of both kinds. `choice` is the variant the model picks
// (the larger gain, tc_window's less the cost of its second launch when mixed, if at
// least the model's minimum gain; policy/tc_cost_model.cpp), or null.
struct TcWindowForecast {
  double threshold = 0;
  double share = 0;
  double gain = 0;
  double gain_all = 0;
  bool mixed = false;
  const spmm::SpmmVariant* choice = nullptr;
};
TcWindowForecast tc_window_forecast(const SparseStorage& A, TypeId type, Index n);

}  // namespace geblas::detail::cuda
