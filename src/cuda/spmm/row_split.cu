// row_split: a warp per row of A (the row-splitting kernel of Yang, Buluc and Owens'
// merge-based SpMM paper) with the entry-parallel inner loop of warp_row.cuh: 16-byte
// loads of B, 32 entries cached per coalesced load, several entries and loads in flight
// per warp. N wider than one warp's tile loops over column tiles, with the tile index
// the slow grid dimension so that one column slice of B stays in L2 at a time. Assumes
// nothing about row lengths, but a very long row is serialised on one warp: row_pieces
// and merge_path are for those. Takes half and bfloat16 (8 values per 16-byte load of B,
// float accumulators).
#include "cuda/check.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/row_split_kernel.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

template <class Ops, int V, bool RowMajor>
void launch(const SpmmProblem& p, Ops ops, cudaStream_t stream) {
  const LaunchShape s = row_split_shape(p.m, p.n, V);
  row_split_kernel<Ops, V, RowMajor><<<dim3(s.grid_x, s.grid_y), RowSplitPolicy::block_threads, 0, stream>>>(
      operands<typename Ops::Stored, RowMajor>(p), ops, s.log_w);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

bool can_implement(const SpmmProblem& p, std::string* why) { return takes_16bit(p, Takes16::all, "row_split", why); }

std::size_t workspace_bytes(const SpmmProblem&) { return 0; }

void run(const SpmmProblem& p, void*, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  with_vector_ops<Takes16::all>(
      p, [&]<class Ops, int V, bool RowMajor>(Ops ops) { launch<Ops, V, RowMajor>(p, ops, stream); });
}

}  // namespace

const SpmmVariant& row_split_variant() {
  static const SpmmVariant v{"row_split", "a warp per row, entry-parallel slots, 16-byte loads of B",
                             can_implement, workspace_bytes, run};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
