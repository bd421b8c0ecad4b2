// row_pieces' kernel (the variant's description is in row_pieces.cu): a warp per item of
// the work list; the partial rows of hub rows are folded by piece_fold_kernel.cuh. Shared
// with the run-time semiring compiler (src/cuda/jit/) as row_split_kernel.cuh is.
#pragma once

#include "cuda/spmm/shared_access.cuh"
#include "cuda/spmm/warp_row.cuh"

namespace geblas::detail::cuda::spmm {

struct RowPiecesPolicy {
  static constexpr int block_threads = 256;  // 8 warps (work items) per block
  static constexpr int unroll = 4;           // as row_split
  // Steps (slots x unroll entries each) the longest piece may take; P = steps x slots x
  // unroll. Fewer steps: better balance, more pieces to add (4 steps ran 5-10% slower at
  // N >= 128 with packed blocks, H200).
  static constexpr int steps_per_piece = 8;
  // row_pieces_long: pieces of at least this many entries. At N >= 128 a slot is the whole
  // warp and steps_per_piece gives 32-entry pieces, so a hub row of 3546 entries
  // (musae-crocodile) is 111 pieces, and the fold (one thread per column, the pieces
  // added in order) became a third of the time: on the H100 (ncu) 46 us of
  // 138 at N = 512 and 12.7 of 41.4 at N = 128, where the main kernel alone (91.7 us,
  // 28.7 us) ran as fast as cuSPARSE's best (85.4 us, 28.4 us). 128 rather than more: at
  // N >= 128 a 128-entry piece is 32 dependent rounds of 4 loads for its warp, which
  // stays inside the kernel's time there (about 47 kcycles per SM on musae-crocodile at
  // N = 128), while 256-entry pieces would make the hub's warps the tail.
  static constexpr int min_long_piece = 128;
  // A cut row of at most one block's worth of pieces (8) is packed: its pieces, evened out
  // and rounded up to 2, 4 or 8, share a block with other rows of the same width, whose
  // warps add them in shared memory and write C (no partial row, no fold). Only longer
  // rows are blocked (a partial row per block of 8 pieces, folded by piece_fold_kernel).
  // A partial row per piece for the rows of 2-7 pieces made the fold of the many rows of
  // 33-250 entries of musae-crocodile, ca-AstroPh-lcc and astro-ph at N = 128 a third of
  // the time (10-17 us beside a 28-33 us product; H200).
  static constexpr int block_pieces = block_threads / 32;
  // Rows of at most this many entries (one slot's share of a piece) take one entry slot
  // each where a warp has several (N <= 64): the E slots of a warp run E such rows side by
  // side, U loads in flight each, where a warp per row left most of its slots idle on a
  // row of a few entries. H100: row_pieces 1.29x / 1.16x faster at
  // N = 32 / 64 on 14 power-law graphs (soc-Slashdot0902 1.72x, email-Enron 1.73x at
  // N = 32); 32 rather than 16 or 8: equal geomean, better on the two largest graphs
  // (ego-Twitter 0.063 ms against 0.066 / 0.069 at N = 32).
  static constexpr int slot_row_max = steps_per_piece * unroll;
};

struct Unit {
  Index beg, end;
  int row;  // -1: a padding unit (no entries, writes nothing)
  // In the loose units: -1 (a whole row). In a packed block: k >= 2 on the first of a row's
  // k pieces, 0 on the others. In a blocked row's block: -2 - p, the block adds its
  // pieces into partial row p.
  int piece;
};
struct CutRow {
  int row;
  int first_piece;  // the row's first partial row in the workspace
  int pieces;       // its partial rows
};

// The work list is three runs of units. First the blocked rows (rows of more than 8
// pieces), whose pieces fill whole blocks of their own and end in padding units; then the
// packed blocks, 8 units each; then the loose units, one whole row each (rows of at most P
// entries). `synced_units` is where the blocks that add across warps end (a multiple of 8).
// From `slot_rows` on (the loose run's tail of rows of at most slot_row_max entries; the
// runs take their rows longest first), a warp takes one unit per entry slot.
template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(RowPiecesPolicy::block_threads)
    row_pieces_kernel(Operands<typename Ops::Stored, RowMajor> op, Ops ops, int log_w, const Unit* __restrict__ units,
                      Index unit_count, Index synced_units, Index slot_rows, typename Ops::T* __restrict__ partial) {
  using T = typename Ops::T;
  constexpr int warps = RowPiecesPolicy::block_pieces;
  wait_for_prior_grid();     // launched early (early_launch.cuh): the previous kernel's writes first
  allow_dependent_launch();  // the fold of the blocked rows (or the next product) may be scheduled now
  const Index first = static_cast<Index>(blockIdx.x) * warps;
  if (first >= unit_count) return;  // the whole block leaves together
  const int warp = threadIdx.x >> 5;
  const Index w = first + warp;
  const int lane = threadIdx.x & 31;
  const bool synced = first < synced_units;  // block-uniform; these blocks are full
  if (!synced && w >= slot_rows) {
    // A short row per entry slot: the slot's lanes load its entries and shuffle among
    // themselves only, so a slot without a row leaves alone.
    const int width = 1 << log_w, slot = lane >> log_w;
    const Index k = slot_rows + (w - slot_rows) * (32 >> log_w) + slot;
    if (k >= unit_count) return;
    const Unit u = units[k];
    const unsigned mask = width == 32 ? 0xffffffffu : ((1u << width) - 1) << (slot * width);
    for_each_tile<V>(ops, op.n, log_w, lane, [&](Index j, bool active, T(&acc)[V]) {
      team_row<RowPiecesPolicy::unroll>(op, ops, u.beg, u.end, j, active, width, mask, 1, 0, acc);
      if (active) write_row(op, ops, u.row, j, u.beg == u.end, acc);
    });
    return;
  }
  const Unit u = units[w];
  // In a synced block the first unit of a row (of a blocked block: warp 0) adds the
  // others' sums after its own, in piece order; a loose unit writes its own row. An empty
  // unit's sum is the identity, which changes nothing: every sum starts from it.
  const bool blocked = synced && units[first].piece <= -2;  // block-uniform
  const int span = !synced ? 1 : blocked ? (warp == 0 ? warps : 0) : u.piece;
  __shared__ T sums[warps][32 * V];
  for_each_tile<V>(ops, op.n, log_w, lane, [&](Index j, bool active, T(&acc)[V]) {
    warp_row<RowPiecesPolicy::unroll>(op, ops, u.beg, u.end, j, active, log_w, acc);
    const bool writer = active && (lane >> log_w) == 0;
    if (synced) {
      if (writer && span <= 0)
#pragma unroll
        for (int v = 0; v < V; ++v) shared_row(sums, warp).store(lane * V + v, acc[v]);
      __syncthreads();
      if (writer)
        for (int q = 1; q < span; ++q)
#pragma unroll
          for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], shared_row(sums, warp + q).load(lane * V + v));
    }
    if (writer && span >= 1) {
      if (blocked) store_vec<T, V>(partial + static_cast<Index>(-2 - u.piece) * op.n + j, acc);
      else write_row(op, ops, u.row, j, u.beg == u.end, acc);
    }
    if (synced) __syncthreads();  // sums is written again for the next tile
  });
}

// Where the units of one entry slot each begin for N (and V): the last short_rows units of
// the list, where a warp has more than one slot; else nowhere (unit_count).
inline Index row_pieces_slot_rows(Index unit_count, Index short_rows, Index n, int v) {
  return tile_lanes(n, v) < 32 ? unit_count - short_rows : unit_count;
}

// The grid of the main kernel: a warp per work item (per E of them from slot_rows on),
// column tiles as the slow dimension.
inline LaunchShape row_pieces_shape(Index unit_count, Index slot_rows, Index n, int v) {
  const Index slots = 32 / tile_lanes(n, v);
  const Index warps = slot_rows + (unit_count - slot_rows + slots - 1) / slots;
  return tile_grid(warps, RowPiecesPolicy::block_threads / 32, n, v, log2_of(tile_lanes(n, v)));
}

}  // namespace geblas::detail::cuda::spmm
