// What the test process holds in cuda:0's stream-ordered memory pool (where geblas
// allocates), read after the device is idle, so a test can tell that a failed operation
// gave back everything it took.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace geblas::test {

inline void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

inline std::size_t pool_bytes_in_use(int device = 0) {
  cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  cudaMemPool_t pool;
  cuda_ok(cudaDeviceGetMemPool(&pool, device), "cudaDeviceGetMemPool");
  std::uint64_t used = 0;
  cuda_ok(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used), "cudaMemPoolGetAttribute");
  return static_cast<std::size_t>(used);
}

// The memory an allocation can still get: geblas's pool keeps freed blocks reserved (it
// does not hand them back to the driver at each synchronisation), so the pool is trimmed
// first and the driver's count then includes them.
inline std::size_t device_free_bytes(std::size_t* total = nullptr, int device = 0) {
  cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  cudaMemPool_t pool;
  cuda_ok(cudaDeviceGetMemPool(&pool, device), "cudaDeviceGetMemPool");
  cuda_ok(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo");
  std::size_t free_b = 0, total_b = 0;
  cuda_ok(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  if (total) *total = total_b;
  return free_b;
}

}  // namespace geblas::test
