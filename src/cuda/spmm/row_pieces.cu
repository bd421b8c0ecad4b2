// row_pieces: row_split's warp-per-row kernel over a work list in which every row longer
// than P entries is cut into pieces of P entries, so that a power-law graph's hub rows
// are spread over many warps instead of serialising one. Pieces write partial rows to the
// workspace (those of a hub row 8 at a time, added in shared memory first); a second
// kernel folds each cut row's partial rows with the semiring's add (no atomics, so every
// semiring works; piece_fold.cuh) and writes C. The work list
// depends only on A and P, so it is built once on A's device and kept in A's derived
// cache. P scales with the number of entries a warp consumes per step (entry slots x
// unroll), so the longest piece costs a fixed number of dependent steps for every N.
// Takes half and bfloat16: partial rows stay in float (the compute type), so a cut row
// is rounded once, when the fold writes C.
#include <vector>

#include "core/derived_cache.hpp"
#include "cuda/check.cuh"
#include "cuda/ops/common.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/piece_fold.cuh"
#include "cuda/spmm/row_pieces_kernel.cuh"
#include "cuda/spmm/row_pieces_plan.hpp"

namespace geblas::detail::cuda::spmm {
namespace {

constexpr Index block_units = RowPiecesPolicy::block_threads / 32;

// One pass per row: a row of at most P entries is one unit; a cut row of k pieces is k
// units writing k partial rows, or, from min_block_pieces pieces on, ceil(k / 8) blocks of
// 8 units (its pieces, then empty units) writing a partial row each. The blocked rows go
// first in the list, so that each of their blocks starts at a multiple of 8.
__global__ void pieces_count(Index m, const Index* ro, Index P, Index* blocked_units, Index* loose_units, Index* cuts,
                             Index* partials) {
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += Index(gridDim.x) * blockDim.x) {
    const Index len = ro[i + 1] - ro[i];
    const Index k = len > P ? (len + P - 1) / P : 0;
    const bool blocked = k >= RowPiecesPolicy::min_block_pieces;
    const Index blocks = (k + block_units - 1) / block_units;
    blocked_units[i] = blocked ? blocks * block_units : 0;
    loose_units[i] = blocked ? 0 : (k > 0 ? k : 1);
    cuts[i] = k > 0;
    partials[i] = blocked ? blocks : k;
  }
}

__global__ void pieces_fill(Index m, const Index* ro, Index P, Index blocked_total, const Index* blocked_at,
                            const Index* loose_at, const Index* cut_at, const Index* partial_at, Unit* units,
                            CutRow* cut) {
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += Index(gridDim.x) * blockDim.x) {
    const Index b = ro[i], e = ro[i + 1];
    if (e - b <= P) {
      units[blocked_total + loose_at[i]] = {b, e, static_cast<int>(i), -1, -1};
      continue;
    }
    const Index k = (e - b + P - 1) / P;
    const int first = static_cast<int>(partial_at[i]);
    const int c = static_cast<int>(cut_at[i]);
    const auto piece = [&](Index q) { return b + q * P < e ? b + q * P : e; };
    if (k < RowPiecesPolicy::min_block_pieces) {
      cut[c] = {static_cast<int>(i), first, static_cast<int>(k)};
      Unit* u = units + blocked_total + loose_at[i];
      for (Index q = 0; q < k; ++q) {
        const Index s = piece(q);
        u[q] = {s, s + P < e ? s + P : e, static_cast<int>(i), first + static_cast<int>(q), c};
      }
      continue;
    }
    const Index blocks = (k + block_units - 1) / block_units;
    cut[c] = {static_cast<int>(i), first, static_cast<int>(blocks)};
    Unit* u = units + blocked_at[i];
    for (Index q = 0; q < blocks * block_units; ++q) {
      const Index s = piece(q);
      u[q] = {s, s + P < e ? s + P : e, static_cast<int>(i), -2 - (first + static_cast<int>(q / block_units)), c};
    }
  }
}

// The work list for piece length P, built on A's device (three prefix sums; only their
// totals come back) and kept in A's derived cache.
}  // namespace

std::shared_ptr<const PiecesPlan> row_pieces_plan(const SparseStorage& A, Index P) {
  return derived<PiecesPlan>(A, "spmm_pieces:" + std::to_string(P), [&] {
    ops::Ctx c(A.device);
    const Index m = A.nrows;
    const Index* ro = A.row_offsets.as<Index>();
    RawBuffer blocked_at = ops::temp<Index>(m + 1, c.device), loose_at = ops::temp<Index>(m + 1, c.device),
              cut_at = ops::temp<Index>(m + 1, c.device), partial_at = ops::temp<Index>(m + 1, c.device);
    PiecesPlan plan;
    if (m > 0) {
      pieces_count<<<ops::blocks_for(m), ops::LaunchPolicy::threads, 0, c.stream>>>(
          m, ro, P, blocked_at.as<Index>(), loose_at.as<Index>(), cut_at.as<Index>(), partial_at.as<Index>());
      GEBLAS_CUDA_CHECK_LAUNCH();
    }
    const Index blocked_total = ops::counts_to_offsets(blocked_at.as<Index>(), m, c.stream);
    const Index loose_total = ops::counts_to_offsets(loose_at.as<Index>(), m, c.stream);
    plan.cut_count = ops::counts_to_offsets(cut_at.as<Index>(), m, c.stream);
    plan.piece_count = ops::counts_to_offsets(partial_at.as<Index>(), m, c.stream);
    plan.unit_count = blocked_total + loose_total;
    plan.units = RawBuffer(static_cast<std::size_t>(plan.unit_count) * sizeof(Unit), A.device);
    if (plan.cut_count > 0) plan.cut_rows = RawBuffer(static_cast<std::size_t>(plan.cut_count) * sizeof(CutRow), A.device);
    if (m > 0) {
      pieces_fill<<<ops::blocks_for(m), ops::LaunchPolicy::threads, 0, c.stream>>>(
          m, ro, P, blocked_total, blocked_at.as<Index>(), loose_at.as<Index>(), cut_at.as<Index>(),
          partial_at.as<Index>(), plan.units.as<Unit>(), plan.cut_rows.as<CutRow>());
      GEBLAS_CUDA_CHECK_LAUNCH();
    }
    return plan;
  });
}

Index row_pieces_piece_length(const SpmmProblem& p, bool long_pieces) {
  const int v = vector_aligned(p, full_vector(p)) && p.type != TypeId::boolean ? full_vector(p) : 1;
  const int slots = 32 / tile_lanes(p.n, v);
  const Index steps = static_cast<Index>(RowPiecesPolicy::steps_per_piece) * slots * RowPiecesPolicy::unroll;
  return long_pieces && steps < RowPiecesPolicy::min_long_piece ? Index{RowPiecesPolicy::min_long_piece} : steps;
}

namespace {

// The workspace: the partial rows (compute type), then, for the fused fold, one arrival
// counter per cut row and column tile, zeroed on the stream before the kernel.
struct Workspace {
  std::size_t partial_bytes = 0, counter_bytes = 0;
};

Workspace workspace_of(const SpmmProblem& p, const PiecesPlan& plan, bool fused) {
  Workspace w;
  w.partial_bytes = static_cast<std::size_t>(plan.piece_count) * static_cast<std::size_t>(p.n) * p.compute_bytes();
  w.partial_bytes = (w.partial_bytes + 255) / 256 * 256;
  if (fused && plan.cut_count > 0) {
    // as many tiles as the narrowest launch makes (one value per lane: the semirings
    // without a vector path run so whatever the alignment); a wider one uses fewer
    const Index tiles = tile_count(p.n, 1, log2_of(tile_lanes(p.n, 1)));
    w.counter_bytes = static_cast<std::size_t>(plan.cut_count * tiles) * sizeof(unsigned);
  }
  return w;
}

template <class Ops, int V, bool RowMajor>
void launch(const SpmmProblem& p, Ops ops, Index piece, bool fused, void* workspace, cudaStream_t stream) {
  using T = typename Ops::T;
  const auto plan = row_pieces_plan(*p.matrix, piece);
  const LaunchShape s = row_pieces_shape(plan->unit_count, p.n, V);
  const auto op = operands<typename Ops::Stored, RowMajor>(p);
  auto* partial = static_cast<T*>(workspace);  // compute type
  unsigned* counters = nullptr;
  const Workspace w = workspace_of(p, *plan, fused);
  if (w.counter_bytes > 0) {
    counters = reinterpret_cast<unsigned*>(static_cast<char*>(workspace) + w.partial_bytes);
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(counters, 0, w.counter_bytes, stream));
  }
  const auto* cut_rows = plan->cut_rows.as<CutRow>();
  row_pieces_kernel<Ops, V, RowMajor><<<dim3(s.grid_x, s.grid_y), RowPiecesPolicy::block_threads, 0, stream>>>(
      op, ops, s.log_w, plan->units.as<Unit>(), plan->unit_count, partial, cut_rows, counters);
  GEBLAS_CUDA_CHECK_LAUNCH();
  if (!counters) launch_fold(op, ops, cut_rows, plan->cut_count, partial, stream);
}

bool can_implement(const SpmmProblem& p, std::string* why) {
  if (!takes_16bit(p, Takes16::all, "row_pieces", why)) return false;
  if (!p.matrix && p.m > 0 && p.n > 0) {
    if (why) *why = "it needs the matrix for its cached work list";
    return false;
  }
  return true;
}

template <bool Long, bool Fused>
std::size_t workspace_bytes(const SpmmProblem& p) {
  if (p.m == 0 || p.n == 0 || p.nnz == 0) return 0;
  const auto plan = row_pieces_plan(*p.matrix, row_pieces_piece_length(p, Long));
  const Workspace w = workspace_of(p, *plan, Fused);
  return w.partial_bytes + w.counter_bytes;
}

// The piece length is a property of the work list only: the variants run the same kernels.
template <bool Long, bool Fused>
void run(const SpmmProblem& p, void* workspace, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  const Index piece = row_pieces_piece_length(p, Long);
  with_vector_ops<Takes16::all>(p, [&]<class Ops, int V, bool RowMajor>(Ops ops) {
    launch<Ops, V, RowMajor>(p, ops, piece, Fused, workspace, stream);
  });
}

}  // namespace

const SpmmVariant& row_pieces_variant() {
  static const SpmmVariant v{"row_pieces", "a warp per row, long rows cut into pieces folded by a second kernel",
                             can_implement, workspace_bytes<false, false>, run<false, false>};
  return v;
}

const SpmmVariant& row_pieces_long_variant() {
  static const SpmmVariant v{"row_pieces_long", "row_pieces with pieces of at least 128 entries (fewer pieces to fold)",
                             can_implement, workspace_bytes<true, false>, run<true, false>};
  return v;
}

const SpmmVariant& row_pieces_fused_variant() {
  static const SpmmVariant v{"row_pieces_fused",
                             "row_pieces whose cut rows are folded in the main kernel by the last of their pieces",
                             can_implement, workspace_bytes<false, true>, run<false, true>};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
