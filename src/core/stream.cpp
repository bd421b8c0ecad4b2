// geblas::cuda::StreamGuard: the thread-local table of the streams a host thread has
// named per CUDA device, and the ordering of a guard's stream with the stream it replaces.
// The CUDA backend asks the table in cuda::stream() (src/cuda/backend.cu), the one
// function through which every queue, allocation and copy finds its stream, so the common
// case (no guard in this thread) is one thread-local load, without a lock.
#include <cstdio>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "geblas/detail/stream_state.hpp"
#include "geblas/error.hpp"
#include "geblas/stream.hpp"

namespace geblas {
namespace detail {
namespace {
// Indexed by device ordinal; grown on first use. Thread-local, so a guard in one thread
// never changes the stream of another.
thread_local std::vector<StreamOverride> t_overrides;
// How many entries of t_overrides are set: 0 in a thread without a live guard, which
// stream_override answers before touching the table (constant-initialised, so reading
// it needs no thread-local initialisation check).
constinit thread_local int t_set_entries = 0;
}  // namespace

StreamOverride stream_override(int ordinal) noexcept {
  if (t_set_entries == 0) return {};
  if (ordinal < 0 || static_cast<std::size_t>(ordinal) >= t_overrides.size()) return {};
  return t_overrides[static_cast<std::size_t>(ordinal)];
}

StreamOverride exchange_stream_override(int ordinal, StreamOverride next) {
  if (ordinal < 0) throw InvalidValue("stream override for device ordinal " + std::to_string(ordinal));
  const auto i = static_cast<std::size_t>(ordinal);
  if (i >= t_overrides.size()) t_overrides.resize(i + 1);
  const StreamOverride previous = t_overrides[i];
  t_overrides[i] = next;
  t_set_entries += static_cast<int>(next.set) - static_cast<int>(previous.set);
  return previous;
}
}  // namespace detail

namespace cuda {
namespace {
int checked_ordinal(Device device, const char* where) {
  if (!device.is_cuda())
    throw InvalidValue(std::string(where) + ": " + device.str() + " is not a CUDA device (streams are CUDA's)");
  (void)detail::backend_for(device);  // InvalidValue: no CUDA backend, or no such device
  return device.ordinal();
}

// The stream this thread's work for the device went to before a guard changes it.
void* current_of(int ordinal, const detail::StreamOverride& o) {
  return o.set ? o.stream : detail::cuda_own_stream(ordinal);
}
}  // namespace

StreamGuard::StreamGuard(Device device, void* stream)
    : ordinal_(checked_ordinal(device, "geblas::cuda::StreamGuard")), had_previous_(false), previous_(nullptr) {
  detail::cuda_check_stream(ordinal_, stream);
  const detail::StreamOverride before = detail::stream_override(ordinal_);
  // The work this thread queued before the guard (uploads, caches, results on geblas's own
  // stream or an outer guard's) comes before the work queued under it.
  detail::cuda_stream_wait(ordinal_, stream, current_of(ordinal_, before));
  detail::exchange_stream_override(ordinal_, {true, stream});
  had_previous_ = before.set;
  previous_ = before.stream;
}

StreamGuard::~StreamGuard() {
  const detail::StreamOverride restored{had_previous_, previous_};
  const detail::StreamOverride guarded = detail::stream_override(ordinal_);
  try {
    // The table entry exists (the constructor made it): this exchange cannot throw.
    detail::exchange_stream_override(ordinal_, restored);
    // The objects made or written under the guard are used after it on the restored
    // stream (their reads, their frees): it waits for the guard's stream, without a host
    // wait. cuda_stream_wait reports its own CUDA errors; a throw here would end the
    // program from a destructor.
    detail::cuda_stream_wait(ordinal_, current_of(ordinal_, restored), guarded.stream);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "geblas: ~StreamGuard on cuda:%d: %s\n", ordinal_, e.what());
  } catch (...) {
    std::fprintf(stderr, "geblas: ~StreamGuard on cuda:%d failed\n", ordinal_);
  }
}

void* current_stream(Device device) {
  const int ordinal = checked_ordinal(device, "geblas::cuda::current_stream");
  return current_of(ordinal, detail::stream_override(ordinal));
}

void* default_stream(Device device) {
  return detail::cuda_own_stream(checked_ordinal(device, "geblas::cuda::default_stream"));
}

}  // namespace cuda
}  // namespace geblas
