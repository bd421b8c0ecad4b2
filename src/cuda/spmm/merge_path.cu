// merge_path: load-balanced SpMM after Yang, Buluc and Owens ("Design Principles for
// Sparse Matrix Multiplication on the GPU"), which applies Merrill and Garland's merge
// path to SpMM. The work is the merge of the row ends with the entries (m + nnz items);
// every lane group takes an equal slice of it, whatever the row lengths, so one huge
// row is shared by many groups. Rows that end inside a slice are written directly; the
// part of a row a slice leaves unfinished is written to the workspace as a carry, and
// a second kernel folds each run of carries into its row with the semiring's add (no
// atomics, so every semiring works). Inner loop and 16-byte loads as in row_split.
#include "cuda/check.cuh"
#include "cuda/spmm/merge_path_kernel.cuh"
#include "cuda/spmm/ops.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

MergeSlicing slicing(const SpmmProblem& p) { return merge_path_slicing(p.m, p.nnz, p.n, p.value_bytes()); }

template <class Ops, int V, bool RowMajor>
void launch(const SpmmProblem& p, Ops ops, void* workspace, cudaStream_t stream) {
  using T = typename Ops::T;
  const MergeSlicing s = slicing(p);
  auto* carry_row = static_cast<Index*>(workspace);
  auto* carry = reinterpret_cast<T*>(static_cast<char*>(workspace) + merge_path_carry_offset(s.slices));
  const LaunchShape g = merge_path_shape(s.slices, p.n, V);
  const auto op = operands<T, RowMajor>(p);
  merge_path_kernel<Ops, V, RowMajor><<<dim3(g.grid_x, g.grid_y), MergePathPolicy::block_threads, 0, stream>>>(
      op, ops, p.nnz, s.items, s.slices, 1 << g.log_w, g.log_w, carry_row, carry);
  GEBLAS_CUDA_CHECK_LAUNCH();
  merge_fixup_kernel<Ops, RowMajor><<<merge_fixup_blocks(s.slices), MergePathPolicy::fixup_threads, 0, stream>>>(
      op, ops, s.slices, carry_row, carry);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

bool can_implement(const SpmmProblem& p, std::string* why) {
  if (!takes_16bit(p, Takes16::none, "merge_path", why)) return false;
  if (p.m + p.nnz > 0 && p.n > 0 &&
      static_cast<std::size_t>(p.n) * p.value_bytes() > MergePathPolicy::max_carry_bytes) {
    if (why) *why = "N = " + std::to_string(p.n) + " makes one carry row larger than the carry budget";
    return false;
  }
  return true;
}

std::size_t workspace_bytes(const SpmmProblem& p) {
  if (p.m == 0 || p.n == 0) return 0;
  return merge_path_workspace_bytes(slicing(p), p.n, p.value_bytes());
}

void run(const SpmmProblem& p, void* workspace, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  with_vector_ops(
      p, [&]<class Ops, int V, bool RowMajor>(Ops ops) { launch<Ops, V, RowMajor>(p, ops, workspace, stream); });
}

}  // namespace

const SpmmVariant& merge_path_variant() {
  static const SpmmVariant v{"merge_path", "equal slices of the rows+entries merge, carries folded by a second kernel",
                             can_implement, workspace_bytes, run};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
