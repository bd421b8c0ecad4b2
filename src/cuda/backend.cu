// The CUDA backend's table: device memory on a per-device stream, copies in every
// direction, and the entries of src/cuda/ops and src/cuda/spmm.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/transfers.hpp"
#include "cuda/check.cuh"
#include "cuda/context.cuh"
#include "cuda/graph/graph.hpp"
#include "cuda/ops/ops.hpp"
#include "cuda/spmm/dispatcher.hpp"
#include "geblas/detail/stream_state.hpp"

namespace geblas::detail {

int cuda_device_count_impl() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;  // no driver or no device: the CUDA backend has no usable device
    }
    return n;
  }();
  return count;
}

void* cuda_own_stream(int ordinal) { return cuda::own_stream(ordinal); }

// The handles that name a stream by role rather than by object (0 and cudaStreamLegacy:
// the legacy default stream; cudaStreamPerThread) mean "that stream of the current
// device", which geblas makes the guard's device before it queues anything.
void* cuda_check_stream(int ordinal, void* handle) {
  void* own = cuda_own_stream(ordinal);  // also sets up the device's memory pool
  const auto s = static_cast<cudaStream_t>(handle);
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) return own;
  int device = -1;
  const cudaError_t e = cudaStreamGetDevice(s, &device);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw InvalidValue("geblas::cuda::StreamGuard: the handle given for cuda:" + std::to_string(ordinal) +
                       " is not a usable CUDA stream (" + cudaGetErrorString(e) + ")");
  }
  if (device != ordinal)
    throw InvalidValue("geblas::cuda::StreamGuard: the stream belongs to cuda:" + std::to_string(device) +
                       ", not to cuda:" + std::to_string(ordinal) + " named by the guard");
  return own;
}

namespace cuda {

namespace {

// geblas's own stream per device: created once, then read without a lock on every call
// (cuda::stream() is on the path of every kernel launch, allocation and copy).
struct OwnStreams {
  std::mutex create;
  std::vector<std::atomic<cudaStream_t>> streams;
  OwnStreams() : streams(static_cast<std::size_t>(cuda_device_count_impl())) {}
};

OwnStreams& own_streams() {
  static OwnStreams o;
  return o;
}

cudaStream_t create_own_stream(int ordinal) {
  DeviceGuard guard(ordinal);
  cudaStream_t s = nullptr;
  GEBLAS_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // The default pool's release threshold is 0: every synchronisation hands its free
  // memory back to the driver, so the next cudaMallocAsync maps fresh pages. Iterative
  // algorithms allocate an n x k temporary and synchronise once per round (20 MB per
  // round for 64-source SSSP on ego-Twitter), and each of those re-mappings cost more
  // than the round's SpMM. Keeping freed memory in the pool makes reuse free.
  cudaMemPool_t pool = nullptr;
  GEBLAS_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, ordinal));
  std::uint64_t keep = UINT64_MAX;
  GEBLAS_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return s;
}

// One event per device and host thread for cuda_stream_wait: an event may be recorded
// again as soon as cudaStreamWaitEvent has returned (the wait takes the state of its
// last record), so one per thread is enough, and a guard costs no event creation.
class WaitEvents {
 public:
  WaitEvents() = default;
  WaitEvents(const WaitEvents&) = delete;
  WaitEvents& operator=(const WaitEvents&) = delete;
  ~WaitEvents() {
    for (cudaEvent_t e : events_)
      if (e) cudaEventDestroy(e);  // at thread exit: nothing left to report to
  }
  cudaEvent_t of(int ordinal) {
    const auto i = static_cast<std::size_t>(ordinal);
    if (i >= events_.size()) events_.resize(i + 1, nullptr);
    if (!events_[i]) GEBLAS_CUDA_CHECK(cudaEventCreateWithFlags(&events_[i], cudaEventDisableTiming));
    return events_[i];
  }

 private:
  std::vector<cudaEvent_t> events_;
};

}  // namespace

cudaStream_t own_stream(int ordinal) {
  OwnStreams& o = own_streams();
  std::atomic<cudaStream_t>& slot = o.streams.at(static_cast<std::size_t>(ordinal));
  if (cudaStream_t s = slot.load(std::memory_order_acquire)) return s;
  std::lock_guard<std::mutex> lock(o.create);
  cudaStream_t s = slot.load(std::memory_order_relaxed);
  if (!s) {
    s = create_own_stream(ordinal);
    slot.store(s, std::memory_order_release);
  }
  return s;
}

cudaStream_t stream(int ordinal) {
  const StreamOverride o = stream_override(ordinal);  // one thread-local load without a guard
  return o.set ? static_cast<cudaStream_t>(o.stream) : own_stream(ordinal);
}

bool on_own_stream(int ordinal) {
  const StreamOverride o = stream_override(ordinal);
  return !o.set || static_cast<cudaStream_t>(o.stream) == own_stream(ordinal);
}

}  // namespace cuda

namespace {
// True when `s` is being captured into a CUDA graph (or cannot be asked: the legacy stream
// while another stream captures in global mode).
bool capturing(cudaStream_t s) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &status) != cudaSuccess) {
    cudaGetLastError();
    return true;
  }
  return status != cudaStreamCaptureStatusNone;
}
}  // namespace

// Not across a graph capture: a captured stream may not wait for an event recorded
// outside the capture, nor another stream for one recorded inside it (either invalidates
// the capture). Work captured under a guard is ordered by the caller, who launches the
// graph.
void cuda_stream_wait(int ordinal, void* waiter, void* waited) {
  if (waiter == waited) return;
  thread_local cuda::WaitEvents events;
  cuda::DeviceGuard guard(ordinal);  // the legacy and per-thread handles mean the current device's
  if (capturing(static_cast<cudaStream_t>(waiter)) || capturing(static_cast<cudaStream_t>(waited))) return;
  const cudaEvent_t e = events.of(ordinal);
  GEBLAS_CUDA_CHECK(cudaEventRecord(e, static_cast<cudaStream_t>(waited)));
  GEBLAS_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(waiter), e, 0));
}

namespace cuda {

void read_to_host(void* host, const void* device_ptr, std::size_t bytes, cudaStream_t s) {
  int ordinal = 0;
  GEBLAS_CUDA_CHECK(cudaGetDevice(&ordinal));
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(host, device_ptr, bytes, cudaMemcpyDeviceToHost, s));
  GEBLAS_CUDA_CHECK(cudaStreamSynchronize(s));
  count_transfer(Device::cpu(), Device::cuda(ordinal), bytes);
}

DeviceGuard::DeviceGuard(int ordinal) {
  GEBLAS_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != ordinal) {
    GEBLAS_CUDA_CHECK(cudaSetDevice(ordinal));
    changed_ = true;
  }
}
// Restores only what the constructor changed: cudaSetDevice is not free, and the common
// call is on the current device (nested guards restore their own changes).
DeviceGuard::~DeviceGuard() {
  if (changed_) GEBLAS_CUDA_CHECK_NO_THROW(cudaSetDevice(previous_));
}

namespace ops {
namespace {

// Hands the pool's unused memory back to the driver (after the stream's work is done).
void trim_pool(int ordinal) {
  cudaMemPool_t pool = nullptr;
  GEBLAS_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, ordinal));
  GEBLAS_CUDA_CHECK(cudaStreamSynchronize(stream(ordinal)));
  GEBLAS_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
}

}  // namespace

void* allocate(std::size_t bytes, int ordinal) {
  DeviceGuard guard(ordinal);
  const cudaStream_t s = stream(ordinal);
  void* p = nullptr;
  cudaError_t e = cudaMallocAsync(&p, bytes, s);
  if (e == cudaErrorMemoryAllocation) {
    // The pool keeps freed memory (see own_stream()): give it back and try once more.
    cudaGetLastError();
    trim_pool(ordinal);
    e = cudaMallocAsync(&p, bytes, s);
  }
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    // Nothing may stay held after an OutOfMemory: with the pool keeping freed memory,
    // test_reliability_oom_gpu found only 8.6 MB free on an H100 right after a failed
    // 160 GB request, most likely memory the pool took on the way to failing.
    trim_pool(ordinal);
    std::size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    throw OutOfMemory("cuda:" + std::to_string(ordinal) + ": cannot allocate " + std::to_string(bytes) +
                          " bytes (" + std::to_string(free_bytes) + " of " + std::to_string(total) + " free)",
                      bytes);
  }
  GEBLAS_CUDA_CHECK(e);
  return p;
}

// Freed on this thread's current stream. Memory that work on another stream may still
// use is ordered before the free by the guards (<geblas/stream.hpp>): a guard's stream
// waits for the stream it replaces when it begins, and that stream waits for the guard's
// when it ends, so an object made under a guard and dropped after it is freed after the
// guard's work, with no event per free.
void deallocate(void* p, int ordinal) noexcept {
  try {
    DeviceGuard guard(ordinal);
    GEBLAS_CUDA_CHECK_NO_THROW(cudaFreeAsync(p, stream(ordinal)));
  } catch (...) {
    // a destructor path: report and go on
    std::fprintf(stderr, "geblas: device free failed on cuda:%d\n", ordinal);
  }
}

void zero(void* p, std::size_t bytes, int ordinal) {
  DeviceGuard guard(ordinal);
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, stream(ordinal)));
}

// Copies are synchronous for the host: after copy_bytes returns, host memory may be
// reused (to host: the data is there).
void copy(void* dst, Device dd, const void* src, Device sd, std::size_t bytes) {
  const int ordinal = dd.is_cuda() ? dd.ordinal() : sd.ordinal();
  DeviceGuard guard(ordinal);
  cudaStream_t s = stream(ordinal);
  if (dd.is_cuda() && sd.is_cuda() && dd.ordinal() != sd.ordinal()) {
    GEBLAS_CUDA_CHECK(cudaStreamSynchronize(stream(sd.ordinal())));
    GEBLAS_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dd.ordinal(), src, sd.ordinal(), bytes, s));
  } else {
    GEBLAS_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s));
  }
  GEBLAS_CUDA_CHECK(cudaStreamSynchronize(s));
  count_transfer(dd, sd, bytes);
}

void synchronize(int ordinal) {
  DeviceGuard guard(ordinal);
  GEBLAS_CUDA_CHECK(cudaStreamSynchronize(stream(ordinal)));
}

// Sparse x dense has its own dispatcher and variants in src/cuda/spmm/.
void mxm_sparse_dense(const SpmmArgs& args) { spmm::mxm_sparse_dense(args); }

const Backend& table() {
  static const Backend t{.name = "cuda", GEBLAS_BACKEND_ENTRIES(GEBLAS_BACKEND_TABLE_FIELD).graph = &graph::kernels()};
  return t;
}

}  // namespace ops
}  // namespace cuda

const Backend* cuda_backend() { return &cuda::ops::table(); }

}  // namespace geblas::detail
