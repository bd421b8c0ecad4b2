// Facts derived from a matrix and kept with it until it changes: its transpose (for
// transpose_a on the GPU and for pull/push switching), row statistics (for the SpMM
// dispatcher) and backend plans. Each entry is built once, under the cache's lock.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "geblas/detail/storage.hpp"

namespace geblas::detail {

struct DerivedCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const void>> entries;
};

// The entry `key` of A's cache, built by `build()` (returning a V) the first time.
template <class V, class Build>
std::shared_ptr<const V> derived(const SparseStorage& A, const std::string& key, Build&& build) {
  DerivedCache* cache = A.derived.get();
  std::lock_guard<std::mutex> lock(cache->mutex);
  auto it = cache->entries.find(key);
  if (it != cache->entries.end()) return std::static_pointer_cast<const V>(it->second);
  auto value = std::make_shared<const V>(build());
  cache->entries.emplace(key, value);
  return value;
}

// Row-length facts the dispatchers choose kernels by, computed once per matrix.
struct RowStats {
  Index nrows = 0;
  Index nvals = 0;
  Index max_row = 0;
  Index empty_rows = 0;
  double mean_row = 0;
  double stddev_row = 0;
};

// A's transpose on A's device, cached.
std::shared_ptr<const SparseStorage> cached_transpose(const SparseStorage& A);
std::shared_ptr<const RowStats> cached_row_stats(const SparseStorage& A);

}  // namespace geblas::detail
