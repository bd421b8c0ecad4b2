// nnz_split: every warp gets the same number of entries of A, not the same number of rows.
// A work list (built once per A on its device and kept in its derived cache) cuts the
// rows into units: a run of consecutive whole rows holding at most S entries (and at
// most 32 rows), or, for a row longer than S, one piece of S entries of it. A warp stages its unit's
// entries and row offsets in shared memory, splits the unit's entries into one
// contiguous stretch per entry slot (the slot layout of warp_row.cuh: W lanes of V
// columns each) and walks it with U loads of B in flight, across row boundaries. A row
// that ends inside a slot's stretch is written by that slot; a row cut by a stretch
// boundary is finished by the slot holding its first entry, which adds the other slots'
// parts (left in shared memory) in order; rows without entries get the identity. Pieces
// of long rows go to the workspace and a second kernel folds them, as in row_pieces.
// For power-law graphs at small N, where a warp per row spends most of its time waiting
// on the few loads a short row has, and where zero-entry rows would take a warp each.
// Takes half and bfloat16 on the fast path with 16-byte loads only (Takes16::fast_vector:
// the scalar and generic 16-bit kernels would double this file's compile time): entries
// are staged and partial rows kept in float (the compute type), B is read 8 values per
// 16-byte load, and C is rounded once.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/derived_cache.hpp"
#include "cuda/check.cuh"
#include "cuda/ops/common.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/piece_fold.cuh"
#include "cuda/spmm/policy/dispatch_policy.hpp"
#include "cuda/spmm/warp_row.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

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
  // 4 blocks of 8 warps on sm_90; ncu, 2026-11-25), and the most waves of units for which
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

struct UnitPlan {
  RawBuffer units, cut_rows;
  Index unit_count = 0, cut_count = 0, piece_count = 0;
};

// The work list for S entries per unit, built on A's device: rows are taken in blocks of
// max_unit_rows, and one thread walks each block greedily (a run of whole rows while it
// holds at most S entries, or the pieces of a row longer than S), so a unit never
// crosses a block boundary. Units hold at most max_unit_rows rows anyway, so this costs
// at most one extra unit per block against a greedy walk over the whole matrix, and it
// makes the walk parallel: a count pass, three prefix sums, a fill pass.
struct BlockWalk {
  Index units = 0, pieces = 0, cuts = 0;
};

template <bool Fill>
__device__ BlockWalk walk_block(Index blk, Index m, const Index* ro, int S, Unit* units, CutRow* cut,
                                Index unit_at, Index piece_at, Index cut_at) {
  BlockWalk w;
  const Index end = min(m, (blk + 1) * NnzSplitPolicy::max_unit_rows);
  for (Index i = blk * NnzSplitPolicy::max_unit_rows; i < end;) {
    const Index len = ro[i + 1] - ro[i];
    if (len > S) {
      const int pieces = static_cast<int>((len + S - 1) / S);
      if constexpr (Fill) {
        const int c = static_cast<int>(cut_at + w.cuts);
        const int first = static_cast<int>(piece_at + w.pieces);
        cut[c] = {i, first, pieces};
        int q = 0;
        for (Index e = ro[i]; e < ro[i + 1]; e += S, ++q)
          units[unit_at + w.units + q] = {e, i, static_cast<int>(min(Index(S), ro[i + 1] - e)), 1, first + q, c};
      }
      w.units += pieces;
      w.pieces += pieces;
      w.cuts += 1;
      ++i;
      continue;
    }
    Index r = i;  // takes row i at least (len <= S)
    while (r < end && ro[r + 1] - ro[i] <= S) ++r;
    if constexpr (Fill)
      units[unit_at + w.units] = {ro[i], i, static_cast<int>(ro[r] - ro[i]), static_cast<int>(r - i), -1, -1};
    w.units += 1;
    i = r;
  }
  return w;
}

__global__ void units_count(Index blocks, Index m, const Index* ro, int S, Index* units, Index* pieces, Index* cuts) {
  for (Index b = Index(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += Index(gridDim.x) * blockDim.x) {
    const BlockWalk w = walk_block<false>(b, m, ro, S, nullptr, nullptr, 0, 0, 0);
    units[b] = w.units;
    pieces[b] = w.pieces;
    cuts[b] = w.cuts;
  }
}

__global__ void units_fill(Index blocks, Index m, const Index* ro, int S, const Index* unit_at, const Index* piece_at,
                           const Index* cut_at, Unit* units, CutRow* cut) {
  for (Index b = Index(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += Index(gridDim.x) * blockDim.x)
    walk_block<true>(b, m, ro, S, units, cut, unit_at[b], piece_at[b], cut_at[b]);
}

std::shared_ptr<const UnitPlan> plan_for(const SparseStorage& A, int S) {
  return derived<UnitPlan>(A, "spmm_nnz_units:" + std::to_string(S), [&] {
    ops::Ctx c(A.device);
    const Index m = A.nrows;
    const Index blocks = (m + NnzSplitPolicy::max_unit_rows - 1) / NnzSplitPolicy::max_unit_rows;
    const Index* ro = A.row_offsets.as<Index>();
    RawBuffer unit_at = ops::temp<Index>(blocks + 1, c.device), piece_at = ops::temp<Index>(blocks + 1, c.device),
              cut_at = ops::temp<Index>(blocks + 1, c.device);
    if (blocks > 0) {
      units_count<<<ops::blocks_for(blocks), ops::LaunchPolicy::threads, 0, c.stream>>>(
          blocks, m, ro, S, unit_at.as<Index>(), piece_at.as<Index>(), cut_at.as<Index>());
      GEBLAS_CUDA_CHECK_LAUNCH();
    }
    UnitPlan plan;
    plan.unit_count = ops::counts_to_offsets(unit_at.as<Index>(), blocks, c.stream);
    plan.piece_count = ops::counts_to_offsets(piece_at.as<Index>(), blocks, c.stream);
    plan.cut_count = ops::counts_to_offsets(cut_at.as<Index>(), blocks, c.stream);
    if (plan.unit_count > 0) plan.units = RawBuffer(static_cast<std::size_t>(plan.unit_count) * sizeof(Unit), A.device);
    if (plan.cut_count > 0) plan.cut_rows = RawBuffer(static_cast<std::size_t>(plan.cut_count) * sizeof(CutRow), A.device);
    if (blocks > 0) {
      units_fill<<<ops::blocks_for(blocks), ops::LaunchPolicy::threads, 0, c.stream>>>(
          blocks, m, ro, S, unit_at.as<Index>(), piece_at.as<Index>(), cut_at.as<Index>(), plan.units.as<Unit>(),
          plan.cut_rows.as<CutRow>());
      GEBLAS_CUDA_CHECK_LAUNCH();
    }
    return plan;
  });
}

// Arrival counters for folding pieces inside the kernel: one per (cut row, column tile),
// zero between calls (the warp that folds a row resets its counter). Kept with A per
// (S, tiles), since the cut rows depend on S and the tiles on N.
struct FoldCounters {
  mutable RawBuffer counts;  // written by the kernels, never reallocated
};

std::shared_ptr<const FoldCounters> counters_for(const SparseStorage& A, int S, Index cut_count, Index tiles) {
  return derived<FoldCounters>(A, "spmm_nnz_count:" + std::to_string(S) + ":" + std::to_string(tiles), [&] {
    FoldCounters f;
    const std::size_t bytes = static_cast<std::size_t>(cut_count * tiles) * sizeof(unsigned);
    f.counts = RawBuffer(bytes, A.device);
    if (bytes) zero_bytes(f.counts.data(), A.device, bytes);
    return f;
  });
}

// A load that reads L2 (not this SM's L1), for partial rows other warps wrote.
template <class T>
__device__ __forceinline__ T load_shared_l2(const T* p) {
  if constexpr (std::is_same_v<T, bool>) return *reinterpret_cast<const volatile unsigned char*>(p) != 0;
  else return *static_cast<const volatile T*>(p);
}

// Lanes per entry slot: as row_split (the narrowest cover of N), at most `max_lanes`.
// Fewer lanes than N needs make column tiles narrower than N (more tiles, each slot
// reading less of each row of B, so more rows of B fit in L1 at a time).
int lanes_for(Index n, int v, int max_lanes) { return std::min(slot_lanes(n, v), max_lanes); }

// The unit's shape: `steps` rounds of U loads per slot, lanes per slot capped; pieces
// folded inside the kernel (arrival counters) or by a second kernel.
struct Split {
  int steps;
  int max_lanes;
  bool fused_fold;
  bool fit_waves = false;
};

// S = steps x slots x U entries per unit, so that a unit costs each slot about `steps`
// rounds of U loads whatever N; capped by the staging space. With fit_waves, S shrinks
// (in whole rounds of the slots) so that the units fill the last wave of resident warps:
// units of equal size finish together, and 1.37 waves of them (soc-Slashdot0902 at N =
// 32: 722 blocks, 4 per SM) take as long as 2 full waves of units 0.69 times as large.
int unit_entries(const SpmmProblem& p, Split sp) {
  const int v = vector_aligned(p, full_vector(p)) && p.type != TypeId::boolean ? full_vector(p) : 1;
  const int slots = 32 / lanes_for(p.n, v, sp.max_lanes);
  const int round = slots * NnzSplitPolicy::unroll;
  const int S = std::min(sp.steps * round, NnzSplitPolicy::max_unit_entries);
  if (!sp.fit_waves) return S;
  using P = NnzSplitPolicy;
  const double resident = static_cast<double>(gpu_traits(p.device).sm_count) * P::resident_warps_per_sm;
  const double waves = static_cast<double>(plan_for(*p.matrix, S)->unit_count) / resident;
  const double full = std::ceil(waves);
  if (waves > P::max_fitted_waves || full - waves < P::min_idle_share * full) return S;
  // units ~ entries / S: scale S by waves / full, in whole rounds, at least 2 rounds
  const int fitted = static_cast<int>(S * waves / full) / round * round;
  return std::max(fitted, 2 * round);
}

// A finished row (or the sum of a piece) of the unit: to C, or to the piece's workspace row.
template <class Ops, int V, bool RowMajor>
__device__ __forceinline__ void emit(const Operands<typename Ops::Stored, RowMajor>& op, const Ops& ops, const Unit& u,
                                     int x, Index j, typename Ops::T* __restrict__ partial,
                                     typename Ops::T (&acc)[V]) {
  if (u.piece < 0) write_row(op, ops, u.row_beg + x, j, false, acc);
  else store_vec<typename Ops::T, V>(partial + static_cast<Index>(u.piece) * op.n + j, acc);
}

// The stretch walked row by row: each row's share of the stretch is its own loop with U
// loads in flight and no row-boundary test per entry (the entry-by-entry walk tests every
// entry and keeps the row switch, with its write, inside the unrolled body); a row's
// remainder leaves up to U - 1 load slots idle, which the per-entry walk fills from the
// next row. Fewer instructions per entry, so it pays where each entry costs many loads
// (large N: on the H100 run of 2026-11-25 3-12% faster than the per-entry walk on
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
#pragma unroll
            for (int q = 0; q < U; ++q) {
              const int e = e0 + q;
              aa[q] = T(1);
              if (e < ee) {
                if constexpr (Ops::reads_a) aa[q] = sv[e];
                if (active) load_vec<Stored, V>(op.b_at(sc[e], j), b[q]);
              }
            }
            if (active) {
#pragma unroll
              for (int q = 0; q < U; ++q)
                if (e0 + q < ee) {
                  T bq[V];
                  widen_vec(b[q], bq);
#pragma unroll
                  for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], ops.mul(aa[q], bq[v]));
                }
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
#pragma unroll
      for (int q = 0; q < U; ++q) {
        const int e = e0 + q;
        aa[q] = T(1);
        if (e < hi) {
          if constexpr (Ops::reads_a) aa[q] = sv[e];
          if (active) load_vec<Stored, V>(op.b_at(sc[e], j), b[q]);
        }
      }
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
          if (active) {
            T bq[V];
            widen_vec(b[q], bq);
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], ops.mul(aa[q], bq[v]));
          }
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
    // With counters, the last piece of a cut row to finish this tile folds the row's
    // pieces in order (fence, then count: the other pieces' partial rows are visible to
    // whichever warp counts last) and resets the counter for the next call.
    if (counters && u.piece >= 0) {
      __threadfence();
      __syncwarp();
      unsigned arrived = 0;
      unsigned* count = counters + static_cast<Index>(u.cut) * tiles + tile;
      if (lane == 0) arrived = atomicAdd(count, 1u);
      arrived = __shfl_sync(0xffffffffu, arrived, 0);
      const CutRow r = cut_rows[u.cut];
      if (arrived == static_cast<unsigned>(r.pieces - 1)) {
        __threadfence();
        if (slot == 0 && active) {
          const T* q = partial + static_cast<Index>(r.first_piece) * op.n + j;
#pragma unroll
          for (int v = 0; v < V; ++v) acc[v] = load_shared_l2(q + v);
          for (int k = 1; k < r.pieces; ++k)
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] = ops.add(acc[v], load_shared_l2(q + static_cast<Index>(k) * op.n + v));
          write_row(op, ops, r.row, j, false, acc);
        }
        if (lane == 0) *count = 0;
      }
    }
    __syncwarp();  // s_head is written again for the next tile
  }
}

template <class Ops, int V, bool RowMajor, bool RowWise>
void launch(const SpmmProblem& p, Ops ops, Split sp, void* workspace, cudaStream_t stream) {
  using T = typename Ops::T;
  const auto plan = plan_for(*p.matrix, unit_entries(p, sp));
  if (plan->unit_count == 0) return;
  const int log_w = log2_of(lanes_for(p.n, V, sp.max_lanes));
  const Index per_block = NnzSplitPolicy::block_threads / 32;
  const Index tile_width = static_cast<Index>(V) << log_w;
  const Index tiles = (p.n + tile_width - 1) / tile_width;
  const dim3 grid(grid_limit((plan->unit_count + per_block - 1) / per_block),
                  static_cast<unsigned>(tiles < 65535 ? tiles : 65535));
  const auto op = operands<typename Ops::Stored, RowMajor>(p);
  auto* partial = static_cast<T*>(workspace);  // compute type
  unsigned* counters = nullptr;
  std::shared_ptr<const FoldCounters> keep;
  if (sp.fused_fold && plan->cut_count > 0) {
    keep = counters_for(*p.matrix, unit_entries(p, sp), plan->cut_count, tiles);
    counters = keep->counts.as<unsigned>();
  }
  nnz_split_kernel<Ops, V, RowMajor, RowWise><<<grid, NnzSplitPolicy::block_threads, 0, stream>>>(
      op, ops, log_w, plan->units.as<Unit>(), plan->unit_count, partial, plan->cut_rows.as<CutRow>(), counters);
  GEBLAS_CUDA_CHECK_LAUNCH();
  if (!counters) launch_fold(op, ops, plan->cut_rows.as<CutRow>(), plan->cut_count, partial, stream);
}

bool can_implement(const SpmmProblem& p, std::string* why) {
  if (!takes_16bit(p, Takes16::fast_vector, "nnz_split", why)) return false;
  if (!p.matrix && p.m > 0 && p.n > 0) {
    if (why) *why = "it needs the matrix for its cached work list";
    return false;
  }
  return true;
}

template <int Steps, int MaxLanes, bool Fused, bool RowWise = false, bool FitWaves = false>
std::size_t workspace_bytes(const SpmmProblem& p) {
  if (p.m == 0 || p.n == 0 || p.nnz == 0) return 0;
  const auto plan = plan_for(*p.matrix, unit_entries(p, {Steps, MaxLanes, Fused, FitWaves}));
  return static_cast<std::size_t>(plan->piece_count) * static_cast<std::size_t>(p.n) * p.compute_bytes();
}

template <int Steps, int MaxLanes, bool Fused, bool RowWise = false, bool FitWaves = false>
void run(const SpmmProblem& p, void* workspace, cudaStream_t stream) {
  constexpr Split sp{Steps, MaxLanes, Fused, FitWaves};
  if (p.m == 0 || p.n == 0) return;
  with_ops<Takes16::fast_vector>(p, [&]<class Ops, bool RowMajor>(Ops ops) {
    constexpr int full = 16 / sizeof(typename Ops::Stored);
    if constexpr (is_16bit_stored<typename Ops::Stored>) {
      launch<Ops, full, true, RowWise>(p, ops, sp, workspace, stream);  // can_implement: vector-aligned only
    } else if constexpr (RowMajor && full > 1) {
      if (vector_aligned(p, full)) return launch<Ops, full, true, RowWise>(p, ops, sp, workspace, stream);
      return launch<Ops, 1, true, RowWise>(p, ops, sp, workspace, stream);
    } else {
      launch<Ops, 1, RowMajor, RowWise>(p, ops, sp, workspace, stream);
    }
  });
}

}  // namespace

// Five shapes of the same kernel (the shape is a property of the cached work list and of
// the launch only, so they cost no compile time): 4 rounds of U loads per slot and unit
// with a second kernel folding pieces (`nnz_split`); the same with pieces folded inside
// the kernel by the last piece to finish (`nnz_split_fused`: one launch less); 16 rounds
// (`nnz_split_long`: fewer, longer units; the staging cap of 256 entries bounds every
// shape); 4 rounds with slots of at most 8 lanes (`nnz_split_line`: 128-byte column
// tiles, one line of B per entry and slot, N / 32 tiles for float, so that more rows of
// B fit in L1), and the same with 16 rounds (`nnz_split_line_long`). The last three fold
// inside the kernel. A sixth, `nnz_split_rows_long`, is nnz_split_long over the row-by-row
// walk (the kernel's RowWise option, a second set of kernels); a seventh,
// `nnz_split_long_waves`, is nnz_split_long with its unit size fitted to the GPU's
// resident warps (unit_entries). All are timed by
// bench_spmm --variants=1 and forced by the tests; which ones the dispatcher picks, and
// on which runs that rests, is in cuda/spmm/policy/dispatch_policy.cpp.
const SpmmVariant& nnz_split_variant() {
  static const SpmmVariant v{"nnz_split", "equal entries per warp: runs of short rows or pieces of long ones, 4 rounds",
                             can_implement, workspace_bytes<4, 32, false>, run<4, 32, false>};
  return v;
}

const SpmmVariant& nnz_split_fused_variant() {
  static const SpmmVariant v{"nnz_split_fused", "nnz_split with pieces folded inside the kernel (one launch)",
                             can_implement, workspace_bytes<4, 32, true>, run<4, 32, true>};
  return v;
}

const SpmmVariant& nnz_split_long_variant() {
  static const SpmmVariant v{"nnz_split_long", "nnz_split with 16 rounds per unit, pieces folded inside the kernel",
                             can_implement, workspace_bytes<16, 32, true>, run<16, 32, true>};
  return v;
}

const SpmmVariant& nnz_split_line_variant() {
  static const SpmmVariant v{"nnz_split_line",
                             "nnz_split with 128-byte column tiles (one line of B per entry and slot), folded inside",
                             can_implement, workspace_bytes<4, 8, true>, run<4, 8, true>};
  return v;
}

const SpmmVariant& nnz_split_rows_long_variant() {
  static const SpmmVariant v{"nnz_split_rows_long", "nnz_split_long with each slot's stretch walked row by row",
                             can_implement, workspace_bytes<16, 32, true>, run<16, 32, true, true>};
  return v;
}

const SpmmVariant& nnz_split_long_waves_variant() {
  static const SpmmVariant v{"nnz_split_long_waves", "nnz_split_long with units sized to fill the last wave of warps",
                             can_implement, workspace_bytes<16, 32, true, false, true>,
                             run<16, 32, true, false, true>};
  return v;
}

const SpmmVariant& nnz_split_line_long_variant() {
  static const SpmmVariant v{"nnz_split_line_long", "nnz_split_line with 16 rounds per unit", can_implement,
                             workspace_bytes<16, 8, true>, run<16, 8, true>};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
