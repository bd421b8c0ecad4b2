// The cached transpose and row statistics of a sparse matrix.
#include "core/derived_cache.hpp"

#include <atomic>

#include "core/backend.hpp"
#include "geblas/detail/derived_stats.hpp"

namespace geblas::detail {

namespace {
std::atomic<std::uint64_t> g_builds{0};
}  // namespace

void count_derived_build() { g_builds.fetch_add(1, std::memory_order_relaxed); }
std::uint64_t derived_builds() { return g_builds.load(std::memory_order_relaxed); }

void finish_derived_build(Device device) {
  if (device.is_cuda()) backend_for(device).synchronize(device.ordinal());
}

std::shared_ptr<const SparseStorage> cached_transpose(const SparseStorage& A) {
  return derived<SparseStorage>(A, transpose_key, [&] {
    SparseStorage T;
    required(backend_for(A.device).transpose_sparse, "transpose", A.device)(T, A);
    return T;
  });
}

void note_symmetric_pattern(const SparseStorage& A) {
  DerivedCache* cache = A.derived.get();
  std::lock_guard<std::mutex> lock(cache->mutex);
  cache->entries.insert_or_assign(pattern_symmetric_key, std::make_shared<const bool>(true));
}

std::shared_ptr<const RowStats> cached_row_stats(const SparseStorage& A) {
  return derived<RowStats>(A, "row_stats", [&] {
    RowStats s;
    required(backend_for(A.device).row_stats, "row statistics", A.device)(s, A);
    return s;
  });
}

}  // namespace geblas::detail
