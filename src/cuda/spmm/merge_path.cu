// merge_path: load-balanced SpMM after Yang, Buluc and Owens ("Design Principles for
// Sparse Matrix Multiplication on the GPU"), which applies Merrill and Garland's merge
// path to SpMM. The work is the merge of the row ends with the entries (m + nnz items);
// every lane group takes an equal slice of it, whatever the row lengths, so one huge
// row is shared by many groups. Rows that end inside a slice are written directly; the
// part of a row a slice leaves unfinished is written to the workspace as a carry, and
// a second kernel folds each run of carries into its row with the semiring's add (no
// atomics, so every semiring works). Inner loop and 16-byte loads as in row_split.
#include "cuda/check.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/warp_row.cuh"  // tile_lanes, tile_grid

namespace geblas::detail::cuda::spmm {
namespace {

struct MergePathPolicy {
  static constexpr int block_threads = 256;
  static constexpr int unroll = 4;
  // Merge items (rows + entries) per lane group, not tuned: smaller slices balance better
  // but cost more carries and searches. On the H200 merge_path was 1.1-9x slower than
  // row_pieces on every shared graph (each slice walks its rows one after another).
  static constexpr Index items_per_group = 256;
  // Carries take (slices x N) values; slices grow so that they stay under this size.
  static constexpr std::size_t max_carry_bytes = std::size_t{64} << 20;
  static constexpr int fixup_threads = 128;  // 4 slices x 32 columns per block
};

struct Slicing {
  Index items = 0;   // merge items per slice
  Index slices = 0;
};

Slicing slicing(const SpmmProblem& p) {
  Slicing s;
  const Index total = p.m + p.nnz;
  const auto per_value = static_cast<std::size_t>(p.n > 0 ? p.n : 1) * p.value_bytes();
  const auto max_slices = static_cast<Index>(MergePathPolicy::max_carry_bytes / per_value);
  s.items = MergePathPolicy::items_per_group;
  if (max_slices > 0 && (total + s.items - 1) / s.items > max_slices) s.items = (total + max_slices - 1) / max_slices;
  s.slices = total == 0 ? 0 : (total + s.items - 1) / s.items;
  return s;
}

// The merge coordinate (rows finished, entries consumed) on diagonal d.
__device__ __forceinline__ void merge_search(const Index* __restrict__ ro, Index m, Index nnz, Index d, Index& i,
                                             Index& j) {
  Index lo = d > nnz ? d - nnz : 0, hi = d < m ? d : m;
  while (lo < hi) {
    const Index pivot = (lo + hi) >> 1;
    if (ro[pivot + 1] <= d - pivot - 1) lo = pivot + 1;
    else hi = pivot;
  }
  i = lo;
  j = d - lo;
}

// acc (+)= A(row, entries [from, to)) x B(:, j .. j+V), the group sharing its loads.
template <class Ops, int V, bool RowMajor>
__device__ __forceinline__ void accumulate_range(const Operands<typename Ops::T, RowMajor>& op, const Ops& ops,
                                                 Index from, Index to, Index j, bool active, int group, int g_lane,
                                                 unsigned gmask, typename Ops::T (&acc)[V]) {
  using T = typename Ops::T;
  for (Index base = from; base < to; base += group) {
    const Index idx = base + g_lane;
    ColIndex c = 0;
    T a = T(1);
    if (idx < to) {
      c = op.ci[idx];
      if constexpr (Ops::reads_a) a = op.av[idx];
    }
    const int count = static_cast<int>(to - base < group ? to - base : group);
#pragma unroll MergePathPolicy::unroll
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
}

template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(MergePathPolicy::block_threads)
    merge_path_kernel(Operands<typename Ops::T, RowMajor> op, Ops ops, Index nnz, Index items, Index slices,
                      int group, int log_group, Index* __restrict__ carry_row, typename Ops::T* __restrict__ carry) {
  using T = typename Ops::T;
  const int lane = threadIdx.x & 31;
  const int g_lane = lane & (group - 1);
  const unsigned gmask = group == 32 ? 0xffffffffu : (((1u << group) - 1u) << (lane & ~(group - 1)));
  const Index slice = static_cast<Index>(blockIdx.x) * (blockDim.x >> log_group) + (threadIdx.x >> log_group);
  if (slice >= slices) return;
  const Index total = op.m + nnz;
  const Index d0 = slice * items, d1 = d0 + items < total ? d0 + items : total;
  Index i0, j0, i1, j1;
  merge_search(op.ro, op.m, nnz, d0, i0, j0);
  merge_search(op.ro, op.m, nnz, d1, i1, j1);
  const Index tile_width = static_cast<Index>(group) * V;
  for (Index tile = blockIdx.y; tile * tile_width < op.n; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(g_lane) * V;
    const bool active = j < op.n;
    Index k = j0;
    for (Index i = i0; i < i1; ++i) {  // rows that end in this slice
      const Index end = op.ro[i + 1];
      T acc[V];
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = ops.identity();
      accumulate_range<Ops, V, RowMajor>(op, ops, k, end, j, active, group, g_lane, gmask, acc);
      if (active) {
        T* c = op.c_at(i, j);
        const bool empty = op.ro[i] == end;
        if (!(empty && op.accumulate)) {
          if (empty) {
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] = ops.empty_value();
          } else if (op.accumulate) {
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] = ops.add(RowMajor ? c[v] : *c, acc[v]);
          }
          store_vec<T, V>(c, acc);
        }
      }
      k = end;
    }
    // The unfinished start of row i1, if the slice holds any of its entries: a carry.
    const bool carries = i1 < op.m && k < j1;
    if (carries) {
      T acc[V];
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = ops.identity();
      accumulate_range<Ops, V, RowMajor>(op, ops, k, j1, j, active, group, g_lane, gmask, acc);
      if (active) store_vec<T, V>(carry + slice * op.n + j, acc);
    }
    if (tile == blockIdx.y && blockIdx.y == 0 && g_lane == 0) carry_row[slice] = carries ? i1 : -1;
  }
}

// Folds each run of carries of one row into C, in slice order; a block handles 4
// slices x 32 columns, looping over the columns.
template <class Ops, bool RowMajor>
__global__ void __launch_bounds__(MergePathPolicy::fixup_threads)
    merge_fixup_kernel(Operands<typename Ops::T, RowMajor> op, Ops ops, Index slices,
                       const Index* __restrict__ carry_row, const typename Ops::T* __restrict__ carry) {
  using T = typename Ops::T;
  const Index s = static_cast<Index>(blockIdx.x) * (MergePathPolicy::fixup_threads / 32) + (threadIdx.x >> 5);
  if (s >= slices) return;
  const Index r = carry_row[s];
  if (r < 0 || (s > 0 && carry_row[s - 1] == r)) return;  // no carry, or not the first of its run
  for (Index j = threadIdx.x & 31; j < op.n; j += 32) {
    T acc = carry[s * op.n + j];
    for (Index t = s + 1; t < slices && carry_row[t] == r; ++t) acc = ops.add(acc, carry[t * op.n + j]);
    T* c = op.c_at(r, j);
    *c = ops.add(*c, acc);
  }
}

template <class Ops, int V, bool RowMajor>
void launch(const SpmmProblem& p, Ops ops, void* workspace, cudaStream_t stream) {
  using T = typename Ops::T;
  const Slicing s = slicing(p);
  const int log_group = log2_of(tile_lanes(p.n, V));
  auto* carry_row = static_cast<Index*>(workspace);
  auto* carry = reinterpret_cast<T*>(static_cast<char*>(workspace) + ((s.slices * sizeof(Index) + 255) / 256) * 256);
  const LaunchShape g = tile_grid(s.slices, MergePathPolicy::block_threads >> log_group, p.n, V, log_group);
  const auto op = operands<T, RowMajor>(p);
  merge_path_kernel<Ops, V, RowMajor><<<dim3(g.grid_x, g.grid_y), MergePathPolicy::block_threads, 0, stream>>>(
      op, ops, p.nnz, s.items, s.slices, 1 << log_group, log_group, carry_row, carry);
  GEBLAS_CUDA_CHECK_LAUNCH();
  const Index fix_blocks = (s.slices + 3) / 4;
  merge_fixup_kernel<Ops, RowMajor>
      <<<grid_limit(fix_blocks), MergePathPolicy::fixup_threads, 0, stream>>>(op, ops, s.slices, carry_row, carry);
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
  const Slicing s = slicing(p);
  return ((static_cast<std::size_t>(s.slices) * sizeof(Index) + 255) / 256) * 256 +
         static_cast<std::size_t>(s.slices) * static_cast<std::size_t>(p.n) * p.value_bytes();
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
