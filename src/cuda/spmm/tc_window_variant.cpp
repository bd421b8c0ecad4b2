// The tensor-core row-window variants in the CUDA SpMM registry: tc_window (windows
// routed by the cost model) and tc_window_all (every window on tensor cores). They
// compute plus_times: float in TF32, only when the caller allowed TF32
// (Options::allow_tf32), so the registry lists them apart from the exact variants; half
// and bfloat16 with fp32 accumulation (no setting needed).
#include <string>

#include "cuda/spmm/problem.hpp"
#include "cuda/spmm/tc_window.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

bool can_implement(const SpmmProblem& p, std::string* why) {
  std::string reason;
  if (!p.matrix) reason = "needs A's storage for its window plan";
  else reason = tc_window_unsupported(p.type, p.semiring, p.allow_tf32, *p.matrix, p.n);
  if (reason.empty()) return true;
  if (why) *why = reason;
  return false;
}

std::size_t routed_workspace(const SpmmProblem& p) { return tc_window_workspace(p, WindowRouting::cost_model); }
std::size_t all_workspace(const SpmmProblem& p) { return tc_window_workspace(p, WindowRouting::all_tensor_cores); }

void run_routed(const SpmmProblem& p, void* ws, cudaStream_t s) { tc_window_run(p, WindowRouting::cost_model, ws, s); }
void run_all(const SpmmProblem& p, void* ws, cudaStream_t s) { tc_window_run(p, WindowRouting::all_tensor_cores, ws, s); }

}  // namespace

const SpmmVariant& tc_window_variant() {
  static const SpmmVariant v{"tc_window", "16-row windows: dense ones on tensor cores (TF32, fp16, bf16), the rest on CUDA cores",
                             can_implement, routed_workspace, run_routed};
  return v;
}

const SpmmVariant& tc_window_all_variant() {
  static const SpmmVariant v{"tc_window_all", "every 16-row window on tensor cores (TF32, fp16, bf16)",
                             can_implement, all_workspace, run_all};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
