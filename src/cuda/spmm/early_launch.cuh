// Kernel launches, plain or with programmatic stream serialization (programmatic dependent launch), the
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

#include <tuple>
#include <utility>

#include "cuda/check.cuh"

namespace geblas::detail::cuda::spmm {

// How a kernel starts: early (programmatic stream serialization, for the kernels that call
// wait_for_prior_grid first) or after the stream's previous kernel (the others).
enum class Start { early, serialized };

template <class... Params, class... Args>
void launch_kernel(Start start, void (*kernel)(Params...), dim3 grid, unsigned block_threads, cudaStream_t stream,
                   Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(block_threads);
  config.stream = stream;
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &early;
  config.numAttrs = start == Start::early ? 1 : 0;
  GEBLAS_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

template <class... Params, class... Args>
void launch_early(void (*kernel)(Params...), dim3 grid, unsigned block_threads, cudaStream_t stream, Args&&... args) {
  launch_kernel(Start::early, kernel, grid, block_threads, stream, std::forward<Args>(args)...);
}

// The kernels a family's launcher starts, as compiled into geblas: kernel I of the
// family's launch order takes (op, ops, args...). Run-time semirings pass their loaded
// functions through the same interface (src/cuda/jit/spmm_jit.cu), so every family has
// one launcher for both. A launcher passes each argument in its kernel parameter's exact
// type: a loaded function gets the bytes as they are.
template <class Ops, class Op, class... Kernels>
struct BuiltKernels {
  using Compute = typename Ops::T;  // partial rows and carries in workspaces
  Op op;
  Ops ops;
  std::tuple<Kernels...> kernels;

  template <int I, class... Args>
  void launch(Start start, dim3 grid, unsigned block_threads, cudaStream_t stream, const Args&... args) const {
    launch_kernel(start, std::get<I>(kernels), grid, block_threads, stream, op, ops, args...);
  }
};

template <class Ops, class Op, class... Kernels>
BuiltKernels<Ops, Op, Kernels...> built_kernels(const Op& op, Ops ops, Kernels... kernels) {
  return {op, ops, {kernels...}};
}

}  // namespace geblas::detail::cuda::spmm
