// The symmetric-pattern test of symmetry.hpp, and the look-up of a cached transpose.
#include "cpu/graph/symmetry.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "core/derived_cache.hpp"
#include "cpu/parallel.hpp"

namespace geblas::detail::cpu::graph {
namespace {

bool check_symmetric(const SparseStorage& A) {
  if (A.nrows != A.ncols) return false;
  const Index n = A.nrows;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  std::atomic<bool> mirrored{true};
  // Rows in blocks, so that an unmatched entry stops the others within a block's time.
  constexpr Index block = 4096;
  const Index blocks = (n + block - 1) / block;
#pragma omp parallel for schedule(dynamic, 1) if (parallel_rows(n))
  for (Index b = 0; b < blocks; ++b) {
    if (!mirrored.load(std::memory_order_relaxed)) continue;
    const Index last = std::min(n, (b + 1) * block);
    for (Index i = b * block; i < last; ++i)
      for (Index k = ro[i]; k < ro[i + 1]; ++k) {
        const ColIndex j = ci[k];
        if (j == i) continue;
        if (!std::binary_search(ci + ro[j], ci + ro[j + 1], static_cast<ColIndex>(i))) {
          mirrored.store(false, std::memory_order_relaxed);
          i = last;  // ends this block
          break;
        }
      }
  }
  return mirrored.load();
}

}  // namespace

bool pattern_symmetric(const SparseStorage& A) {
  return *derived<bool>(A, "pattern_symmetric", [&] { return check_symmetric(A); });
}

std::shared_ptr<const SparseStorage> cached_transpose_if_any(const SparseStorage& A) {
  DerivedCache* cache = A.derived.get();
  std::lock_guard<std::mutex> lock(cache->mutex);
  const auto it = cache->entries.find("transpose");  // cached_transpose's key
  if (it == cache->entries.end()) return nullptr;
  return std::static_pointer_cast<const SparseStorage>(it->second);
}

}  // namespace geblas::detail::cpu::graph
