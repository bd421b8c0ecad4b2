// The registry of CUDA SpMM variants, read from the one table (variants.hpp): each
// variant's life cycle handed to its family's launcher, and the names the tests and the
// bench enumerate and force (cuda_spmm_variant_names).
#include "cuda/context.cuh"
#include "cuda/spmm/variants.hpp"
#include "geblas/detail/spmm_variants.hpp"

namespace geblas::detail {
namespace cuda::spmm {
namespace {

#define GEBLAS_SPMM_FAMILY_ENTRY(family, header, vectors) &family##_family,
const FamilyOps* const family_ops[] = {GEBLAS_SPMM_FAMILIES(GEBLAS_SPMM_FAMILY_ENTRY)};
#undef GEBLAS_SPMM_FAMILY_ENTRY

const FamilyOps& ops_of(Family f) { return *family_ops[static_cast<std::size_t>(f)]; }

}  // namespace

bool SpmmVariant::can_implement(const SpmmProblem& p, std::string* why) const {
  return ops_of(family).can_implement(*this, p, why);
}
std::size_t SpmmVariant::workspace_bytes(const SpmmProblem& p) const { return ops_of(family).workspace_bytes(*this, p); }
void SpmmVariant::run(const SpmmProblem& p, void* workspace, cudaStream_t stream) const {
  ops_of(family).run(*this, p, workspace, stream);
}

}  // namespace cuda::spmm

std::vector<std::string> cuda_spmm_variant_names() {
  std::vector<std::string> out;
  for (const auto* v : cuda::spmm::variants()) out.emplace_back(v->name);
  return out;
}

void* cuda_stream_handle(int ordinal) { return cuda::stream(ordinal); }

}  // namespace geblas::detail
