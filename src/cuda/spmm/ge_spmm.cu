// The GE-SpMM family (ge_spmm.cuh): crc and cwm, and any other coarsening the table
// (variants.hpp) lists, each compiled for exactly the coarsening of its line there. No
// 16-bit types, no workspace.
#include "cuda/spmm/ge_spmm.cuh"
#include "cuda/spmm/variants.hpp"

namespace geblas::detail::cuda::spmm {
namespace {

bool can_implement(const SpmmVariant& v, const SpmmProblem& p, std::string* why) {
  return takes_16bit(p, Takes16::none, v.name, why);
}
std::size_t workspace_bytes(const SpmmVariant&, const SpmmProblem&) { return 0; }

void run(const SpmmVariant& v, const SpmmProblem& p, void*, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  with_table_entry<Family::ge_spmm>(v, [&]<std::size_t I>() {
    constexpr int CF = variant_table[I].shape.coarsening;
    with_ops(p, [&]<class Ops, bool RowMajor>(Ops ops) {
      const auto op = operands<typename Ops::T, RowMajor>(p);
      ge::launch_ge(v, p, built_kernels(op, ops, ge::ge_spmm_kernel<Ops, CF, RowMajor>), stream);
    });
  });
}

}  // namespace

const FamilyOps ge_spmm_family{can_implement, workspace_bytes, run};

}  // namespace geblas::detail::cuda::spmm
