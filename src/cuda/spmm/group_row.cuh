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

#include "cuda/spmm/warp_row.cuh"  // team_row, write_row

namespace geblas::detail::cuda::spmm {

// The lanes of the calling lane's group, as a shuffle mask.
__device__ __forceinline__ unsigned group_mask(int log_w) {
  const int w = 1 << log_w;
  if (w == 32) return 0xffffffffu;
  const int lane = threadIdx.x & 31;
  return ((1u << w) - 1u) << (lane & ~(w - 1));
}

// acc (+)= sum over entries [beg, end) of A(row, k) (x) B(k, j .. j+V): team_row with the
// group as the team, one entry slot wide. All lanes of the group call it with the same
// beg, end; `active` says whether the lane's columns are inside N.
template <int U, class Ops, int V, bool RowMajor>
__device__ __forceinline__ void group_row(const Operands<typename Ops::Stored, RowMajor>& op, const Ops& ops, Index beg,
                                          Index end, Index j, bool active, int log_w, unsigned gmask,
                                          typename Ops::T (&acc)[V]) {
  team_row<U>(op, ops, beg, end, j, active, 1 << log_w, gmask, 1, 0, acc);
}

}  // namespace geblas::detail::cuda::spmm
