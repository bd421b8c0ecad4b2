// row_group: a lane group per row of A, as narrow as N allows (group_row.cuh), so that at
// small N one warp works on 32 / W rows at once. The variant for graphs whose rows are
// all a few entries long (road networks, meshes), where row_split's warp per row leaves
// most entry slots empty. A long row is serialised on one group (no cutting). Takes half
// and bfloat16 (8 values per 16-byte load, float accumulators).
#include "cuda/check.cuh"
#include "cuda/spmm/group_row.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

struct RowGroupPolicy {
  // Launch granularity only: the groups are independent.
  static constexpr int block_threads = 256;
  // Loads of B issued per lane before any is consumed.
  static constexpr int unroll = 4;
};

template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(RowGroupPolicy::block_threads)
    row_group_kernel(Operands<typename Ops::Stored, RowMajor> op, Ops ops, int log_w) {
  using T = typename Ops::T;
  const Index row = (static_cast<Index>(blockIdx.x) * RowGroupPolicy::block_threads + threadIdx.x) >> log_w;
  if (row >= op.m) return;  // the whole group leaves together
  const unsigned gmask = group_mask(log_w);
  const int g_lane = threadIdx.x & ((1 << log_w) - 1);
  const Index beg = op.ro[row], end = op.ro[row + 1];
  const Index tile_width = static_cast<Index>(V) << log_w;
  for (Index tile = blockIdx.y; tile * tile_width < op.n; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(g_lane) * V;
    const bool active = j < op.n;
    T acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = ops.identity();
    group_row<RowGroupPolicy::unroll>(op, ops, beg, end, j, active, log_w, gmask, acc);
    if (active) write_row(op, ops, row, j, beg == end, acc);
  }
}

template <class Ops, int V, bool RowMajor>
void launch(const SpmmProblem& p, Ops ops, cudaStream_t stream) {
  const int log_w = log2_of(group_lanes(p.n, V));
  const Index rows_per_block = RowGroupPolicy::block_threads >> log_w;
  const Index tile_width = static_cast<Index>(V) << log_w;
  const Index tiles = (p.n + tile_width - 1) / tile_width;
  const dim3 grid(grid_limit((p.m + rows_per_block - 1) / rows_per_block),
                  static_cast<unsigned>(tiles < 65535 ? tiles : 65535));
  row_group_kernel<Ops, V, RowMajor>
      <<<grid, RowGroupPolicy::block_threads, 0, stream>>>(operands<typename Ops::Stored, RowMajor>(p), ops, log_w);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

bool can_implement(const SpmmProblem& p, std::string* why) { return takes_16bit(p, Takes16::all, "row_group", why); }

std::size_t workspace_bytes(const SpmmProblem&) { return 0; }

void run(const SpmmProblem& p, void*, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  with_ops<Takes16::all>(p, [&]<class Ops, bool RowMajor>(Ops ops) {
    constexpr int full = 16 / sizeof(typename Ops::Stored);
    if constexpr (RowMajor && full > 1) {
      if (vector_aligned(p, full)) return launch<Ops, full, true>(p, ops, stream);
      return launch<Ops, 1, true>(p, ops, stream);
    } else {
      launch<Ops, 1, RowMajor>(p, ops, stream);
    }
  });
}

}  // namespace

const SpmmVariant& row_group_variant() {
  static const SpmmVariant v{"row_group", "a lane group as wide as N per row: several short rows per warp",
                             can_implement, workspace_bytes, run};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
