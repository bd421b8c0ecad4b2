// merge_path: load-balanced SpMM after Yang, Buluc and Owens ("Design Principles for
// Sparse Matrix Multiplication on the GPU"), which applies Merrill and Garland's merge
// path to SpMM. The work is the merge of the row ends with the entries (m + nnz items);
// every lane group takes an equal slice of it, whatever the row lengths, so one huge
// row is shared by many groups. Rows that end inside a slice are written directly; the
// part of a row a slice leaves unfinished is written to the workspace as a carry, and
// a second kernel folds each run of carries into its row with the semiring's add (no
// atomics, so every semiring works). Inner loop and 16-byte loads as in row_split.
#include "cuda/spmm/merge_path.cuh"
#include "cuda/spmm/ops.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

bool can_implement(const SpmmVariant& v, const SpmmProblem& p, std::string* why) {
  if (!takes_16bit(p, Takes16::none, v.name, why)) return false;
  if (p.m + p.nnz > 0 && p.n > 0 &&
      static_cast<std::size_t>(p.n) * p.value_bytes() > MergePathPolicy::max_carry_bytes) {
    if (why) *why = "N = " + std::to_string(p.n) + " makes one carry row larger than the carry budget";
    return false;
  }
  return true;
}

std::size_t workspace_bytes(const SpmmVariant&, const SpmmProblem& p) {
  if (p.m == 0 || p.n == 0) return 0;
  return merge_path_workspace_bytes(merge_path_slicing(p), p.n, p.value_bytes());
}

void run(const SpmmVariant&, const SpmmProblem& p, void* workspace, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  with_vector_ops(p, [&]<class Ops, int V, bool RowMajor>(Ops ops) {
    const auto op = operands<typename Ops::T, RowMajor>(p);
    launch_merge_path(p, V, built_kernels(op, ops, merge_path_kernel<Ops, V, RowMajor>, merge_fixup_kernel<Ops, RowMajor>),
                      workspace, stream);
  });
}

}  // namespace

const FamilyOps merge_path_family{can_implement, workspace_bytes, run};

}  // namespace geblas::detail::cuda::spmm
