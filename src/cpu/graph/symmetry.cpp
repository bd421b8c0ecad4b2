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

// Rows are sorted, so walking rows i in order visits the entries (i, j) of every column
// j in increasing i: with a cursor per row j, the mirror of (i, j) must be the entry
// under j's cursor, which then moves on. A transpose without the writes: each entry is
// read twice, the cursor reads are sequential within a row. Each thread takes a range
// of rows [lo, hi) and starts row j's cursor at its first entry >= lo; at the end every
// cursor must have reached row j's first entry >= hi (no mirror left unmatched).
bool check_symmetric(const SparseStorage& A) {
  if (A.nrows != A.ncols) return false;
  const Index n = A.nrows;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  auto first_at_least = [&](Index j, Index bound) {
    return static_cast<Index>(std::lower_bound(ci + ro[j], ci + ro[j + 1], static_cast<ColIndex>(bound)) - ci);
  };
  // A directed graph usually shows itself within a sample of entries (a binary search
  // each), before the full test reads them all.
  constexpr Index probes = 1024;
  for (Index s = 0; s < std::min(probes, A.nvals); ++s) {
    const Index k = s * A.nvals / std::min(probes, A.nvals);
    const Index i = std::upper_bound(ro, ro + n + 1, k) - ro - 1;  // the row holding entry k
    const Index j = ci[k];
    if (!std::binary_search(ci + ro[j], ci + ro[j + 1], static_cast<ColIndex>(i))) return false;
  }
  std::atomic<bool> mirrored{true};
  const bool parallel = parallel_elements(A.nvals);
#pragma omp parallel if (parallel)
  {
    const int threads = omp_get_num_threads(), t = omp_get_thread_num();
    const Index lo = n * t / threads, hi = n * (t + 1) / threads;
    std::vector<Index> cursor(static_cast<std::size_t>(n));
    for (Index j = 0; j < n; ++j) cursor[static_cast<std::size_t>(j)] = lo == 0 ? ro[j] : first_at_least(j, lo);
    bool ok = true;
    for (Index i = lo; i < hi && ok; ++i) {
      for (Index k = ro[i]; k < ro[i + 1]; ++k) {
        const ColIndex j = ci[k];
        Index& c = cursor[static_cast<std::size_t>(j)];
        if (c >= ro[j + 1] || ci[c] != i) {
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

}  // namespace

bool pattern_symmetric(const SparseStorage& A) {
  return *derived<bool>(A, pattern_symmetric_key, [&] { return check_symmetric(A); });
}

}  // namespace geblas::detail::cpu::graph
