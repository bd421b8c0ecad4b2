// crc: GE-SpMM's coalesced row caching alone (ge_spmm.cuh with CF = 1): a warp per row
// and per 32 columns, one column of C per lane. The paper's choice for N <= 32.
#include "cuda/spmm/ge_spmm.cuh"

namespace geblas::detail::cuda::spmm {
namespace {
bool can_implement(const SpmmProblem& p, std::string* why) { return takes_16bit(p, Takes16::none, "crc", why); }
std::size_t workspace_bytes(const SpmmProblem&) { return 0; }
void run(const SpmmProblem& p, void*, cudaStream_t stream) { ge::run_ge<ge::CrcPolicy::coarsening>(p, stream); }
}  // namespace

const SpmmVariant& crc_variant() {
  static const SpmmVariant v{"crc", "GE-SpMM coalesced row caching: a warp per row, a column per lane",
                             can_implement, workspace_bytes, run};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
