// The CUDA call checks of the GPU transports (NCCL, peer copies): an error becomes a
// CudaError naming the call; a guard makes a rank's device current for a scope.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "geblas/error.hpp"

namespace geblas::dist::detail {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw CudaError(std::string("dist: ") + what + ": " + cudaGetErrorString(e), static_cast<int>(e));
}

class Guard {
 public:
  explicit Guard(int dev) {
    cudaGetDevice(&prev_);
    cuda_check(cudaSetDevice(dev), "cudaSetDevice");
  }
  ~Guard() { cudaSetDevice(prev_); }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

 private:
  int prev_ = 0;
};

}  // namespace geblas::dist::detail
