// row_pieces' kernel (the variant's description is in row_pieces.cu): a warp per item of
// the work list; cut rows are folded by piece_fold_kernel.cuh. Shared with the run-time
// semiring compiler (src/cuda/jit/) as row_split_kernel.cuh is.
#pragma once

#include "cuda/spmm/warp_row.cuh"

namespace geblas::detail::cuda::spmm {

struct RowPiecesPolicy {
  static constexpr int block_threads = 256;  // 8 warps (work items) per block
  static constexpr int unroll = 4;           // as row_split
  // Steps (slots x unroll entries each) the longest piece may take; P = steps x slots x
  // unroll. Fewer steps: better balance, more pieces to fold.
  static constexpr int steps_per_piece = 8;
  // row_pieces_long: pieces of at least this many entries. At N >= 128 a slot is the whole
  // warp and steps_per_piece gives 32-entry pieces, so a hub row of 3546 entries
  // (musae-crocodile) is 111 pieces, and the fold (one thread per column, the pieces
  // added in order) became a third of the time: on the H100 (ncu, 2026-11-25) 46 us of
  // 138 at N = 512 and 12.7 of 41.4 at N = 128, where the main kernel alone (91.7 us,
  // 28.7 us) ran as fast as cuSPARSE's best (85.4 us, 28.4 us). 128 rather than more: at
  // N >= 128 a 128-entry piece is 32 dependent rounds of 4 loads for its warp, which
  // stays inside the kernel's time there (about 47 kcycles per SM on musae-crocodile at
  // N = 128), while 256-entry pieces would make the hub's warps the tail.
  static constexpr int min_long_piece = 128;
};

struct Unit {
  Index beg, end;
  int row;
  int piece;  // -1: the whole row; else the piece's slot in the workspace
};
struct CutRow {
  int row;
  int first_piece;
  int pieces;
};

template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(RowPiecesPolicy::block_threads)
    row_pieces_kernel(Operands<typename Ops::Stored, RowMajor> op, Ops ops, int log_w, const Unit* __restrict__ units,
                      Index unit_count, typename Ops::T* __restrict__ partial) {
  using T = typename Ops::T;
  const Index w = static_cast<Index>(blockIdx.x) * (RowPiecesPolicy::block_threads / 32) + (threadIdx.x >> 5);
  if (w >= unit_count) return;
  const int lane = threadIdx.x & 31;
  const Unit u = units[w];
  for_each_tile<V>(ops, op.n, log_w, lane, [&](Index j, bool active, T(&acc)[V]) {
    warp_row<RowPiecesPolicy::unroll>(op, ops, u.beg, u.end, j, active, log_w, acc);
    if (!active || (lane >> log_w) != 0) return;
    if (u.piece < 0) write_row(op, ops, u.row, j, u.beg == u.end, acc);
    else store_vec<T, V>(partial + static_cast<Index>(u.piece) * op.n + j, acc);
  });
}

// The grid of the main kernel: a warp per work item, column tiles as the slow dimension.
inline LaunchShape row_pieces_shape(Index unit_count, Index n, int v) {
  return tile_grid(unit_count, RowPiecesPolicy::block_threads / 32, n, v, log2_of(tile_lanes(n, v)));
}

}  // namespace geblas::detail::cuda::spmm
