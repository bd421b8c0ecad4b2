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
#include "cuda/spmm/piece_fold.cuh"
#include "cuda/spmm/warp_row.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

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

// The work list for piece length P, on A's device.
struct PiecesPlan {
  RawBuffer units, cut_rows;
  Index unit_count = 0, cut_count = 0, piece_count = 0;
};

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
std::shared_ptr<const PiecesPlan> plan_for(const SparseStorage& A, Index P) {
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

template <bool Long>
Index piece_length(const SpmmProblem& p) {
  const int v = vector_aligned(p, full_vector(p)) && p.type != TypeId::boolean ? full_vector(p) : 1;
  const int slots = 32 / slot_lanes(p.n, v);
  const Index steps = static_cast<Index>(RowPiecesPolicy::steps_per_piece) * slots * RowPiecesPolicy::unroll;
  return Long && steps < RowPiecesPolicy::min_long_piece ? Index{RowPiecesPolicy::min_long_piece} : steps;
}

template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(RowPiecesPolicy::block_threads)
    row_pieces_kernel(Operands<typename Ops::Stored, RowMajor> op, Ops ops, int log_w, const Unit* __restrict__ units,
                      Index unit_count, typename Ops::T* __restrict__ partial) {
  using T = typename Ops::T;
  const Index w = static_cast<Index>(blockIdx.x) * (RowPiecesPolicy::block_threads / 32) + (threadIdx.x >> 5);
  if (w >= unit_count) return;
  const int lane = threadIdx.x & 31;
  const Unit u = units[w];
  const Index tile_width = static_cast<Index>(V) << log_w;
  for (Index tile = blockIdx.y; tile * tile_width < op.n; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(lane & ((1 << log_w) - 1)) * V;
    const bool active = j < op.n;
    T acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = ops.identity();
    warp_row<RowPiecesPolicy::unroll>(op, ops, u.beg, u.end, j, active, log_w, acc);
    if (!active || (lane >> log_w) != 0) continue;
    if (u.piece < 0) write_row(op, ops, u.row, j, u.beg == u.end, acc);
    else store_vec<T, V>(partial + static_cast<Index>(u.piece) * op.n + j, acc);
  }
}

template <class Ops, int V, bool RowMajor>
void launch(const SpmmProblem& p, Ops ops, Index piece, void* workspace, cudaStream_t stream) {
  using T = typename Ops::T;
  const auto plan = plan_for(*p.matrix, piece);
  const int log_w = log2_of(slot_lanes(p.n, V));
  const Index per_block = RowPiecesPolicy::block_threads / 32;
  const Index tile_width = static_cast<Index>(V) << log_w;
  const Index tiles = (p.n + tile_width - 1) / tile_width;
  const dim3 grid(grid_limit((plan->unit_count + per_block - 1) / per_block),
                  static_cast<unsigned>(tiles < 65535 ? tiles : 65535));
  const auto op = operands<typename Ops::Stored, RowMajor>(p);
  auto* partial = static_cast<T*>(workspace);  // compute type
  row_pieces_kernel<Ops, V, RowMajor><<<grid, RowPiecesPolicy::block_threads, 0, stream>>>(
      op, ops, log_w, plan->units.as<Unit>(), plan->unit_count, partial);
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
  const auto plan = plan_for(*p.matrix, piece_length<Long>(p));
  return static_cast<std::size_t>(plan->piece_count) * static_cast<std::size_t>(p.n) * p.compute_bytes();
}

// The piece length is a property of the work list only: both variants run the same kernels.
template <bool Long>
void run(const SpmmProblem& p, void* workspace, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  const Index piece = piece_length<Long>(p);
  with_ops<Takes16::all>(p, [&]<class Ops, bool RowMajor>(Ops ops) {
    constexpr int full = 16 / sizeof(typename Ops::Stored);
    if constexpr (RowMajor && full > 1) {
      if (vector_aligned(p, full)) return launch<Ops, full, true>(p, ops, piece, workspace, stream);
      return launch<Ops, 1, true>(p, ops, piece, workspace, stream);
    } else {
      launch<Ops, 1, RowMajor>(p, ops, piece, workspace, stream);
    }
  });
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
