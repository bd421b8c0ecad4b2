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
#include "cuda/spmm/policy/dispatch_policy.hpp"
#include "cuda/spmm/nnz_split.cuh"
#include "cuda/spmm/variants.hpp"

namespace geblas::detail::cuda::spmm {
namespace {

using namespace nnz;  // the kernel and its types (nnz_split_kernel.cuh)


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
// (S, tiles), since the cut rows depend on S and the tiles on N, for the calls on geblas's
// own stream (which orders them); a call on a caller's stream takes zeroed counters of
// its own, since two streams' kernels counting in one array would fold too early.
struct FoldCounters {
  mutable RawBuffer counts;  // written by the kernels, never reallocated
};

FoldCounters zeroed_counters(const SparseStorage& A, Index cut_count, Index tiles) {
  FoldCounters f;
  const std::size_t bytes = static_cast<std::size_t>(cut_count * tiles) * sizeof(unsigned);
  f.counts = RawBuffer(bytes, A.device);
  if (bytes) zero_bytes(f.counts.data(), A.device, bytes);
  return f;
}

std::shared_ptr<const FoldCounters> counters_for(const SparseStorage& A, int S, Index cut_count, Index tiles) {
  if (!on_own_stream(A.device.ordinal()))
    return std::make_shared<const FoldCounters>(zeroed_counters(A, cut_count, tiles));
  return derived<FoldCounters>(A, "spmm_nnz_count:" + std::to_string(S) + ":" + std::to_string(tiles),
                               [&] { return zeroed_counters(A, cut_count, tiles); });
}

// Lanes per entry slot: as row_split (the narrowest cover of N), at most `max_lanes`.
// Fewer lanes than N needs make column tiles narrower than N (more tiles, each slot
// reading less of each row of B, so more rows of B fit in L1 at a time).
int lanes_for(Index n, int v, int max_lanes) { return std::min(tile_lanes(n, v), max_lanes); }

// S = steps x slots x U entries per unit, so that a unit costs each slot about `steps`
// rounds of U loads whatever N; capped by the staging space. With fit_waves, S shrinks
// (in whole rounds of the slots) so that the units fill the last wave of resident warps:
// units of equal size finish together, and 1.37 waves of them (soc-Slashdot0902 at N =
// 32: 722 blocks, 4 per SM) take as long as 2 full waves of units 0.69 times as large.
int unit_entries(const SpmmProblem& p, const Shape& sp) {
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

// The work list, fold counters and grid of a launch with V values per lane (shared by the
// built-in launches and run-time semirings, nnz_split.cuh).
NnzSplitLaunch prepare(const SpmmProblem& p, const Shape& sp, int v) {
  NnzSplitLaunch l;
  const int S = unit_entries(p, sp);
  const auto plan = plan_for(*p.matrix, S);
  l.unit_count = plan->unit_count;
  l.cut_count = plan->cut_count;
  l.piece_count = plan->piece_count;
  l.units = plan->units.data();
  l.cut_rows = plan->cut_rows.data();
  l.log_w = log2_of(lanes_for(p.n, v, sp.max_lanes));
  const LaunchShape g = tile_grid(plan->unit_count, NnzSplitPolicy::block_threads / 32, p.n, v, l.log_w);
  l.grid_x = g.grid_x;
  l.grid_y = g.grid_y;
  if (sp.fused_fold && plan->cut_count > 0) {
    // a counter per cut row and column tile, all tiles (the kernel loops past grid y)
    auto counters = counters_for(*p.matrix, S, plan->cut_count, tile_count(p.n, v, l.log_w));
    l.counters = counters->counts.as<unsigned>();
    l.keep = counters;
  }
  l.plan = plan;
  return l;
}

// A refusal names the family, which every shape shares.
bool can_implement(const SpmmVariant&, const SpmmProblem& p, std::string* why) {
  if (!takes_16bit(p, Takes16::fast_vector, "nnz_split", why)) return false;
  if (!p.matrix && p.m > 0 && p.n > 0) {
    if (why) *why = "it needs the matrix for its cached work list";
    return false;
  }
  return true;
}

std::size_t workspace_bytes(const SpmmVariant& v, const SpmmProblem& p) {
  if (p.m == 0 || p.n == 0 || p.nnz == 0) return 0;
  const auto plan = plan_for(*p.matrix, unit_entries(p, v.shape));
  return static_cast<std::size_t>(plan->piece_count) * static_cast<std::size_t>(p.n) * p.compute_bytes();
}

// The shapes are properties of the cached work list and of the launch only, so they cost
// no compile time; row_wise is the kernel's RowWise walk, a second set of kernels.
template <bool RowWise>
void run_walk(const SpmmVariant& v, const SpmmProblem& p, void* workspace, cudaStream_t stream) {
  with_vector_ops<Takes16::fast_vector>(p, [&]<class Ops, int V, bool RowMajor>(Ops ops) {
    const auto op = operands<typename Ops::Stored, RowMajor>(p);
    launch_nnz_split(v, p, V,
                     built_kernels(op, ops, nnz_split_kernel<Ops, V, RowMajor, RowWise>, fold_pieces<Ops, RowMajor, CutRow>),
                     workspace, stream);
  });
}

void run(const SpmmVariant& v, const SpmmProblem& p, void* workspace, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  if (v.shape.row_wise) run_walk<true>(v, p, workspace, stream);
  else run_walk<false>(v, p, workspace, stream);
}

}  // namespace

NnzSplitLaunch nnz_split_prepare(const SpmmProblem& p, const Shape& shape, int v) { return prepare(p, shape, v); }

const FamilyOps nnz_split_family{can_implement, workspace_bytes, run};

}  // namespace geblas::detail::cuda::spmm
