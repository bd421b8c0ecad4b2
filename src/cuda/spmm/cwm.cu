// cwm: GE-SpMM's coalesced row caching with coarse-grained warp merging (ge_spmm.cuh with
// CF = ge::CwmPolicy::coarsening, ge_spmm_kernel.cuh): each lane owns CF columns 32 apart,
// so a cached row of A serves 32 * CF columns. Meant for N > 32.
#include "cuda/spmm/ge_spmm.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

bool can_implement(const SpmmProblem& p, std::string* why) { return takes_16bit(p, Takes16::none, "cwm", why); }
std::size_t workspace_bytes(const SpmmProblem&) { return 0; }
void run(const SpmmProblem& p, void*, cudaStream_t stream) { ge::run_ge<ge::CwmPolicy::coarsening>(p, stream); }

}  // namespace

const SpmmVariant& cwm_variant() {
  static const SpmmVariant v{"cwm", "GE-SpMM row caching + coarse warp merging: 2 columns per lane",
                             can_implement, workspace_bytes, run};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
