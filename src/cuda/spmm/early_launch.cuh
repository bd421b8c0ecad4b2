// Launches with programmatic stream serialization (programmatic dependent launch), the
// way geblas launches its SpMM kernels. The kernel's blocks may be scheduled while the
// stream's previous kernel finishes, so the launch gap (a few microseconds: the size of a
// whole small product, which a loop of products over a small graph pays every call)
// overlaps that kernel's tail. Every kernel launched this way calls wait_for_prior_grid()
// (device_ops.cuh) before it touches memory, so it sees everything the previous kernel
// wrote, as after a plain launch; it calls allow_dependent_launch() so that the next
// kernel may do the same. The launch also costs the host less: on an H100, 2.7 us against
// 3.2-3.35 us for <<< >>> (bench_spmm's floor table).
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "cuda/check.cuh"

namespace geblas::detail::cuda::spmm {

template <class... Params, class... Args>
void launch_early(void (*kernel)(Params...), dim3 grid, unsigned block_threads, cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(block_threads);
  config.stream = stream;
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &early;
  config.numAttrs = 1;
  GEBLAS_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace geblas::detail::cuda::spmm
