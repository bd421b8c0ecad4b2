// The symmetric-pattern test of symmetry.hpp.
#include "cpu/graph/symmetry.hpp"

#include <algorithm>
#include <atomic>
#include <vector>

#include <omp.h>

#include "core/derived_cache.hpp"
#include "cpu/parallel.hpp"

namespace geblas::detail::cpu::graph {
namespace {

struct SymmetryPolicy {
  // The sample that usually exposes a directed graph before a full test.
  static constexpr Index probe_rows = 1024, probes_per_row = 4;
  // The search test makes a random probe (a binary search in another row) per entry
  // above the diagonal, nvals/2 in all; the cursor test reads the entries in order but
  // positions every thread's n cursors with a binary search at its start and end, about
  // 3n probes on two threads. So: search while nvals/2 < 3n, a mean degree below 6.
  static constexpr double search_below_mean_degree = 6;
};

bool has_entry(const Index* ro, const ColIndex* ci, Index i, Index j) {
  return std::binary_search(ci + ro[i], ci + ro[i + 1], static_cast<ColIndex>(j));
}

// Every entry above the diagonal, (i, j) with j > i, must find its mirror (j, i) in row
// j (rows are sorted: a binary search), and there must be as many entries below the
// diagonal as above. Distinct entries above have distinct mirrors, so with equal counts
// the mirrors are all of the entries below: the pattern is symmetric. Rows are
// independent, so the test is one parallel loop with no memory beyond A's own, and it
// reads each entry once plus a search in a row that is usually short or cached.
bool mirrored_by_search(const SparseStorage& A) {
  const Index n = A.nrows;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  std::atomic<bool> ok{true};
  Index above = 0, below = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : above, below) if (parallel_elements(A.nvals))
  for (Index i = 0; i < n; ++i) {
    if (!ok.load(std::memory_order_relaxed)) continue;
    const ColIndex* first = ci + ro[i];
    const ColIndex* last = ci + ro[i + 1];
    const ColIndex* diag = std::lower_bound(first, last, static_cast<ColIndex>(i));
    const ColIndex* past = diag < last && *diag == i ? diag + 1 : diag;
    below += diag - first;
    above += last - past;
    for (const ColIndex* p = past; p < last; ++p)
      if (!has_entry(ro, ci, *p, i)) {
        ok.store(false, std::memory_order_relaxed);
        break;
      }
  }
  return ok.load() && above == below;
}

// Rows are sorted, so walking rows i in order visits the entries (i, j) of every column
// j in increasing i: with a cursor per row j, the mirror of (i, j) must be the entry
// under j's cursor, which then moves on. A transpose without the writes: each entry is
// read twice, the cursor reads are sequential within a row. Each thread takes a range
// of rows [lo, hi) and starts row j's cursor at its first entry >= lo; at the end every
// cursor must have reached row j's first entry >= hi (no mirror left unmatched).
bool mirrored_by_cursors(const SparseStorage& A) {
  const Index n = A.nrows;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  auto first_at_least = [&](Index j, Index bound) {
    return static_cast<Index>(std::lower_bound(ci + ro[j], ci + ro[j + 1], static_cast<ColIndex>(bound)) - ci);
  };
  std::atomic<bool> mirrored{true};
  const bool parallel = parallel_elements(A.nvals);
#pragma omp parallel if (parallel)
  {
    const int threads = omp_get_num_threads(), t = omp_get_thread_num();
    const Index lo = n * t / threads, hi = n * (t + 1) / threads;
    std::vector<Index> cursor(static_cast<std::size_t>(n));
    for (Index j = 0; j < n; ++j) cursor[static_cast<std::size_t>(j)] = lo == 0 ? ro[j] : first_at_least(j, lo);
    bool ok = true;
    // A cursor is not kept within its row: one that runs past row j's end into the next
    // rows can only have moved on matches there, and then ends past the bound the last
    // loop compares it with. So an entry costs two loads (the cursor and its target),
    // not a third for row j's end; nvals bounds the reads.
    const Index nvals = ro[n];
    for (Index i = lo; i < hi && ok; ++i) {
      for (Index k = ro[i]; k < ro[i + 1]; ++k) {
        const ColIndex j = ci[k];
        Index& c = cursor[static_cast<std::size_t>(j)];
        if (c >= nvals || ci[c] != i) {
          ok = false;
          break;
        }
        ++c;
      }
      // Another thread's mismatch ends this one too, checked once per row.
      if (!mirrored.load(std::memory_order_relaxed)) ok = false;
    }
    for (Index j = 0; j < n && ok; ++j)
      if (cursor[static_cast<std::size_t>(j)] != (hi == n ? ro[j + 1] : first_at_least(j, hi))) ok = false;
    if (!ok) mirrored.store(false, std::memory_order_relaxed);
  }
  return mirrored.load();
}

bool check_symmetric(const SparseStorage& A) {
  if (A.nrows != A.ncols) return false;
  const Index n = A.nrows;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  // Rows, not entries, are sampled: finding the row of an entry is a binary search over
  // the row offsets, a dozen cache misses each.
  const Index rows = std::min(SymmetryPolicy::probe_rows, n);
  for (Index s = 0; s < rows; ++s) {
    const Index i = s * n / rows;
    for (Index k = ro[i]; k < std::min(ro[i + 1], ro[i] + SymmetryPolicy::probes_per_row); ++k)
      if (!has_entry(ro, ci, ci[k], i)) return false;
  }
  const bool sparse_rows =
      static_cast<double>(A.nvals) < SymmetryPolicy::search_below_mean_degree * static_cast<double>(n);
  return sparse_rows ? mirrored_by_search(A) : mirrored_by_cursors(A);
}

}  // namespace

bool pattern_symmetric(const SparseStorage& A) {
  return *derived<bool>(A, pattern_symmetric_key, [&] { return check_symmetric(A); });
}

}  // namespace geblas::detail::cpu::graph
