// <geblas/stream.hpp>: running geblas's GPU work on the caller's CUDA stream.
//
// By default geblas queues all work for CUDA device i on one stream of its own (created
// non-blocking, so it never waits for the legacy default stream). A caller that has its
// own stream (PyTorch's current stream, a CUDA graph capture, one stream per host thread)
// names it with a StreamGuard: while the guard lives, every geblas operation that this
// host thread issues on that device (kernels, stream-ordered allocations and frees,
// copies, the host reads of result sizes) is queued on the caller's stream, so it is
// ordered with the caller's work without host synchronisation.
//
//   {
//     geblas::cuda::StreamGuard on(geblas::Device::cuda(0), my_stream);  // cudaStream_t as void*
//     geblas::mxm(C, A, B, geblas::semiring::plus_times<float>{});       // queued on my_stream
//   }                                                                     // back to the previous stream
//
// The rules (docs/DESIGN.md, "Streams"):
// - Guards are per host thread and per device, and nest: a guard replaces the stream
//   for its lifetime and restores the one before it (another guard's, or geblas's own).
//   Destroy them in reverse order of construction (RAII scopes do).
// - The caller orders its streams, as in PyTorch: data that other work produces on
//   stream s1 must be complete, or ordered before (an event), when geblas reads it on s2.
// - Device memory is freed stream-ordered after all work queued, before the free, on the
//   stream the memory was allocated on and on the freeing thread's current stream. Work
//   on any third stream that still uses an object must be finished by the caller before
//   the object is destroyed. A stream must outlive the geblas objects allocated on it.
// - Two host threads may run geblas on one device at the same time, each on its own
//   stream, and may read the same objects (the caches kept with a matrix are built once
//   and are complete before another stream can use them); two threads must not write one
//   object, or write one that another reads, at the same time.
//
// The handle is a cudaStream_t cast to void*, so that this header needs no CUDA headers.
// 0 (cudaStreamLegacy's value in most builds) names the legacy default stream of the device.
#pragma once

#include "geblas/config.hpp"
#include "geblas/device.hpp"

namespace geblas::cuda {

// Makes `stream` (a cudaStream_t of `device`) the stream of every geblas operation this
// thread issues on `device` until the guard is destroyed. Throws InvalidValue when
// `device` is not a usable CUDA device or the stream belongs to another device.
class GEBLAS_API StreamGuard {
 public:
  StreamGuard(Device device, void* stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;
  StreamGuard(StreamGuard&&) = delete;
  StreamGuard& operator=(StreamGuard&&) = delete;

 private:
  int ordinal_;
  bool had_previous_;
  void* previous_;
};

// The stream (a cudaStream_t as void*) on which geblas queues this thread's work for
// `device`: the innermost live guard's stream, else geblas's own stream for the device.
GEBLAS_API void* current_stream(Device device);

// geblas's own stream for `device`, used where no guard is live.
GEBLAS_API void* default_stream(Device device);

}  // namespace geblas::cuda
