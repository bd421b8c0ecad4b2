// The tensor-core row-window family of the CUDA SpMM registry: tc_window (windows routed
// by the cost model) and tc_window_all (every window on tensor cores, Shape::all_windows). They
// compute plus_times: float in TF32, only when the caller allowed TF32
// (Options::allow_tf32), so the registry lists them apart from the exact variants; half
// and bfloat16 with fp32 accumulation (no setting needed).
#include <string>

#include "cuda/spmm/problem.hpp"
#include "cuda/spmm/tc_window.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

bool can_implement(const SpmmVariant&, const SpmmProblem& p, std::string* why) {
  std::string reason;
  if (!p.matrix) reason = "needs A's storage for its window plan";
  else reason = tc_window_unsupported(p.type, p.semiring, p.allow_tf32, *p.matrix, p.n);
  if (reason.empty()) return true;
  if (why) *why = reason;
  return false;
}

WindowRouting routing(const SpmmVariant& v) {
  return v.shape.all_windows ? WindowRouting::all_tensor_cores : WindowRouting::cost_model;
}

std::size_t workspace_bytes(const SpmmVariant& v, const SpmmProblem& p) { return tc_window_workspace(p, routing(v)); }

void run(const SpmmVariant& v, const SpmmProblem& p, void* ws, cudaStream_t s) { tc_window_run(p, routing(v), ws, s); }

}  // namespace

const FamilyOps tc_window_family{can_implement, workspace_bytes, run};

}  // namespace geblas::detail::cuda::spmm
