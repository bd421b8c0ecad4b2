// The CUDA SpMM entry: builds the problem from storage, takes the forced variant or asks
// the dispatcher, checks it can run, hands it a workspace cached with A, and launches on
// the device's stream. Nothing here allocates, copies or synchronises per call once A's
// row statistics and workspace are cached.
#include "cuda/spmm/dispatcher.hpp"

#include <cstdio>
#include <mutex>

#include "core/derived_cache.hpp"
#include "cuda/context.cuh"
#include "cuda/spmm/tc_window.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

struct DispatchPolicy {
  // Measured on the H200 (bench_spmm, fp32 plus_times, every shared graph, N = 32..512;
  // docs/notes/spmm-tuning.md):
  // - rows all at most `short_row` long and N <= `short_row_max_n`: row_group (a group
  //   as wide as N per row, several rows per warp) ran 2.5-3x faster than row_split on
  //   luxembourg_osm (max row 6) and wing (max 4) at N = 32, 1.3-1.6x at N = 64, and lost
  //   from N = 128 on;
  // - a longest row above `long_row`: row_pieces (rows cut into pieces) beat row_split
  //   by 1.5-20x on every power-law graph (hub rows of 171..3546 entries), while for
  //   longest rows of 47..99 entries (zenios, p2p-Gnutella31, bcsstk13/16, citeseer)
  //   row_split was equal or up to 1.4x faster;
  // - otherwise row_split.
  static constexpr Index short_row = 8;
  static constexpr Index short_row_max_n = 64;
  static constexpr Index long_row = 128;
  // The nnz_split family, refit from the H100 final call (bench_spmm, fp32 plus_times,
  // the 17 shared graphs >= 100k entries and uniform-1M/16M, N = 32..512; figures and
  // the per-case table in docs/notes/spmm-tuning.md). Only for A with entries in the
  // measured range [nnz_split_min_entries, nnz_split_max_entries] (106762 .. 16M);
  // outside it the rules above stand.
  // - rows all <= short_row: nnz_split_fused, 1.32-2.25x the best cuSPARSE on
  //   luxembourg_osm and wing at every N (the rules above: 1.06-1.89x);
  // - a longest row > long_row, N <= small_n: nnz_split_long from huge_nnz entries
  //   (soc-Slashdot0902 35.0 us vs 39.6 fused, 52.7 row_pieces; ego-Twitter 69 vs 90),
  //   row_pieces where the mean row is >= dense_mean_row (hub-dense graphs, on which
  //   row_pieces was as fast or faster: facebook_combined, musae-squirrel,
  //   musae-crocodile, ca-AstroPh-lcc), else nnz_split_fused (1.0-1.9x the best
  //   cuSPARSE on the other 7 graphs);
  // - a longest row > long_row, N > small_n: nnz_split_long from many_rows rows
  //   (0.81-1.39x the best cuSPARSE, 0.99-1.81x row_pieces), row_pieces below
  //   (wiki-Vote 7k rows, astro-ph-weighted 17k, facebook_combined 4k, crocodile 12k:
  //   row_pieces 0.87-1.52x nnz_split_long, better on the geomean);
  // - longest row in (short_row, long_row]: nnz_split_fused for a mean row below
  //   sparse_mean_row (p2p-Gnutella31, 74% empty rows: 10.1 us vs 21.5 at N = 32), else
  //   row_split (bcsstk16, mean row 59).
  static constexpr Index nnz_split_min_entries = 100000;
  static constexpr Index nnz_split_max_entries = 16000000;
  static constexpr Index small_n = 32;
  static constexpr Index huge_nnz = 900000;
  static constexpr double dense_mean_row = 20;
  static constexpr Index many_rows = 20000;
  static constexpr double sparse_mean_row = 8;
  // Tensor-core windows (float with allow_tf32; half and bfloat16 plus_times always):
  // the variant the window cost model picks for the type and N (tc_window_forecast; its
  // constants and their sources are in src/core/tensor_cores.cpp), else the rules above.
};


// Device memory kept with A for the variants that need scratch space; grows, never shrinks.
struct WorkspaceSlot {
  struct State {
    std::mutex mutex;
    RawBuffer buffer;
  };
  std::shared_ptr<State> state = std::make_shared<State>();
};

void* workspace_for(const SparseStorage& A, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  auto slot = derived<WorkspaceSlot>(A, "spmm_ws", [] { return WorkspaceSlot{}; });
  WorkspaceSlot::State& st = *slot->state;
  std::lock_guard<std::mutex> lock(st.mutex);
  if (st.buffer.bytes() < bytes) st.buffer = RawBuffer(bytes, A.device);
  return st.buffer.data();
}

// The H200 rules alone (rule 3 of docs/notes/spmm-tuning.md). half and bfloat16 follow
// the same rules as float; where the pick refuses the problem (the nnz_split family
// computes 16-bit values only for plus_times, max_times, min_plus on row-major operands
// with N a multiple of 8), these rules decide: their variants take every 16-bit problem.
// Fitted on fp32 and not refit for 16-bit: the H100 16-bit runs of 2026-11-23
// (bench_spmm --type=float16|bfloat16, docs/notes/spmm-tuning.md) measured the variants
// but a refit of these rules from them has not been made.
const SpmmVariant& h200_rules(const SpmmProblem& p, const RowStats& s, const char*& why) {
  using P = DispatchPolicy;
  if (s.max_row > P::long_row) {
    why = "long rows: cut into pieces";
    return row_pieces_variant();
  }
  if (s.max_row <= P::short_row && p.n <= P::short_row_max_n) {
    why = "short rows, small N: several rows per warp";
    return row_group_variant();
  }
  why = "a warp per row";
  return row_split_variant();
}

}  // namespace

const SpmmVariant& choose_variant(const SpmmProblem& p, std::string& reason) {
  char buf[160];
  if (p.m == 0 || p.n == 0 || p.nnz == 0) {
    std::snprintf(buf, sizeof buf, "N=%lld, nothing to multiply", static_cast<long long>(p.n));
    reason = buf;
    return row_split_variant();
  }
  std::string tf32_note;
  if (tc_window_variant().can_implement(p, nullptr)) {
    const TcWindowForecast f = tc_window_forecast(*p.matrix, p.type, p.n);
    if (f.choice) {
      const std::string what =
          std::string(to_string(p.type)) + (p.type == TypeId::float32 ? " with allow_tf32" : " plus_times");
      std::snprintf(buf, sizeof buf,
                    "N=%lld, %s, %.0f%% of entries in tensor-core windows, predicted gain %.0f%% (all windows %.0f%%)",
                    static_cast<long long>(p.n), what.c_str(),
                    100 * f.share, 100 * f.gain, 100 * f.gain_all);
      reason = buf;
      return *f.choice;
    }
    std::snprintf(buf, sizeof buf,
                  "tensor-core windows (%.0f%% of entries at threshold %.1f) predict gains of %.0f%% (all windows %.0f%%), "
                  "below the model's minimum; ",
                  100 * f.share, f.threshold, 100 * f.gain, 100 * f.gain_all);
    tf32_note = buf;
  }
  using P = DispatchPolicy;
  const RowStats& s = *p.stats;
  const char* why = "a warp per row";
  const SpmmVariant* v = &row_split_variant();
  if (s.nvals >= P::nnz_split_min_entries && s.nvals <= P::nnz_split_max_entries) {
    if (s.max_row <= P::short_row) {
      why = "short rows: equal entries per warp";
      v = &nnz_split_fused_variant();
    } else if (s.max_row > P::long_row) {
      if (p.n <= P::small_n && s.nvals >= P::huge_nnz) {
        why = "long rows, small N, many entries: equal entries per warp, long units";
        v = &nnz_split_long_variant();
      } else if (p.n <= P::small_n && s.mean_row >= P::dense_mean_row) {
        why = "long rows, small N, dense rows: cut into pieces";
        v = &row_pieces_variant();
      } else if (p.n <= P::small_n) {
        why = "long rows, small N: equal entries per warp";
        v = &nnz_split_fused_variant();
      } else if (s.nrows >= P::many_rows) {
        why = "long rows, many rows: equal entries per warp, long units";
        v = &nnz_split_long_variant();
      } else {
        why = "long rows, few rows: cut into pieces";
        v = &row_pieces_variant();
      }
    } else if (s.mean_row < P::sparse_mean_row) {
      why = "sparse rows: equal entries per warp";
      v = &nnz_split_fused_variant();
    }
  } else {
    v = &h200_rules(p, s, why);
  }
  std::string fallback;
  if (is_16bit_float(p.type) && !v->can_implement(p, nullptr)) {
    // The pick does not compute this 16-bit problem: the H200 rules, whose variants take
    // every 16-bit problem.
    fallback = std::string(" (") + v->name + " computes " + std::string(to_string(p.type)) +
               " only for plus_times, max_times, min_plus on row-major operands with N a multiple of 8)";
    v = &h200_rules(p, s, why);
  }
  std::snprintf(buf, sizeof buf, "N=%lld, %s, mean row %.1f, max row %lld: %s", static_cast<long long>(p.n),
                std::string(to_string(p.type)).c_str(), s.mean_row, static_cast<long long>(s.max_row), why);
  reason = (tf32_note.empty() ? std::string(buf) : tf32_note + buf) + fallback;
  return *v;
}

void mxm_sparse_dense(const SpmmArgs& args) {
  const SparseStorage& A = *args.A;
  const DenseStorage& B = *args.B;
  DenseStorage& C = *args.C;
  SpmmProblem p;
  p.m = A.nrows;
  p.k = A.ncols;
  p.n = C.ncols;
  p.nnz = A.nvals;
  p.row_offsets = A.row_offsets.as<Index>();
  p.col_indices = A.col_indices.as<ColIndex>();
  p.values = A.values.data();
  p.B = B.data.data();
  p.b_row_stride = B.layout == Layout::row_major ? B.ld : 1;
  p.b_col_stride = B.layout == Layout::row_major ? 1 : B.ld;
  p.C = C.data.data();
  p.c_row_stride = C.layout == Layout::row_major ? C.ld : 1;
  p.c_col_stride = C.layout == Layout::row_major ? 1 : C.ld;
  p.type = C.type;
  p.semiring = args.semiring;
  p.accumulate = args.accumulate;
  p.device = C.device.ordinal();
  std::shared_ptr<const RowStats> stats;
  if (p.m > 0 && p.nnz > 0) stats = cached_row_stats(A);
  p.stats = stats.get();
  p.matrix = &A;
  p.allow_tf32 = args.allow_tf32;

  const SpmmVariant* v = nullptr;
  std::string reason;
  if (!args.variant.empty()) {
    v = find_variant(args.variant);
    if (!v) {
      std::string names;
      for (const auto* x : variants()) names += std::string(names.empty() ? "" : ", ") + x->name;
      throw InvalidValue("mxm(sparse x dense) on " + C.device.str() + ": unknown variant '" +
                         std::string(args.variant) + "' (the CUDA backend has: " + names + ")");
    }
    reason = "forced by Options::variant";
  } else {
    v = &choose_variant(p, reason);
  }
  std::string why;
  if (!v->can_implement(p, &why))
    throw InvalidValue("mxm(sparse x dense) on " + C.device.str() + ": variant '" + v->name +
                       "' cannot run this problem: " + why);
  if (args.record) {
    args.record->variant = v->name;
    args.record->reason = args.accumulate ? reason + ", fused accumulate" : reason;
  }
  if (p.m == 0 || p.n == 0) return;
  DeviceGuard guard(p.device);
  void* ws = workspace_for(A, v->workspace_bytes(p));
  v->run(p, ws, stream(p.device));
}

}  // namespace geblas::detail::cuda::spmm
