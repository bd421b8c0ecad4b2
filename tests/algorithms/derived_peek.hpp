// Timing-free evidence that an algorithm cached a derived matrix with A: the address
// of the entry under `key` in A's derived cache (null when there is none). The same
// address after a second call means nothing was rebuilt; a write to A drops the cache.
#pragma once

#include <mutex>
#include <string>

#include "core/derived_cache.hpp"
#include "geblas/sparse_matrix.hpp"

namespace algotest {

template <class T>
const void* derived_entry(const geblas::SparseMatrix<T>& A, const std::string& key) {
  geblas::detail::DerivedCache* cache = A.storage().derived.get();
  std::lock_guard<std::mutex> lock(cache->mutex);
  const auto it = cache->entries.find(key);
  return it == cache->entries.end() ? nullptr : it->second.get();
}

}  // namespace algotest
