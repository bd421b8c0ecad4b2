// geblas::cuda::StreamGuard: the thread-local table of the streams a host thread has
// named per CUDA device. The CUDA backend asks it in cuda::stream() (src/cuda/backend.cu),
// the one function through which every queue, allocation and copy finds its stream.
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
}  // namespace

StreamOverride stream_override(int ordinal) noexcept {
  if (ordinal < 0 || static_cast<std::size_t>(ordinal) >= t_overrides.size()) return {};
  return t_overrides[static_cast<std::size_t>(ordinal)];
}

StreamOverride exchange_stream_override(int ordinal, StreamOverride next) {
  if (ordinal < 0) throw InvalidValue("stream override for device ordinal " + std::to_string(ordinal));
  const auto i = static_cast<std::size_t>(ordinal);
  if (i >= t_overrides.size()) t_overrides.resize(i + 1);
  const StreamOverride previous = t_overrides[i];
  t_overrides[i] = next;
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
}  // namespace

StreamGuard::StreamGuard(Device device, void* stream)
    : ordinal_(checked_ordinal(device, "geblas::cuda::StreamGuard")), had_previous_(false), previous_(nullptr) {
  detail::cuda_check_stream(ordinal_, stream);
  const detail::StreamOverride before = detail::exchange_stream_override(ordinal_, {true, stream});
  had_previous_ = before.set;
  previous_ = before.stream;
}

StreamGuard::~StreamGuard() {
  // The table entry exists (the constructor made it), so this cannot throw.
  try {
    detail::exchange_stream_override(ordinal_, {had_previous_, previous_});
  } catch (...) {}
}

void* current_stream(Device device) {
  const int ordinal = checked_ordinal(device, "geblas::cuda::current_stream");
  const detail::StreamOverride o = detail::stream_override(ordinal);
  return o.set ? o.stream : detail::cuda_own_stream(ordinal);
}

void* default_stream(Device device) {
  return detail::cuda_own_stream(checked_ordinal(device, "geblas::cuda::default_stream"));
}

}  // namespace cuda
}  // namespace geblas
