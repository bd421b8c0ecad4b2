// row_split: one group of lanes per row of A (the row-splitting kernel of Yang, Buluc
// and Owens' merge-based SpMM paper, with GE-SpMM's coalesced row caching done in
// registers). The group loads `group` entries of the row at once (coalesced), then
// broadcasts each (column, value) with a shuffle while every lane reads V consecutive
// columns of B with one 16-byte load. Small N uses groups narrower than a warp, so a
// warp works on several rows at once; wide N loops over column tiles, with the tile
// index the slow grid dimension so that one column slice of B stays in L2 at a time.
// Assumes nothing about row lengths; a very long row is serialised on one group, which
// is what merge_path is for.
#include "cuda/check.cuh"
#include "cuda/spmm/ops.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

struct RowSplitPolicy {
  // 256 threads = 8 warps per block: on the H100 (sm_90), 128 and 512 were within 3% on
  // cit-HepPh and ego-Twitter at N = 32..512; 256 keeps 8 blocks resident per SM.
  static constexpr int block_threads = 256;
  // Entries of a cached tile consumed per unrolled step: 4 loads of B in flight per lane
  // (H100, fp32, N = 128: 4 beat 1 by ~20%, 8 gained nothing over 4).
  static constexpr int unroll = 4;
};

template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(RowSplitPolicy::block_threads)
    row_split_kernel(Operands<typename Ops::T, RowMajor> op, Ops ops, int group, int log_group) {
  using T = typename Ops::T;
  const int lane = threadIdx.x & 31;
  const int g_lane = lane & (group - 1);
  const unsigned gmask = group == 32 ? 0xffffffffu : (((1u << group) - 1u) << (lane & ~(group - 1)));
  const Index row = static_cast<Index>(blockIdx.x) * (blockDim.x >> log_group) + (threadIdx.x >> log_group);
  if (row >= op.m) return;  // the whole group leaves together
  const Index beg = op.ro[row], end = op.ro[row + 1];
  const Index tile_width = static_cast<Index>(group) * V;
  for (Index tile = blockIdx.y; tile * tile_width < op.n; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(g_lane) * V;
    const bool active = j < op.n;
    T acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = ops.identity();
    for (Index base = beg; base < end; base += group) {
      const Index idx = base + g_lane;
      ColIndex c = 0;
      T a = T(1);
      if (idx < end) {
        c = op.ci[idx];
        if constexpr (Ops::reads_a) a = op.av[idx];
      }
      const int count = static_cast<int>(end - base < group ? end - base : group);
#pragma unroll RowSplitPolicy::unroll
      for (int t = 0; t < count; ++t) {
        const ColIndex cc = __shfl_sync(gmask, c, t, group);
        const T aa = shfl(gmask, a, t, group);
        if (active) {
          T b[V];
          load_vec<T, V>(op.b_at(cc, j), b);
#pragma unroll
          for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], ops.mul(aa, b[v]));
        }
      }
    }
    if (!active) continue;
    T* c = op.c_at(row, j);
    if (beg == end) {
      if (op.accumulate) continue;
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = ops.empty_value();
    } else if (op.accumulate) {
      T old[V];
      if constexpr (RowMajor) {
#pragma unroll
        for (int v = 0; v < V; ++v) old[v] = c[v];
      } else {
        old[0] = *c;
      }
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = ops.add(old[v], acc[v]);
    }
    store_vec<T, V>(c, acc);
  }
}

// The narrowest power-of-two group whose lanes, V columns each, cover N (at most a warp).
int group_for(Index n, int v) {
  int g = 1;
  while (g < 32 && static_cast<Index>(g) * v < n) g *= 2;
  return g;
}

template <class Ops, int V, bool RowMajor>
void launch(const SpmmProblem& p, Ops ops, cudaStream_t stream) {
  const int group = group_for(p.n, V);
  int log_group = 0;
  while ((1 << log_group) < group) ++log_group;
  const Index rows_per_block = RowSplitPolicy::block_threads / group;
  const Index tiles = (p.n + static_cast<Index>(group) * V - 1) / (static_cast<Index>(group) * V);
  const dim3 grid(grid_limit((p.m + rows_per_block - 1) / rows_per_block),
                  static_cast<unsigned>(tiles < 65535 ? tiles : 65535));
  row_split_kernel<Ops, V, RowMajor>
      <<<grid, RowSplitPolicy::block_threads, 0, stream>>>(operands<typename Ops::T, RowMajor>(p), ops, group, log_group);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

bool can_implement(const SpmmProblem& p, std::string* why) {
  // Blocks of rows: the grid's x dimension holds up to 2^31 - 1 blocks, every m fits.
  (void)p;
  (void)why;
  return true;
}

std::size_t workspace_bytes(const SpmmProblem&) { return 0; }

void run(const SpmmProblem& p, void*, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  with_ops(p, [&]<class Ops, bool RowMajor>(Ops ops) {
    constexpr int full = 16 / sizeof(typename Ops::T);
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
  static const SpmmVariant v{"row_split", "a lane group per row, 16-byte loads of B, register row caching",
                             can_implement, workspace_bytes, run};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
