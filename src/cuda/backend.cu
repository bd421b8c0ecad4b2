// The CUDA backend's table: device memory on a per-device stream, copies in every
// direction, and the entries of src/cuda/ops and src/cuda/spmm.
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

cudaStream_t own_stream(int ordinal) {
  static std::mutex mutex;
  static std::vector<cudaStream_t> streams;
  std::lock_guard<std::mutex> lock(mutex);
  if (streams.empty()) streams.assign(static_cast<std::size_t>(cuda_device_count_impl()), nullptr);
  cudaStream_t& s = streams.at(static_cast<std::size_t>(ordinal));
  if (!s) {
    DeviceGuard guard(ordinal);
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
  }
  return s;
}

cudaStream_t stream(int ordinal) {
  const StreamOverride o = stream_override(ordinal);
  return o.set ? static_cast<cudaStream_t>(o.stream) : own_stream(ordinal);
}

bool on_own_stream(int ordinal) {
  const StreamOverride o = stream_override(ordinal);
  return !o.set || static_cast<cudaStream_t>(o.stream) == own_stream(ordinal);
}

void read_to_host(void* host, const void* device_ptr, std::size_t bytes, cudaStream_t s) {
  int ordinal = 0;
  GEBLAS_CUDA_CHECK(cudaGetDevice(&ordinal));
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(host, device_ptr, bytes, cudaMemcpyDeviceToHost, s));
  GEBLAS_CUDA_CHECK(cudaStreamSynchronize(s));
  count_transfer(Device::cpu(), Device::cuda(ordinal), bytes);
}

DeviceGuard::DeviceGuard(int ordinal) {
  GEBLAS_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != ordinal) GEBLAS_CUDA_CHECK(cudaSetDevice(ordinal));
}
DeviceGuard::~DeviceGuard() { GEBLAS_CUDA_CHECK_NO_THROW(cudaSetDevice(previous_)); }

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

void* allocate(std::size_t bytes, int ordinal, void** stream_out) {
  DeviceGuard guard(ordinal);
  const cudaStream_t s = stream(ordinal);
  if (stream_out) *stream_out = s;
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
    // the H100 run of 2026-11-23 14:11 found only 8.6 MB free on the device right after
    // a failed 160 GB request (test_reliability_oom_gpu), most likely memory the pool
    // took on the way to failing.
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

void deallocate(void* p, int ordinal, void* allocated_on) noexcept {
  try {
    DeviceGuard guard(ordinal);
    const cudaStream_t now = stream(ordinal);
    const auto before = static_cast<cudaStream_t>(allocated_on);
    if (before != now) {
      // The memory may still be read by work queued on the stream that allocated it (an
      // object made under a guard, dropped after it) as well as on this thread's current
      // stream: the free waits for both. Work on any other stream is the caller's to order
      // (<geblas/stream.hpp>).
      cudaEvent_t done = nullptr;
      GEBLAS_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
      const cudaError_t recorded = cudaEventRecord(done, before);
      if (recorded == cudaSuccess) GEBLAS_CUDA_CHECK_NO_THROW(cudaStreamWaitEvent(now, done, 0));
      else GEBLAS_CUDA_CHECK_NO_THROW(recorded);
      GEBLAS_CUDA_CHECK_NO_THROW(cudaEventDestroy(done));
    }
    GEBLAS_CUDA_CHECK_NO_THROW(cudaFreeAsync(p, now));
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
