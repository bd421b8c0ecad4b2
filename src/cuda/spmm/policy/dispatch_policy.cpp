// The CUDA-core SpMM dispatch rules (see dispatch_policy.hpp). Each constant names the GPU
// it was fitted on; docs/notes/spmm-tuning.md has the timings behind them.
#include "cuda/spmm/policy/dispatch_policy.hpp"

#include <array>
#include <mutex>

#include "cuda/check.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

// Every constant of the rules below, one line each: the value, the GPU it was fitted on,
// and the section of docs/notes/spmm-tuning.md ("Evidence for each DispatchPolicy
// constant") that holds the timings behind it. The rules themselves are the code of
// small_graph_rules and pick_variant; that note lists them in words.
struct DispatchPolicy {
  // Graphs below nnz_split_min_entries (small_graph_rules).
  static constexpr Index short_row = 8;          // H200; row_group below it, N <= short_row_max_n ("small graphs")
  static constexpr Index short_row_max_n = 64;   // H200; row_group loses from N = 128 on ("small graphs")
  static constexpr Index long_row = 128;         // H200; row_pieces above it ("small graphs", "long rows")
  // Graphs from nnz_split_min_entries on (pick_variant).
  static constexpr Index nnz_split_min_entries = 100000;  // H100 + H200; the nnz_split family's range ("large graphs")
  static constexpr double l2_tiles = 2;          // H100; B beyond L2 when k x 128 B > l2_tiles x L2 ("B beyond L2")
  static constexpr Index line_bytes = 128;       // nnz_split_line_long's column tile; N not filling it ("B beyond L2")
  static constexpr Index small_n2 = 64;          // H100 + H200; row_pieces / nnz_split_long up to here ("long rows")
  static constexpr Index large_n = 128;          // H200; nnz_split_rows_long from here ("long rows, many rows")
  static constexpr double walk_rows_mean = 12;   // H100 + H200; rows walked one by one above this mean ("long rows")
  static constexpr Index many_rows = 20000;      // H100 + H200; row_pieces vs nnz_split by rows ("long rows, many rows")
  static constexpr double sparse_mean_row = 8;   // H100; nnz_split_fused below this mean row ("mid-length rows")
  static constexpr Index wide_rows_per_sm = 80;  // H200; row_pieces_wide from here, N in (64, 128] ("row_pieces forms")
  static constexpr Index mid_long_entries_per_sm = 2300;    // H200, 303.6k on 132 SMs; row_pieces_long, N <= 128 ("row_pieces forms")
  static constexpr Index large_long_entries_per_sm = 1500;  // H200, 198k on 132 SMs; row_pieces_long, N > 128 ("row_pieces forms")
};

}  // namespace

const GpuTraits& gpu_traits(int device) {
  static std::mutex mutex;
  static std::array<GpuTraits, 64> cache{};
  if (device < 0 || device >= static_cast<int>(cache.size()))
    throw InvalidValue("CUDA device ordinal " + std::to_string(device) + " out of range");
  std::lock_guard<std::mutex> lock(mutex);
  GpuTraits& t = cache[static_cast<std::size_t>(device)];
  if (t.sm_count == 0) {
    cudaDeviceProp prop{};
    GEBLAS_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    t = {prop.multiProcessorCount, static_cast<std::size_t>(prop.l2CacheSize), prop.major, prop.minor};
  }
  return t;
}

const SpmmVariant& small_graph_rules(const SpmmProblem& p, const RowStats& s, const char*& why) {
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

namespace {

// row_pieces where the rules above pick it from 100k entries on, or its long or wide form
const SpmmVariant& pieces_variant(const SpmmProblem& p, const RowStats& s, const GpuTraits& g, const char*& why,
                                  const char* plain_why) {
  using P = DispatchPolicy;
  const Index sms = g.sm_count;
  const Index long_entries = (p.n <= P::large_n ? P::mid_long_entries_per_sm : P::large_long_entries_per_sm) * sms;
  if (p.n > P::small_n2 && s.nvals >= long_entries) {
    why = "long rows, N > 64, entries to fill the GPU: cut into pieces of at least 128 entries";
    return row_pieces_long_variant();
  }
  if (p.n > P::small_n2 && p.n <= P::large_n && s.nrows >= P::wide_rows_per_sm * sms) {
    why = "long rows, N in (64, 128], rows to fill the GPU: cut into pieces, 8 columns per lane";
    return row_pieces_wide_variant();
  }
  why = plain_why;
  return row_pieces_variant();
}

}  // namespace

const SpmmVariant& pick_variant(const SpmmProblem& p, const RowStats& s, const GpuTraits& g, const char*& why) {
  using P = DispatchPolicy;
  if (s.nvals < P::nnz_split_min_entries) return small_graph_rules(p, s, why);
  if (s.max_row <= P::short_row) {
    why = "short rows: equal entries per warp";
    return nnz_split_fused_variant();
  }
  const double b_tile_bytes = static_cast<double>(p.k) * 128;
  if (b_tile_bytes > P::l2_tiles * static_cast<double>(g.l2_bytes)) {
    if (p.n <= P::small_n2) {
      why = "B beyond L2, small N: equal entries per warp, long units";
      return nnz_split_long_variant();
    }
    if (p.n >= P::large_n && s.max_row > P::long_row && s.mean_row >= P::walk_rows_mean) {
      why = "B beyond L2, long rows, large N: equal entries per warp, walked row by row";
      return nnz_split_rows_long_variant();
    }
    if (static_cast<Index>(p.value_bytes()) * p.n % P::line_bytes != 0) {
      why = "B beyond L2, rows of B not whole 128-byte lines: equal entries per warp, walked row by row";
      return nnz_split_rows_long_variant();
    }
    why = "B beyond L2: equal entries per warp, 128-byte column tiles";
    return nnz_split_line_long_variant();
  }
  if (s.max_row > P::long_row) {
    if (p.n <= P::small_n2) {
      why = "long rows, N <= 64: cut into pieces, short rows one per entry slot";
      return row_pieces_variant();
    }
    if (s.nrows >= P::many_rows) {
      if (p.n <= P::large_n) return pieces_variant(p, s, g, why, "long rows, many rows, N <= 128: cut into pieces");
      if (s.mean_row >= P::walk_rows_mean) {  // N > large_n here
        why = "long rows, many rows, large N: equal entries per warp, walked row by row";
        return nnz_split_rows_long_variant();
      }
      why = "long rows, many rows: equal entries per warp, long units";
      return nnz_split_long_variant();
    }
    return pieces_variant(p, s, g, why, "long rows, few rows: cut into pieces");
  }
  if (s.mean_row < P::sparse_mean_row) {
    why = "sparse rows: equal entries per warp";
    return nnz_split_fused_variant();
  }
  why = "a warp per row";
  return row_split_variant();
}

}  // namespace geblas::detail::cuda::spmm
