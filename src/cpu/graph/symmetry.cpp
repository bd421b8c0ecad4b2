// The symmetric-pattern test of symmetry.hpp, and the look-up of a cached transpose.
#include "cpu/graph/symmetry.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include <omp.h>

#include "core/derived_cache.hpp"
#include "cpu/parallel.hpp"

namespace geblas::detail::cpu::graph {
namespace {

// Every entry above the diagonal, (i, j) with j > i, must find its mirror (j, i) in row
// j (rows are sorted: a binary search), and there must be as many entries below the
// diagonal as above. Distinct entries above have distinct mirrors, so with equal counts
// the mirrors are all of the entries below: the pattern is symmetric. Rows are
// independent, so the test is one parallel loop with no memory beyond A's own, and it
// reads each entry once plus a search in a row that is usually short or cached.
bool check_symmetric(const SparseStorage& A) {
  if (A.nrows != A.ncols) return false;
  const Index n = A.nrows;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  auto mirrored = [&](Index i, ColIndex j) { return std::binary_search(ci + ro[j], ci + ro[j + 1], static_cast<ColIndex>(i)); };
  // A directed graph usually shows itself within a sample, before the full test reads
  // every entry: the first entries of evenly spaced rows (rows, not entries: finding the
  // row of an entry is a binary search over the row offsets, a dozen cache misses each).
  constexpr Index probe_rows = 1024, probes_per_row = 4;
  for (Index s = 0; s < std::min(probe_rows, n); ++s) {
    const Index i = s * n / std::min(probe_rows, n);
    for (Index k = ro[i]; k < std::min(ro[i + 1], ro[i] + probes_per_row); ++k)
      if (!mirrored(i, ci[k])) return false;
  }
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
      if (!mirrored(i, *p)) {
        ok.store(false, std::memory_order_relaxed);
        break;
      }
  }
  return ok.load() && above == below;
}

}  // namespace

bool pattern_symmetric(const SparseStorage& A) {
  return *derived<bool>(A, pattern_symmetric_key, [&] { return check_symmetric(A); });
}

std::optional<bool> pattern_symmetric_if_known(const SparseStorage& A) {
  DerivedCache* cache = A.derived.get();
  std::lock_guard<std::mutex> lock(cache->mutex);
  const auto it = cache->entries.find(pattern_symmetric_key);
  if (it == cache->entries.end()) return std::nullopt;
  return *std::static_pointer_cast<const bool>(it->second);
}

std::shared_ptr<const SparseStorage> cached_transpose_if_any(const SparseStorage& A) {
  DerivedCache* cache = A.derived.get();
  std::lock_guard<std::mutex> lock(cache->mutex);
  const auto it = cache->entries.find("transpose");  // cached_transpose's key
  if (it == cache->entries.end()) return nullptr;
  return std::static_pointer_cast<const SparseStorage>(it->second);
}

}  // namespace geblas::detail::cpu::graph
