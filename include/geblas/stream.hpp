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
// - geblas keeps a thread's own work in order across its guards, without host waits:
//   when a guard begins, its stream waits for the work queued so far on the stream it
//   replaces (uploads and results made before the guard are complete when the guard's
//   work reads them), and when it ends, the restored stream waits for the work queued on
//   the guard's stream (a result made under the guard is complete when it is read, copied
//   or freed after it). Each costs one event record and one stream wait. So objects made
//   before, under or after a guard can be used and dropped anywhere in the thread.
//   While either stream is being captured into a CUDA graph, geblas adds no such wait
//   (a capture may not wait for work outside it): the caller orders the graph's launch.
// - The caller orders its own work with geblas's, as in PyTorch: data that the caller
//   writes on stream s1 must be complete, or ordered before (an event), when geblas reads
//   it under a guard of s2 or on geblas's own stream; the caller's work on the guard's
//   stream is ordered by the stream itself.
// - A stream must stay alive until its guard is destroyed (the guard's end records an
//   event on it). After that, geblas keeps no reference to it: objects made under the
//   guard may outlive the stream.
// - Device memory is freed stream-ordered on the freeing thread's current stream. Work on
//   a stream that geblas did not order (another thread's, or the caller's own kernels on
//   a third stream) must be finished or ordered by the caller before an object it uses
//   is destroyed.
// - Two host threads may run geblas on one device at the same time, each on its own
//   stream, and may read the same objects (the caches kept with a matrix are built once
//   and are complete before another stream can use them; scratch space is per call on a
//   caller's stream); two threads must not write one object, or write one that another
//   reads, at the same time.
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
