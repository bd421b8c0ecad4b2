// The CUDA-core SpMM dispatch rules (see dispatch_policy.hpp). Each constant names the run
// it was fitted on; docs/notes/spmm-tuning.md has the tables behind them.
#include "cuda/spmm/policy/dispatch_policy.hpp"

#include <array>
#include <mutex>

#include "cuda/check.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

struct DispatchPolicy {
  // Small graphs (below nnz_split_min_entries), measured on the H200 (bench_spmm, fp32
  // plus_times, every shared graph, N = 32..512):
  // - rows all at most `short_row` long and N <= `short_row_max_n`: row_group ran
  //   2.5-3x faster than row_split on luxembourg_osm and wing at N = 32, 1.3-1.6x at
  //   N = 64, and lost from N = 128 on;
  // - a longest row above `long_row`: row_pieces beat row_split by 1.5-20x on every
  //   power-law graph, while for longest rows of 47..99 entries row_split was equal or
  //   up to 1.4x faster;
  // - otherwise row_split.
  static constexpr Index short_row = 8;
  static constexpr Index short_row_max_n = 64;
  static constexpr Index long_row = 128;
  // The nnz_split family from nnz_split_min_entries entries on. Fitted on the H100 runs of
  // 2026-11-23 (final call) and 2026-11-25 (second call: the 17 shared graphs >= 100k
  // entries, R-MAT 20 and 22, uniform 1M x 16M, N = 32..512, the variants forced):
  // - rows all <= short_row: nnz_split_fused (1.32-2.25x on luxembourg_osm and wing);
  // - B too large for L2 (one 128-byte column tile of B's rows, k x 128 bytes, above
  //   `l2_tiles` times the L2 size): nnz_split_long up to N = small_n2, then
  //   nnz_split_line_long, whose 128-byte column tiles keep the rows of B in use within
  //   L2 (uniform 1M x 16M 1.16-1.25x the best cuSPARSE at N >= 128 against 1.08-1.17x
  //   with nnz_split_long; R-MAT 22 1.14-1.18x against 1.06-1.09x; R-MAT 20 0.98-1.02x,
  //   where nnz_split_rows_long was 1.03-1.07x; at N <= 64 nnz_split_long 1.06-1.94x).
  //   Before, these graphs were above the family's range and ran row_pieces / row_split
  //   (0.81-0.93x on R-MAT 20, 0.83x on uniform at N = 32). Where such a graph also has
  //   long rows (longest > long_row, mean >= walk_rows_mean), from N = large_n:
  //   nnz_split_rows_long (H200, 2026-11-26, docs/notes/runs/2026-11-26-h200-spmm-dist-jit.md:
  //   R-MAT 20 1.35 / 5.34 ms at N = 128 / 512 against 1.57 / 6.29 with nnz_split_line_long,
  //   R-MAT 22 6.13 / 24.5 against 6.74 / 27.2, i.e. 1.04-1.14x the best cuSPARSE against
  //   0.89-1.03x); the uniform graph (longest row about 40) stays on nnz_split_line_long.
  //   Where a row of B is not a whole number of line_bytes (N = 80, 112 in fp32), the
  //   last column tile of nnz_split_line_long is half empty and costs a full one:
  //   nnz_split_rows_long instead (H200, 2026-11-29 04:06 UTC, docs/notes/runs/
  //   2026-11-29-h200-mid-n.md, every variant forced: N = 112 R-MAT 20 1.30 ms against
  //   1.56, uniform 1.77 against 2.07; N = 80 uniform 1.37 against 1.51, R-MAT 20 and 22
  //   equal; at N = 96, three whole lines, nnz_split_line_long stays ahead: R-MAT 22 4.88
  //   against 5.32).
  // - a longest row > long_row, N <= small_n2: row_pieces, whose shortest rows take one
  //   entry slot each at these N (row_pieces_kernel.cuh, slot_row_max). Before that,
  //   nnz_split_long_waves / nnz_split_fused / row_pieces by size and mean row (H200,
  //   2026-11-26, docs/notes/runs/2026-11-26-h200-spmm-dist-jit.md and
  //   2026-11-26-h200-row-pieces-packed.md); on the H100 run of 2026-11-26 17:15 UTC
  //   (docs/notes/runs/2026-11-26-h100-rows-longest-first.md, call 8) row_pieces was the
  //   fastest of them on each of 14 power-law graphs at N = 32 and 64: soc-Slashdot0902
  //   0.0279 ms against 0.0334 with nnz_split_long_waves, ego-Twitter 0.063 against 0.072,
  //   email-Enron 0.0125 against 0.0159, cit-HepPh 0.0110 against 0.0148, ca-CondMat
  //   0.0093 against 0.0104 with nnz_split_fused, as-caida 0.0106 against 0.0133; at
  //   N = 64 ego-Twitter 0.111 against 0.121 and email-Enron 0.020 against 0.023 with
  //   nnz_split_long.
  // - a longest row > long_row, N in (small_n2, large_n], many_rows rows or more:
  //   row_pieces (or its forms below) at every size. Until 2026-11-29 only below 300k
  //   entries, or below 900k with a mean row >= walk_rows_mean (H100, 2026-11-26 16:45 UTC,
  //   same note, call 4: at N = 128 ca-CondMat 1.14x the best cuSPARSE against 1.16x with
  //   nnz_split_long, as-caida 1.18x against 1.02x, musae-facebook 0.94x against 0.86x,
  //   cit-HepPh 1.06x against 0.95x), nnz_split otherwise. With row_pieces_long the larger
  //   graphs are faster on it too (H200, 2026-11-29, docs/notes/runs/
  //   2026-11-29-h200-row-pieces-wide.md, calls 4-5, forced variants): at N = 96
  //   ego-Twitter 160 us against 207 with nnz_split_long, email-Enron 29.4 against 37.3,
  //   soc-Slashdot0902 82.7 against 88.0 (nnz_split_line_long 76.3); at N = 128
  //   ego-Twitter 179 against 186 with nnz_split_rows_long, email-Enron 34.8 against 38.5,
  //   soc-Slashdot0902 91.2 against 89.1 with nnz_split_long (2% behind). Checked as the
  //   dispatcher at N = 80, 96, 112, 128 on the 7 graphs of 20k rows or more and R-MAT 16
  //   (H200, 2026-11-29 04:06 UTC, docs/notes/runs/2026-11-29-h200-mid-n.md): within 3.4%
  //   of the best of six forced variants in 31 of 32 cases (geomean 1.011 / 1.016 / 1.000 /
  //   1.001), soc-Slashdot0902 N = 96 7.7% behind nnz_split_line_long, where the last
  //   rule's pick was 17% behind.
  // - above large_n, many rows: nnz_split_rows_long where the mean row is >=
  //   walk_rows_mean (ego-Twitter 0.97-0.99x against 0.88-0.91x with nnz_split_long,
  //   cit-HepPh at N >= 256 1.15x against 1.10x with row_pieces), else nnz_split_long
  //   (email-Enron and soc-Slashdot0902: mean rows 10 and 12, 948k entries).
  // - a longest row > long_row, fewer rows: row_pieces (or its forms below) at every N. With its rows taken
  //   longest first it is also ahead at N = 512 on astro-ph (16.7k rows, 1.14x against
  //   1.09x with nnz_split_rows_long) and ca-AstroPh (17.9k, 1.08x against 1.00x), which
  //   took nnz_split_rows_long before (same run).
  // - where those rules give row_pieces at N > small_n2 and A has at least
  //   long_entries_per_sm entries per SM (mid_ for N <= large_n, large_ above):
  //   row_pieces_long, whose pieces of at least 128 entries leave a hub row a quarter of
  //   the partial rows to fold (H200, 2026-11-29, docs/notes/runs/
  //   2026-11-29-h200-row-pieces-wide.md, call 4, six variants forced at N = 96..512, two
  //   rounds): at N = 256 / 512 1.06-1.22x row_pieces on the four graphs of fewer rows
  //   with 242k-397k entries (musae-squirrel N = 512 0.92x -> 1.13x the best cuSPARSE,
  //   musae-crocodile 0.95x -> 1.03x), and behind it with fewer entries: facebook_combined
  //   (176k) 0.94x at N = 256 (1.03x at 512), wiki-Vote (104k) 0.83x / 0.96x, where longer
  //   pieces leave too few warps; at N = 96 / 128 the best or within 5% of it on the
  //   graphs of 341k-421k entries (ca-AstroPh-lcc N = 128 1.12x row_pieces_wide,
  //   musae-facebook 1.13x) and 14-48% slower than row_pieces_wide on those of 107k-242k. Before 2026-11-29
  //   row_pieces_long was within 5% of row_pieces and never the best by more (H100, 2026-11-26, N = 128 and 512 only).
  // - otherwise, where those rules give row_pieces at N in (small_n2, large_n] and A has at
  //   least wide_rows_per_sm rows per SM: row_pieces_wide, whose lanes take 8 float columns, so
  //   that a warp holds twice the entry slots (H200, 2026-11-29, docs/notes/runs/
  //   2026-11-29-h200-row-pieces-wide.md: at N = 128 as-caida 1.10x row_pieces, astro-ph
  //   1.09x, ca-AstroPh-lcc 1.08x, cit-HepPh 1.06x, musae-facebook 1.06x, email-Enron
  //   1.04x, musae-crocodile 1.02x (11.6k rows, 88 per SM); with fewer rows it has too few
  //   warps: wiki-Vote 0.90x (7.1k rows, 54 per SM), musae-squirrel 0.93x, facebook 0.82x;
  //   at N <= 64 it lost on 10 of 12 graphs, at N = 512 it was 0.91-1.04x).
  // - longest row in (short_row, long_row]: nnz_split_fused for a mean row below
  //   sparse_mean_row (p2p-Gnutella31, 74% empty rows), else row_split (bcsstk16).
  static constexpr Index nnz_split_min_entries = 100000;
  static constexpr double l2_tiles = 2;
  static constexpr Index line_bytes = 128;  // nnz_split_line_long's column tile
  static constexpr Index small_n2 = 64;
  static constexpr Index large_n = 128;
  static constexpr double walk_rows_mean = 12;
  static constexpr Index many_rows = 20000;
  static constexpr double sparse_mean_row = 8;
  static constexpr Index wide_rows_per_sm = 80;
  static constexpr Index mid_long_entries_per_sm = 2300;    // 303.6k on 132 SMs
  static constexpr Index large_long_entries_per_sm = 1500;  // 198k on 132 SMs
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
