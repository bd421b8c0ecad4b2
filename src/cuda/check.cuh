// Every CUDA runtime call goes through GEBLAS_CUDA_CHECK, which turns a failure into a
// geblas::CudaError (OutOfMemory for allocation failures) carrying the call, the file
// and line, and CUDA's own message. Destructors use GEBLAS_CUDA_CHECK_NO_THROW.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "geblas/error.hpp"

namespace geblas::detail::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  cudaGetLastError();  // clear the sticky-free error state so the next call starts clean
  const std::string what = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                           cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
  if (e == cudaErrorMemoryAllocation) throw OutOfMemory(what, 0);
  throw CudaError(what, static_cast<int>(e));
}

}  // namespace geblas::detail::cuda

#define GEBLAS_CUDA_CHECK(call)                                                         \
  do {                                                                                 \
    cudaError_t geblas_cuda_status_ = (call);                                          \
    if (geblas_cuda_status_ != cudaSuccess)                                            \
      ::geblas::detail::cuda::throw_cuda_error(geblas_cuda_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define GEBLAS_CUDA_CHECK_NO_THROW(call)                                                \
  do {                                                                                 \
    cudaError_t geblas_cuda_status_ = (call);                                          \
    if (geblas_cuda_status_ != cudaSuccess)                                            \
      std::fprintf(stderr, "geblas: %s failed: %s\n", #call, cudaGetErrorString(geblas_cuda_status_)); \
  } while (0)

// After a kernel launch: launch-configuration errors surface here.
#define GEBLAS_CUDA_CHECK_LAUNCH() GEBLAS_CUDA_CHECK(cudaGetLastError())
