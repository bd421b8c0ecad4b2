// row_split: a warp per row of A (the row-splitting kernel of Yang, Buluc and Owens'
// merge-based SpMM paper) with the entry-parallel inner loop of warp_row.cuh: 16-byte
// loads of B, 32 entries cached per coalesced load, several entries and loads in flight
// per warp. N wider than one warp's tile loops over column tiles, with the tile index
// the slow grid dimension so that one column slice of B stays in L2 at a time. Assumes
// nothing about row lengths, but a very long row is serialised on one warp: row_pieces
// and merge_path are for those. Takes half and bfloat16 (8 values per 16-byte load of B,
// float accumulators).
#include "cuda/check.cuh"
#include "cuda/spmm/warp_row.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

struct RowSplitPolicy {
  // 8 warps (rows) per block; launch-granularity only, the warps are independent.
  static constexpr int block_threads = 256;
  // Loads of B issued per entry slot before any is consumed.
  static constexpr int unroll = 4;
};

template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(RowSplitPolicy::block_threads)
    row_split_kernel(Operands<typename Ops::Stored, RowMajor> op, Ops ops, int log_w) {
  using T = typename Ops::T;
  const Index row = static_cast<Index>(blockIdx.x) * (RowSplitPolicy::block_threads / 32) + (threadIdx.x >> 5);
  if (row >= op.m) return;  // the whole warp leaves together
  const int lane = threadIdx.x & 31;
  const Index beg = op.ro[row], end = op.ro[row + 1];
  const Index tile_width = static_cast<Index>(V) << log_w;
  for (Index tile = blockIdx.y; tile * tile_width < op.n; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(lane & ((1 << log_w) - 1)) * V;
    const bool active = j < op.n;
    T acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = ops.identity();
    warp_row<RowSplitPolicy::unroll>(op, ops, beg, end, j, active, log_w, acc);
    if (active && (lane >> log_w) == 0) write_row(op, ops, row, j, beg == end, acc);
  }
}

template <class Ops, int V, bool RowMajor>
void launch(const SpmmProblem& p, Ops ops, cudaStream_t stream) {
  const int log_w = log2_of(slot_lanes(p.n, V));
  const Index rows_per_block = RowSplitPolicy::block_threads / 32;
  const Index tile_width = static_cast<Index>(V) << log_w;
  const Index tiles = (p.n + tile_width - 1) / tile_width;
  const dim3 grid(grid_limit((p.m + rows_per_block - 1) / rows_per_block),
                  static_cast<unsigned>(tiles < 65535 ? tiles : 65535));
  row_split_kernel<Ops, V, RowMajor>
      <<<grid, RowSplitPolicy::block_threads, 0, stream>>>(operands<typename Ops::Stored, RowMajor>(p), ops, log_w);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

bool can_implement(const SpmmProblem& p, std::string* why) { return takes_16bit(p, Takes16::all, "row_split", why); }

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

const SpmmVariant& row_split_variant() {
  static const SpmmVariant v{"row_split", "a warp per row, entry-parallel slots, 16-byte loads of B",
                             can_implement, workspace_bytes, run};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
