// The tensor-core row-window variants in the CUDA SpMM registry: tc_window (windows
// routed by the cost model) and tc_window_all (every window on tensor cores). They
// compute float plus_times in TF32, so they run only when the caller allowed TF32
// (Options::allow_tf32); the registry lists them apart from the exact variants.
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

std::size_t no_workspace(const SpmmProblem&) { return 0; }

void run_routed(const SpmmProblem& p, void*, cudaStream_t s) { tc_window_run(p, WindowRouting::cost_model, s); }
void run_all(const SpmmProblem& p, void*, cudaStream_t s) { tc_window_run(p, WindowRouting::all_tensor_cores, s); }

}  // namespace

const SpmmVariant& tc_window_variant() {
  static const SpmmVariant v{"tc_window", "16-row windows: dense ones on TF32 tensor cores, the rest on CUDA cores",
                             can_implement, no_workspace, run_routed};
  return v;
}

const SpmmVariant& tc_window_all_variant() {
  static const SpmmVariant v{"tc_window_all", "every 16-row window on TF32 tensor cores", can_implement,
                             no_workspace, run_all};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
