// row_pieces: row_split's warp-per-row kernel over a work list in which every row longer
// than P entries is cut into pieces, so that a power-law graph's hub rows are spread over
// many warps instead of serialising one. A row of 2-8 pieces is packed into one block with
// rows of the same width, whose warps add its pieces in shared memory and write C. A
// longer row (a hub) fills blocks of its own, each writing the sum of its 8 pieces to a
// partial row of the workspace, and a second kernel folds each hub's partial rows with the
// semiring's add (no atomics, so every semiring works; piece_fold.cuh) and writes C. The
// work list depends only on A and P, so it is built once on A's device and kept in A's
// derived cache. P scales with the number of entries a warp consumes per step (entry
// slots x unroll), so the longest piece costs a fixed number of dependent steps for every
// N. Where a warp has several entry slots (N <= 64), the shortest rows (at most
// slot_row_max entries) take one slot each. Takes half and bfloat16: sums stay in float (the compute type) until C is
// written.
#include <cub/device/device_radix_sort.cuh>

#include <cstdint>
#include <vector>

#include "core/derived_cache.hpp"
#include "cuda/check.cuh"
#include "cuda/ops/common.cuh"
#include "cuda/spmm/row_pieces.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

constexpr Index block_units = RowPiecesPolicy::block_pieces;

// The runs of the work list (row_pieces_kernel.cuh), in list order; a run's value is the
// number of units a packed row of it takes.
constexpr int blocked_run = 0, loose_run = 1;
constexpr int list_order[] = {blocked_run, 8, 4, 2, loose_run};

// The run of a row of `len` entries and its units there: a row of at most P entries is one
// loose unit; a row of k = ceil(len / P) <= 8 pieces takes 2, 4 or 8 (k rounded up) in a
// packed block; a longer one 8 x ceil(k / 8) in blocks of its own. A cut row's pieces are
// of equal length (len / units, rounded up), not P: its warps finish together.
struct RowCut {
  int run;
  Index units;
};
__device__ inline RowCut row_cut(Index len, Index P) {
  const Index k = len > P ? (len + P - 1) / P : 1;
  if (k == 1) return {loose_run, 1};
  if (k <= block_units) {
    const int w = k <= 2 ? 2 : k <= 4 ? 4 : 8;
    return {w, w};
  }
  return {blocked_run, (k + block_units - 1) / block_units * block_units};
}

// units_at[t]: the units of row order[t] if it belongs to `run`, else 0 (a prefix sum
// makes them the rows' places in the run); for the blocked run also cut_at[t], whether
// the row is cut there.
__global__ void pieces_mark(Index m, const Index* ro, const Index* order, Index P, int run, Index* units_at,
                            Index* cut_at) {
  for (Index t = Index(blockIdx.x) * blockDim.x + threadIdx.x; t < m; t += Index(gridDim.x) * blockDim.x) {
    const Index i = order[t];
    const RowCut c = row_cut(ro[i + 1] - ro[i], P);
    units_at[t] = c.run == run ? c.units : 0;
    if (cut_at) cut_at[t] = c.run == run;
  }
}

// Writes the units of the rows of `run` from `base` on (units_at: their offsets in the run,
// `total` units in all), padding a packed run's last block; a blocked row's partial rows
// are numbered by its offset / 8 (the blocked run starts the list).
__global__ void pieces_fill(Index m, const Index* ro, const Index* order, Index P, int run, Index base, Index total,
                            const Index* units_at, const Index* cut_at, Unit* units, CutRow* cut) {
  for (Index t = Index(blockIdx.x) * blockDim.x + threadIdx.x; t < m; t += Index(gridDim.x) * blockDim.x) {
    const Index i = order[t];
    const Index b = ro[i], e = ro[i + 1];
    const RowCut c = row_cut(e - b, P);
    if (c.run != run) continue;
    const int row = static_cast<int>(i);
    Unit* u = units + base + units_at[t];
    if (run == loose_run) {
      *u = {b, e, row, -1};
      continue;
    }
    const Index len = (e - b + c.units - 1) / c.units;
    const int first = static_cast<int>(units_at[t] / block_units);
    for (Index q = 0; q < c.units; ++q) {
      const Index s = b + q * len < e ? b + q * len : e;
      const int piece = run == blocked_run ? -2 - (first + static_cast<int>(q / block_units))
                                           : (q == 0 ? static_cast<int>(c.units) : 0);
      u[q] = {s, s + len < e ? s + len : e, row, piece};
    }
    if (run == blocked_run) {
      cut[cut_at[t]] = {row, first, static_cast<int>(c.units / block_units)};
    } else if (units_at[t] + c.units == total) {
      for (Index q = total; q % block_units != 0; ++q) units[base + q] = {0, 0, -1, -1};
    }
  }
}

// The rows, longest first; rows of one length keep their order (a stable radix sort).
// Each run of the work list takes its rows in this order, so that the warps of a block
// get units of about the same length: a block holds its place on the SM until its
// slowest warp ends, and in row order a block of loose rows mixed 1 and P entries.
RawBuffer rows_longest_first(Index m, const Index* ro, const ops::Ctx& c) {
  RawBuffer keys = ops::temp<std::uint32_t>(m, c.device), sorted_keys = ops::temp<std::uint32_t>(m, c.device);
  RawBuffer rows = ops::temp<Index>(m, c.device), order = ops::temp<Index>(m, c.device);
  std::uint32_t* k = keys.as<std::uint32_t>();
  Index* r = rows.as<Index>();
  ops::for_each(m, c.stream, [=] __device__(Index i) {
    const Index len = ro[i + 1] - ro[i];
    k[i] = len >= Index{0xffffffff} ? 0u : 0xffffffffu - static_cast<std::uint32_t>(len);
    r[i] = i;
  });
  std::size_t bytes = 0;
  GEBLAS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, sorted_keys.as<std::uint32_t>(), r,
                                                    order.as<Index>(), m, 0, 32, c.stream));
  RawBuffer tmp(bytes, c.device);
  GEBLAS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, k, sorted_keys.as<std::uint32_t>(), r,
                                                    order.as<Index>(), m, 0, 32, c.stream));
  return order;
}

}  // namespace

// The work list, built run by run (a prefix sum each; only the totals come back) into a
// buffer of the largest size it can take: every row takes at most 1 + 2 len / P units
// (a packed row's k pieces become fewer than 2k), the packed runs add up to 7 padding units each.
std::shared_ptr<const PiecesPlan> row_pieces_plan(const SparseStorage& A, Index P) {
  return derived<PiecesPlan>(A, "spmm_pieces:" + std::to_string(P), [&] {
    ops::Ctx c(A.device);
    const Index m = A.nrows;
    const Index* ro = A.row_offsets.as<Index>();
    RawBuffer units_at = ops::temp<Index>(m + 1, c.device), cut_at = ops::temp<Index>(m + 1, c.device);
    const RawBuffer order = m > 0 ? rows_longest_first(m, ro, c) : RawBuffer();
    PiecesPlan plan;
    const Index bound = m + 2 * (A.nvals / P + 1) + 3 * block_units;
    plan.units = RawBuffer(static_cast<std::size_t>(bound) * sizeof(Unit), A.device);
    Index base = 0;
    for (const int run : list_order) {
      if (m > 0) {
        pieces_mark<<<ops::blocks_for(m), ops::LaunchPolicy::threads, 0, c.stream>>>(
            m, ro, order.as<Index>(), P, run, units_at.as<Index>(), run == blocked_run ? cut_at.as<Index>() : nullptr);
        GEBLAS_CUDA_CHECK_LAUNCH();
      }
      const Index total = ops::counts_to_offsets(units_at.as<Index>(), m, c.stream);
      if (run == blocked_run) {
        plan.cut_count = ops::counts_to_offsets(cut_at.as<Index>(), m, c.stream);
        plan.piece_count = total / block_units;
        if (plan.cut_count > 0)
          plan.cut_rows = RawBuffer(static_cast<std::size_t>(plan.cut_count) * sizeof(CutRow), A.device);
      }
      if (base + total + block_units > bound)  // cannot happen (the bound above); never write past the buffer
        throw Error(Info::panic, "row_pieces: the work list outgrew its bound");
      if (total > 0) {
        pieces_fill<<<ops::blocks_for(m), ops::LaunchPolicy::threads, 0, c.stream>>>(
            m, ro, order.as<Index>(), P, run, base, total, units_at.as<Index>(), cut_at.as<Index>(),
            plan.units.as<Unit>(), plan.cut_rows.as<CutRow>());
        GEBLAS_CUDA_CHECK_LAUNCH();
      }
      base += run == loose_run ? total : (total + block_units - 1) / block_units * block_units;
      if (run == 2) plan.synced_units = base;
    }
    plan.unit_count = base;
    // the short rows are loose (P >= slot_row_max) and, longest first, the list's tail
    if (m > 0) {
      Index* is_short = units_at.as<Index>();
      ops::for_each(m, c.stream, [=] __device__(Index i) {
        is_short[i] = ro[i + 1] - ro[i] <= RowPiecesPolicy::slot_row_max ? 1 : 0;
      });
    }
    plan.short_rows = ops::counts_to_offsets(units_at.as<Index>(), m, c.stream);
    return plan;
  });
}

int row_pieces_vector(const SpmmProblem& p, bool wide) {
  const int full = full_vector(p);
  if (p.type == TypeId::boolean || !vector_aligned(p, full)) return 1;
  const bool fast =
      p.semiring == SemiringId::plus_times || p.semiring == SemiringId::max_times || p.semiring == SemiringId::min_plus;
  return wide && p.type == TypeId::float32 && fast && p.n % (2 * full) == 0 ? 2 * full : full;
}

Index row_pieces_piece_length(const SpmmProblem& p, bool long_pieces, int v) {
  const int slots = 32 / tile_lanes(p.n, v);
  const Index steps = static_cast<Index>(RowPiecesPolicy::steps_per_piece) * slots * RowPiecesPolicy::unroll;
  return long_pieces && steps < RowPiecesPolicy::min_long_piece ? Index{RowPiecesPolicy::min_long_piece} : steps;
}

namespace {

template <class Ops, int V, bool RowMajor>
void launch(const SpmmProblem& p, Ops ops, Index piece, void* workspace, cudaStream_t stream) {
  const auto op = operands<typename Ops::Stored, RowMajor>(p);
  launch_row_pieces(
      p, piece, V,
      built_kernels(op, ops, row_pieces_kernel<Ops, V, RowMajor>, fold_pieces<Ops, RowMajor, CutRow>), workspace,
      stream);
}

// A refusal names the family, which every shape shares.
bool can_implement(const SpmmVariant&, const SpmmProblem& p, std::string* why) {
  if (!takes_16bit(p, Takes16::all, "row_pieces", why)) return false;
  if (!p.matrix && p.m > 0 && p.n > 0) {
    if (why) *why = "it needs the matrix for its cached work list";
    return false;
  }
  return true;
}

template <class Ops>
constexpr bool is_static_ops = false;
template <class S, class Stored>
constexpr bool is_static_ops<StaticOps<S, Stored>> = true;

std::size_t workspace_bytes(const SpmmVariant& v, const SpmmProblem& p) {
  if (p.m == 0 || p.n == 0 || p.nnz == 0) return 0;
  const auto plan = row_pieces_plan(*p.matrix, row_pieces_piece_length(p, v.shape.long_pieces, row_pieces_piece_vector(v, p)));
  return static_cast<std::size_t>(plan->piece_count) * static_cast<std::size_t>(p.n) * p.compute_bytes();
}

// The piece length is a property of the work list only: the variants run the same kernels,
// row_pieces_wide with two 16-byte vectors per lane where row_pieces_vector allows it.
void run(const SpmmVariant& variant, const SpmmProblem& p, void* workspace, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0) return;
  const int v = row_pieces_vector(p, variant.shape.wide);
  const Index piece = row_pieces_piece_length(p, variant.shape.long_pieces, v);
  if (variant.shape.wide && v == 2 * full_vector(p)) {
    // float32, a built-in semiring, row-major and aligned: with_ops gives StaticOps
    with_ops<Takes16::all>(p, [&]<class Ops, bool RowMajor>(Ops ops) {
      if constexpr (RowMajor && is_static_ops<Ops> && std::is_same_v<typename Ops::Stored, float>)
        launch<Ops, 8, true>(p, ops, piece, workspace, stream);
      else throw Error(Info::panic, "row_pieces_wide: no wide kernel for this problem");
    });
    return;
  }
  with_vector_ops<Takes16::all>(
      p, [&]<class Ops, int V, bool RowMajor>(Ops ops) { launch<Ops, V, RowMajor>(p, ops, piece, workspace, stream); });
}

}  // namespace

const FamilyOps row_pieces_family{can_implement, workspace_bytes, run};

}  // namespace geblas::detail::cuda::spmm
