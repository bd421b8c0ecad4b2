// Per-device streams and the current-device guard. All geblas work on device i is
// queued on stream(i), so operations from one host thread run in order, and copies to
// the host synchronise that stream.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace geblas::detail::cuda {

cudaStream_t stream(int ordinal);

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
};

}  // namespace geblas::detail::cuda
