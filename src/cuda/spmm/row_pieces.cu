// row_pieces: row_split's warp-per-row kernel over a work list in which every row longer
// than P entries is cut into pieces of P entries, so that a power-law graph's hub rows
// are spread over many warps instead of serialising one. Pieces write partial rows to
// the workspace; a second kernel folds each cut row's pieces with the semiring's add
// (no atomics, so every semiring works; piece_fold.cuh) and writes C. The work list
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

// One pass per row: its number of units (1, or its pieces when it is cut), whether it
// is cut, and its pieces; then, after the three prefix sums, each row writes its units.
__global__ void pieces_count(Index m, const Index* ro, Index P, Index* units, Index* cuts, Index* pieces) {
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += Index(gridDim.x) * blockDim.x) {
    const Index len = ro[i + 1] - ro[i];
    const Index k = len > P ? (len + P - 1) / P : 0;
    units[i] = k > 0 ? k : 1;
    cuts[i] = k > 0;
    pieces[i] = k;
  }
}

__global__ void pieces_fill(Index m, const Index* ro, Index P, const Index* unit_at, const Index* cut_at,
                            const Index* piece_at, Unit* units, CutRow* cut) {
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += Index(gridDim.x) * blockDim.x) {
    const Index b = ro[i], e = ro[i + 1];
    if (e - b <= P) {
      units[unit_at[i]] = {b, e, static_cast<int>(i), -1};
      continue;
    }
    const int first = static_cast<int>(piece_at[i]);
    cut[cut_at[i]] = {static_cast<int>(i), first, static_cast<int>((e - b + P - 1) / P)};
    Index u = unit_at[i];
    int q = first;
    for (Index s = b; s < e; s += P) units[u++] = {s, s + P < e ? s + P : e, static_cast<int>(i), q++};
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
    RawBuffer unit_at = ops::temp<Index>(m + 1, c.device), cut_at = ops::temp<Index>(m + 1, c.device),
              piece_at = ops::temp<Index>(m + 1, c.device);
    PiecesPlan plan;
    if (m > 0) {
      pieces_count<<<ops::blocks_for(m), ops::LaunchPolicy::threads, 0, c.stream>>>(
          m, ro, P, unit_at.as<Index>(), cut_at.as<Index>(), piece_at.as<Index>());
      GEBLAS_CUDA_CHECK_LAUNCH();
    }
    plan.unit_count = ops::counts_to_offsets(unit_at.as<Index>(), m, c.stream);
    plan.cut_count = ops::counts_to_offsets(cut_at.as<Index>(), m, c.stream);
    plan.piece_count = ops::counts_to_offsets(piece_at.as<Index>(), m, c.stream);
    plan.units = RawBuffer(static_cast<std::size_t>(plan.unit_count) * sizeof(Unit), A.device);
    if (plan.cut_count > 0) plan.cut_rows = RawBuffer(static_cast<std::size_t>(plan.cut_count) * sizeof(CutRow), A.device);
    if (m > 0) {
      pieces_fill<<<ops::blocks_for(m), ops::LaunchPolicy::threads, 0, c.stream>>>(
          m, ro, P, unit_at.as<Index>(), cut_at.as<Index>(), piece_at.as<Index>(), plan.units.as<Unit>(),
          plan.cut_rows.as<CutRow>());
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

template <class Ops, int V, bool RowMajor>
void launch(const SpmmProblem& p, Ops ops, Index piece, void* workspace, cudaStream_t stream) {
  using T = typename Ops::T;
  const auto plan = row_pieces_plan(*p.matrix, piece);
  const LaunchShape s = row_pieces_shape(plan->unit_count, p.n, V);
  const auto op = operands<typename Ops::Stored, RowMajor>(p);
  auto* partial = static_cast<T*>(workspace);  // compute type
  row_pieces_kernel<Ops, V, RowMajor><<<dim3(s.grid_x, s.grid_y), RowPiecesPolicy::block_threads, 0, stream>>>(
      op, ops, s.log_w, plan->units.as<Unit>(), plan->unit_count, partial);
  GEBLAS_CUDA_CHECK_LAUNCH();
  launch_fold(op, ops, plan->cut_rows.as<CutRow>(), plan->cut_count, partial, stream);
}

bool can_implement(const SpmmProblem& p, std::string* why) {
  if (!takes_16bit(p, Takes16::all, "row_pieces", why)) return false;
  if (!p.matrix && p.m > 0 && p.n > 0) {
    if (why) *why = "it needs the matrix for its cached work list";
    return false;
  }
  return true;
}

template <bool Long>
std::size_t workspace_bytes(const SpmmProblem& p) {
  if (p.m == 0 || p.n == 0 || p.nnz == 0) return 0;
  const auto plan = row_pieces_plan(*p.matrix, row_pieces_piece_length(p, Long));
  return static_cast<std::size_t>(plan->piece_count) * static_cast<std::size_t>(p.n) * p.compute_bytes();
}

// The piece length is a property of the work list only: both variants run the same kernels.
template <bool Long>
void run(const SpmmProblem& p, void* workspace, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  const Index piece = row_pieces_piece_length(p, Long);
  with_vector_ops<Takes16::all>(
      p, [&]<class Ops, int V, bool RowMajor>(Ops ops) { launch<Ops, V, RowMajor>(p, ops, piece, workspace, stream); });
}

}  // namespace

const SpmmVariant& row_pieces_variant() {
  static const SpmmVariant v{"row_pieces", "a warp per row, long rows cut into pieces folded by a second kernel",
                             can_implement, workspace_bytes<false>, run<false>};
  return v;
}

const SpmmVariant& row_pieces_long_variant() {
  static const SpmmVariant v{"row_pieces_long", "row_pieces with pieces of at least 128 entries (fewer pieces to fold)",
                             can_implement, workspace_bytes<true>, run<true>};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
