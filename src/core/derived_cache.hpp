// Facts derived from a matrix and kept with it until it changes: its transpose (for
// transpose_a on the GPU and for pull/push switching), row statistics (for the SpMM
// dispatcher), whether its pattern is symmetric, and backend plans. Each entry is built
// on first use (see derived()); the *_if_any look-ups read one without building it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/row_stats.hpp"
#include "geblas/detail/storage.hpp"

namespace geblas::detail {

struct DerivedCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const void>> entries;
};

// Counts a build (geblas/detail/derived_stats.hpp).
void count_derived_build();

// Called after a build, before its result is stored: on a CUDA device, waits for the
// building thread's current stream. A stored entry is read by any thread on any stream
// (geblas::cuda::StreamGuard) with no event to wait on, so its device data must be
// complete before another thread can find it. A build happens once per matrix and key.
void finish_derived_build(Device device);

// The entry `key` of A's cache, built by `build()` (returning a V) the first time.
// The lock is not held while building: a build may itself use A's cache (a row scaling
// of A' asks for A's transpose, an SpMM inside a build asks for row statistics). Two
// threads may then build the same entry at once; the first one stored is kept. An
// entry's device data is complete when it is stored (finish_derived_build), so it is
// safe to read from any stream; entries are read-only once stored, except scratch that
// is reused only on geblas's own stream (cuda::on_own_stream).
template <class V, class Build>
std::shared_ptr<const V> derived(const SparseStorage& A, const std::string& key, Build&& build) {
  DerivedCache* cache = A.derived.get();
  {
    std::lock_guard<std::mutex> lock(cache->mutex);
    auto it = cache->entries.find(key);
    if (it != cache->entries.end()) return std::static_pointer_cast<const V>(it->second);
  }
  count_derived_build();
  std::shared_ptr<const void> value = std::make_shared<const V>(build());
  finish_derived_build(A.device);
  std::lock_guard<std::mutex> lock(cache->mutex);
  auto it = cache->entries.emplace(key, std::move(value)).first;
  return std::static_pointer_cast<const V>(it->second);
}

// The entry `key` of A's cache when it is already there, else null (never builds it):
// for a caller that uses a fact only when it costs nothing.
template <class V>
std::shared_ptr<const V> derived_if_any(const SparseStorage& A, const std::string& key) {
  DerivedCache* cache = A.derived.get();
  std::lock_guard<std::mutex> lock(cache->mutex);
  const auto it = cache->entries.find(key);
  if (it == cache->entries.end()) return nullptr;
  return std::static_pointer_cast<const V>(it->second);
}

// The keys of the entries that more than one file reads: A's transpose, and whether A's
// pattern is symmetric (a bool, stored by a backend's test, the host's being
// cpu/graph/symmetry.hpp, or by a reader that built A by mirroring a symmetric file,
// through note_symmetric_pattern, so that no test is paid for such a matrix).
inline constexpr const char* transpose_key = "transpose";
inline constexpr const char* pattern_symmetric_key = "pattern_symmetric";
void note_symmetric_pattern(const SparseStorage& A);

// A's transpose on A's device, cached.
std::shared_ptr<const SparseStorage> cached_transpose(const SparseStorage& A);
std::shared_ptr<const RowStats> cached_row_stats(const SparseStorage& A);

// The look-ups without a build, for any backend (an entry lives with A, on A's device).
inline std::shared_ptr<const SparseStorage> cached_transpose_if_any(const SparseStorage& A) {
  return derived_if_any<SparseStorage>(A, transpose_key);
}
inline std::optional<bool> pattern_symmetric_if_known(const SparseStorage& A) {
  const auto known = derived_if_any<bool>(A, pattern_symmetric_key);
  if (!known) return std::nullopt;
  return *known;
}

}  // namespace geblas::detail
