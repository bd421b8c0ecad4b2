// Per-device streams and the current-device guard. All geblas work on device i is
// queued on stream(i): the calling thread's stream for the device, named by a
// geblas::cuda::StreamGuard (<geblas/stream.hpp>), else geblas's own stream for it. So
// operations from one host thread run in order, and copies to the host synchronise that
// stream. Nothing may queue work on a stream found any other way.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace geblas::detail::cuda {

// The calling thread's current stream for device `ordinal`.
cudaStream_t stream(int ordinal);

// geblas's own stream for the device (non-blocking; created with the device's pool set
// up on first use). Only stream() and the stream bookkeeping use it directly.
cudaStream_t own_stream(int ordinal);

// True when this thread's work for the device goes to geblas's own stream. Scratch kept
// across calls (a workspace or counters cached with a matrix) is reused only then: all
// of its users are then ordered by that one stream. Work on a caller's stream takes
// scratch of its own per call (stream-ordered, so from the pool without a host wait).
bool on_own_stream(int ordinal);

// Copies `bytes` from device memory to the host on `s` and waits for them: the one way
// kernels' small results (a count, a reduced value) come back, counted by
// geblas::transfer_counts().
void read_to_host(void* host, const void* device_ptr, std::size_t bytes, cudaStream_t s);

// Makes `ordinal` the current device for the guard's lifetime.
class DeviceGuard {
 public:
  explicit DeviceGuard(int ordinal);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};

}  // namespace geblas::detail::cuda
