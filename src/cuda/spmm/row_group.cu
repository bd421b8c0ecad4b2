// row_group: a lane group per row of A, as narrow as N allows (group_row.cuh), so that at
// small N one warp works on 32 / W rows at once. The variant for graphs whose rows are
// all a few entries long (road networks, meshes), where row_split's warp per row leaves
// most entry slots empty. A long row is serialised on one group (no cutting). Takes half
// and bfloat16 (8 values per 16-byte load, float accumulators).
#include "cuda/check.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/row_group_kernel.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

template <class Ops, int V, bool RowMajor>
void launch(const SpmmProblem& p, Ops ops, cudaStream_t stream) {
  const LaunchShape s = row_group_shape(p.m, p.n, V);
  row_group_kernel<Ops, V, RowMajor><<<dim3(s.grid_x, s.grid_y), RowGroupPolicy::block_threads, 0, stream>>>(
      operands<typename Ops::Stored, RowMajor>(p), ops, s.log_w);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

bool can_implement(const SpmmProblem& p, std::string* why) { return takes_16bit(p, Takes16::all, "row_group", why); }

std::size_t workspace_bytes(const SpmmProblem&) { return 0; }

void run(const SpmmProblem& p, void*, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  with_vector_ops<Takes16::all>(
      p, [&]<class Ops, int V, bool RowMajor>(Ops ops) { launch<Ops, V, RowMajor>(p, ops, stream); });
}

}  // namespace

const SpmmVariant& row_group_variant() {
  static const SpmmVariant v{"row_group", "a lane group as wide as N per row: several short rows per warp",
                             can_implement, workspace_bytes, run};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
