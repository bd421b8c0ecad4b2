// nnz_split's kernel (the variant's description is in nnz_split.cu), its policy and the
// work-list types it reads, in a namespace of their own (row_pieces has its own Unit and
// CutRow). Shared with the run-time semiring compiler (src/cuda/jit/), which compiles
// this file with NVRTC, as row_split_kernel.cuh is.
#pragma once

#include "cuda/spmm/warp_row.cuh"

namespace geblas::detail::cuda::spmm::nnz {

struct NnzSplitPolicy {
  // 8 warps (units) per block; launch granularity, the warps are independent.
  static constexpr int block_threads = 256;
  // Loads of B issued per entry slot before any is consumed (as row_split).
  static constexpr int unroll = 4;
  // Shared-memory staging per warp: at most this many entries and rows per unit. 256
  // entries keep a block's staging at 8-24 KiB (float..double) so that occupancy is set
  // by registers, not shared memory; 32 rows are one coalesced load of row offsets.
  static constexpr int max_unit_entries = 256;
  static constexpr int max_unit_rows = 32;
  // nnz_split_long_waves: warps of this kernel resident per SM (64 registers x 256 threads:
  // 4 blocks of 8 warps on sm_90, by ncu), and the most waves of units for which
  // the unit size is refitted (beyond, the last wave's idle part is a small share).
  static constexpr int resident_warps_per_sm = 32;
  static constexpr double max_fitted_waves = 4;
  static constexpr double min_idle_share = 0.1;
};

struct Unit {
  Index e_beg;    // first entry of the unit
  Index row_beg;  // first row (the cut row for a piece)
  int len;        // entries
  int rows;       // whole rows (1 for a piece)
  int piece;      // -1: whole rows written to C; else the piece's slot in the workspace
  int cut;        // a piece: its row's index in the cut-row list; else -1
};
struct CutRow {
  Index row;
  int first_piece;
  int pieces;
};

// A finished row (or the sum of a piece) of the unit: to C, or to the piece's workspace row.
template <class Ops, int V, bool RowMajor>
__device__ __forceinline__ void emit(const Operands<typename Ops::Stored, RowMajor>& op, const Ops& ops, const Unit& u,
                                     int x, Index j, typename Ops::T* __restrict__ partial,
                                     typename Ops::T (&acc)[V]) {
  if (u.piece < 0) write_row(op, ops, u.row_beg + x, j, false, acc);
  else store_vec<typename Ops::T, V>(partial + static_cast<Index>(u.piece) * op.n + j, acc);
}

// The staged entries e0 .. e0 + U - 1 below `limit`: their values of A into aa (1 past the
// limit) and, on active lanes, their rows of B into b, every load issued before any is used.
template <int U, class Ops, int V, bool RowMajor>
__device__ __forceinline__ void load_staged(const Operands<typename Ops::Stored, RowMajor>& op, const ColIndex* sc,
                                            const typename Ops::T* sv, int e0, int limit, bool active, Index j,
                                            typename Ops::Stored (&b)[U][V], typename Ops::T (&aa)[U]) {
#pragma unroll
  for (int q = 0; q < U; ++q) {
    const int e = e0 + q;
    aa[q] = typename Ops::T(1);
    if (e < limit) {
      if constexpr (Ops::reads_a) aa[q] = sv[e];
      if (active) load_vec<typename Ops::Stored, V>(op.b_entry(sc[e], j), b[q]);
    }
  }
}

// The stretch walked row by row: each row's share of the stretch is its own loop with U
// loads in flight and no row-boundary test per entry (the entry-by-entry walk tests every
// entry and keeps the row switch, with its write, inside the unrolled body); a row's
// remainder leaves up to U - 1 load slots idle, which the per-entry walk fills from the
// next row. Fewer instructions per entry, so it pays where each entry costs many loads
// (large N: on the H100 3-12% faster than the per-entry walk on
// ego-Twitter, cit-HepPh, musae-crocodile and R-MAT 20 at N = 128..512) and loses where
// rows are short and N small (20-40% slower at N = 32).
template <class Ops, int V, bool RowMajor, bool RowWise>
__global__ void __launch_bounds__(NnzSplitPolicy::block_threads)
    nnz_split_kernel(Operands<typename Ops::Stored, RowMajor> op, Ops ops, int log_w, const Unit* __restrict__ units,
                     Index unit_count, typename Ops::T* __restrict__ partial, const CutRow* __restrict__ cut_rows,
                     unsigned* __restrict__ counters) {
  using T = typename Ops::T;
  using Stored = typename Ops::Stored;
  using P = NnzSplitPolicy;
  constexpr int U = P::unroll;
  constexpr int warps = P::block_threads / 32;
  __shared__ ColIndex s_col[warps][P::max_unit_entries];
  __shared__ T s_val[warps][Ops::reads_a ? P::max_unit_entries : 1];
  __shared__ int s_off[warps][P::max_unit_rows + 1];
  __shared__ __align__(16) T s_head[warps][32][V];  // each slot's part of the row it starts in

  wait_for_prior_grid();     // launched early (early_launch.cuh): the previous kernel's writes first
  allow_dependent_launch();  // the fold kernel (folds without counters) or the next product may be scheduled now
  const int wib = static_cast<int>(threadIdx.x >> 5);
  const Index w = static_cast<Index>(blockIdx.x) * warps + wib;
  if (w >= unit_count) return;  // the whole warp leaves together
  const int lane = static_cast<int>(threadIdx.x & 31);
  const Unit u = units[w];
  ColIndex* sc = s_col[wib];
  T* sv = s_val[wib];
  int* so = s_off[wib];

  // Stage the unit: its entries, and its row offsets relative to its first entry.
#pragma unroll
  for (int q = 0; q < P::max_unit_entries / 32; ++q) {
    const int idx = q * 32 + lane;
    if (idx < u.len) {
      sc[idx] = op.ci[u.e_beg + idx];
      if constexpr (Ops::reads_a) sv[idx] = widen<T>(op.av[u.e_beg + idx]);
    }
  }
  for (int q = lane; q <= u.rows; q += 32)
    so[q] = u.piece >= 0 ? (q == 0 ? 0 : u.len) : static_cast<int>(op.ro[u.row_beg + q] - u.e_beg);
  __syncwarp();

  // This slot's stretch [lo, hi) of the unit's entries and the row holding entry lo.
  const int slots = 32 >> log_w;
  const int slot = lane >> log_w;
  const int gl = lane & ((1 << log_w) - 1);
  const int chunk = (u.len + slots - 1) / slots;
  const int lo = min(slot * chunk, u.len), hi = min(lo + chunk, u.len);
  int first = 0;
  if (lo < hi) {
    while (so[first + 1] <= lo) ++first;
  }

  const Index tile_width = static_cast<Index>(V) << log_w;
  const Index tiles = (op.n + tile_width - 1) / tile_width;
  for (Index tile = blockIdx.y; tile < tiles; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(gl) * V;
    const bool active = j < op.n;
    T acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = ops.identity();
    int cur = first;
    int cur_end = so[cur + 1];
    bool gather = false;
    if constexpr (RowWise) {
      if (lo < hi) {
        for (;;) {
          const int rb = so[cur];
          const int ee = min(hi, cur_end);
          for (int e0 = max(lo, rb); e0 < ee; e0 += U) {
            Stored b[U][V];
            T aa[U];
            load_staged<U, Ops>(op, sc, sv, e0, ee, active, j, b, aa);
            if (active) {
#pragma unroll
              for (int q = 0; q < U; ++q)
                if (e0 + q < ee) multiply_add(ops, aa[q], b[q], acc);
            }
          }
          if (rb < lo) {
            // begun by an earlier slot (ending here or going on): that slot adds this part
#pragma unroll
            for (int v = 0; v < V; ++v) s_head[wib][lane][v] = acc[v];
          } else if (cur_end > hi) {
            gather = true;  // begun here, going on in the next slots
            break;
          } else if (active) {
            emit<Ops, V, RowMajor>(op, ops, u, cur, j, partial, acc);
          }
          if (cur_end >= hi) break;
          // the next row with entries: entry cur_end < hi lies in one
          do ++cur;
          while (so[cur + 1] == so[cur]);
          cur_end = so[cur + 1];
#pragma unroll
          for (int v = 0; v < V; ++v) acc[v] = ops.identity();
        }
      }
    } else {
    for (int e0 = lo; e0 < hi; e0 += U) {
      Stored b[U][V];
      T aa[U];
      load_staged<U, Ops>(op, sc, sv, e0, hi, active, j, b, aa);
#pragma unroll
      for (int q = 0; q < U; ++q) {
        const int e = e0 + q;
        if (e < hi) {
          if (e >= cur_end) {  // row `cur` ended inside the stretch
            if (so[cur] < lo) {
#pragma unroll
              for (int v = 0; v < V; ++v) s_head[wib][lane][v] = acc[v];
            } else if (active) {
              emit<Ops, V, RowMajor>(op, ops, u, cur, j, partial, acc);
            }
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] = ops.identity();
            do ++cur;
            while (e >= so[cur + 1]);
            cur_end = so[cur + 1];
          }
          if (active) multiply_add(ops, aa[q], b[q], acc);
        }
      }
    }
    // The stretch's last row: finished here, or cut by the stretch's end.
    if (lo < hi) {
      if (so[cur] < lo) {
        // begun by an earlier slot (ending here or going on): that slot adds this part
#pragma unroll
        for (int v = 0; v < V; ++v) s_head[wib][lane][v] = acc[v];
      } else if (cur_end > hi) {
        gather = true;  // begun here, going on in the next slots
      } else if (active) {
        emit<Ops, V, RowMajor>(op, ops, u, cur, j, partial, acc);
      }
    }
    }  // entry-by-entry walk
    __syncwarp();
    if (gather) {
      for (int t = slot + 1; t < slots; ++t) {
#pragma unroll
        for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], s_head[wib][(t << log_w) + gl][v]);
        const int hi_t = min(min(t * chunk, u.len) + chunk, u.len);
        if (cur_end <= hi_t) break;
      }
      if (active) emit<Ops, V, RowMajor>(op, ops, u, cur, j, partial, acc);
    }
    // Rows without entries: the identity (write_row leaves them when accumulating).
    if (u.piece < 0 && active)
      for (int x = slot; x < u.rows; x += slots)
        if (so[x] == so[x + 1]) write_row(op, ops, u.row_beg + x, j, true, acc);
    // With counters, the last piece of a cut row to finish this tile folds the row.
    if (counters && u.piece >= 0) {
      const CutRow r = cut_rows[u.cut];
      fold_if_last<Ops, V, RowMajor>(op, ops, counters + static_cast<Index>(u.cut) * tiles + tile, r.row, r.first_piece,
                                     r.pieces, j, slot == 0 && active, partial);
    }
    __syncwarp();  // s_head is written again for the next tile
  }
}

}  // namespace geblas::detail::cuda::spmm::nnz
