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
  // Rows of at least this many pieces are added a block (8 pieces) at a time in shared
  // memory (row_pieces_kernel). Every cut row blocked, a row of 2-7 pieces took a block of
  // 8 warps: row_pieces ran 1.1-1.5x slower on musae-crocodile, ca-AstroPh-lcc and
  // astro-ph at N = 128 (H200, 2026-11-26), whose many rows of 33-250 entries are cut.
  static constexpr int min_block_pieces = 8;
};

struct Unit {
  Index beg, end;
  int row;
  // -1: the whole row; p >= 0: a piece writing partial row p of the workspace; -2 - p: a
  // piece of a blocked row, whose block adds its pieces into partial row p
  int piece;
  int cut;  // a piece's row in the cut-row list (-1 for a whole row)
};
struct CutRow {
  int row;
  int first_piece;  // the row's first partial row in the workspace
  int pieces;       // its partial rows
};

// A row of at least RowPiecesPolicy::min_block_pieces pieces is blocked: the work list
// puts its pieces in whole blocks of their own (padded with empty units) at its front, so
// that a block's warps add their partial rows in shared memory, in warp order, and write
// one partial row: the fold then adds 1/8 as many for a hub row (the 111 pieces of
// musae-crocodile's 3546-entry row at N >= 128 become 14 partial rows), and the main
// kernel writes 1/8 as many. Rows of fewer pieces keep a partial row per piece: a block
// for each would leave most of its warps idle.
//
// With `counters` (row_pieces_fused: one per cut row and column tile, zero on entry), the
// warp that writes a cut row's last partial row of a tile folds the row there
// (fold_if_last, warp_row.cuh), in partial-row order, instead of a second kernel after
// the whole grid.
// The tile's arrival counter of cut row `cut`, and the fold once all its partial rows are in.
template <class Ops, int V, bool RowMajor>
__device__ __forceinline__ void fold_cut_row(const Operands<typename Ops::Stored, RowMajor>& op, const Ops& ops,
                                             const CutRow* __restrict__ cut_rows, unsigned* counters, int cut,
                                             Index tile, Index tiles, Index j, bool writer,
                                             const typename Ops::T* __restrict__ partial) {
  const CutRow r = cut_rows[cut];
  fold_if_last<Ops, V, RowMajor>(op, ops, counters + static_cast<Index>(cut) * tiles + tile, r.row, r.first_piece,
                                 r.pieces, j, writer, partial);
}

template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(RowPiecesPolicy::block_threads)
    row_pieces_kernel(Operands<typename Ops::Stored, RowMajor> op, Ops ops, int log_w, const Unit* __restrict__ units,
                      Index unit_count, typename Ops::T* __restrict__ partial, const CutRow* __restrict__ cut_rows,
                      unsigned* counters) {
  using T = typename Ops::T;
  constexpr int warps = RowPiecesPolicy::block_threads / 32;
  const Index first = static_cast<Index>(blockIdx.x) * warps;
  if (first >= unit_count) return;  // the whole block leaves together
  const int warp = threadIdx.x >> 5;
  const Index w = first + warp;
  const int lane = threadIdx.x & 31;
  const Index tile_width = static_cast<Index>(V) << log_w;
  const Index tiles = (op.n + tile_width - 1) / tile_width;
  // block-uniform: a blocked row's blocks hold only its pieces and are full
  const bool blocked = units[first].piece <= -2;
  if (!blocked && w >= unit_count) return;
  const Unit u = units[w];
  __shared__ T sums[warps][32 * V];
  for (Index tile = blockIdx.y; tile < tiles; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(lane & ((1 << log_w) - 1)) * V;
    const bool active = j < op.n;
    T acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = ops.identity();
    warp_row<RowPiecesPolicy::unroll>(op, ops, u.beg, u.end, j, active, log_w, acc);
    const bool writer = active && (lane >> log_w) == 0;
    if (!blocked) {
      if (u.piece < 0) {
        if (writer) write_row(op, ops, u.row, j, u.beg == u.end, acc);
        continue;
      }
      if (writer) store_vec<T, V>(partial + static_cast<Index>(u.piece) * op.n + j, acc);
      if (counters) fold_cut_row<Ops, V, RowMajor>(op, ops, cut_rows, counters, u.cut, tile, tiles, j, writer, partial);
      continue;
    }
    if (writer)
#pragma unroll
      for (int v = 0; v < V; ++v) sums[warp][lane * V + v] = acc[v];
    __syncthreads();
    if (warp == 0) {
      if (writer) {
        // the padding units (no entries) are the block's last ones
        for (int q = 1; q < warps && units[first + q].beg < units[first + q].end; ++q)
#pragma unroll
          for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], sums[q][lane * V + v]);
        store_vec<T, V>(partial + static_cast<Index>(-2 - u.piece) * op.n + j, acc);
      }
      if (counters) fold_cut_row<Ops, V, RowMajor>(op, ops, cut_rows, counters, u.cut, tile, tiles, j, writer, partial);
    }
    __syncthreads();  // sums is written again for the next tile
  }
}

// The grid of the main kernel: a warp per work item, column tiles as the slow dimension.
inline LaunchShape row_pieces_shape(Index unit_count, Index n, int v) {
  return tile_grid(unit_count, RowPiecesPolicy::block_threads / 32, n, v, log2_of(tile_lanes(n, v)));
}

}  // namespace geblas::detail::cuda::spmm
