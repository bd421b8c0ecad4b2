// The inner loop of row_group: a group of W lanes (a power of two, at
// most a warp) computes one tile of W * V columns of one row of C from a contiguous
// range of that row's entries, each lane V consecutive columns with 16-byte loads of B.
// W is the narrowest group covering N, so at small N one warp works on 32 / W rows at
// once and every lane stays busy. The group loads W entries (column, value) with one
// coalesced access (GE-SpMM's row caching, held in registers and broadcast by shuffles),
// then issues U loads of B before consuming any, so U loads per lane are in flight
// instead of one dependent chain. Groups of a warp run different rows, so their trip
// counts differ; every shuffle names only the group's lanes. Loads hold Ops::Stored
// values (8 per 16-byte load for half and bfloat16), widened to Ops::T when consumed.
#pragma once

#include "cuda/spmm/warp_row.cuh"  // log2_of, write_row

namespace geblas::detail::cuda::spmm {

// Lanes per group: the narrowest power of two whose lanes, V columns each, cover N.
inline int group_lanes(Index n, int v) {
  int w = 1;
  while (w < 32 && static_cast<Index>(w) * v < n) w *= 2;
  return w;
}

// The lanes of the calling lane's group, as a shuffle mask.
__device__ __forceinline__ unsigned group_mask(int log_w) {
  const int w = 1 << log_w;
  if (w == 32) return 0xffffffffu;
  const int lane = threadIdx.x & 31;
  return ((1u << w) - 1u) << (lane & ~(w - 1));
}

// acc (+)= sum over entries [beg, end) of A(row, k) (x) B(k, j .. j+V). All lanes of the
// group call it with the same beg, end; `active` says whether the lane's columns are
// inside N.
template <int U, class Ops, int V, bool RowMajor>
__device__ __forceinline__ void group_row(const Operands<typename Ops::Stored, RowMajor>& op, const Ops& ops, Index beg,
                                          Index end, Index j, bool active, int log_w, unsigned gmask,
                                          typename Ops::T (&acc)[V]) {
  using T = typename Ops::T;
  using Stored = typename Ops::Stored;
  const int w = 1 << log_w;
  const int g_lane = threadIdx.x & (w - 1);
  for (Index base = beg; base < end; base += w) {
    const Index idx = base + g_lane;
    ColIndex c = 0;
    T a = T(1);
    if (idx < end) {
      c = op.ci[idx];
      if constexpr (Ops::reads_a) a = widen<T>(op.av[idx]);
    }
    const int count = static_cast<int>(end - base < w ? end - base : w);
    for (int t0 = 0; t0 < count; t0 += U) {
      Stored b[U][V];
      T aa[U];
      bool ok[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int e = t0 + u;
        ok[u] = e < count && active;
        const ColIndex cc = __shfl_sync(gmask, c, e & (w - 1), w);
        aa[u] = shfl(gmask, a, e & (w - 1), w);
        if (ok[u]) load_vec<Stored, V>(op.b_at(cc, j), b[u]);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (ok[u]) {
          T bu[V];
          widen_vec(b[u], bu);
#pragma unroll
          for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], ops.mul(aa[u], bu[v]));
        }
    }
  }
}

}  // namespace geblas::detail::cuda::spmm
