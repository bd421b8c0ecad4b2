// Shared pieces of the GPU traversals (bfs.cu, sssp.cu): the launch policy of the
// "one block loops while the work is small, the grid takes a step per launch while it
// is large" scheme, and warp-level helpers.
//
// Scheme: the traversal state (frontier sizes, the level or round, the direction) lives
// in device memory. A single-block kernel runs many steps in a loop, separated by
// __syncthreads, while each step is small (a road graph's whole BFS is one launch);
// when a step is large it stops and the host's next launches are grid-wide step kernels,
// the last block of each to finish advancing the state and deciding where the next step
// runs. Kernels whose step is not theirs return at once, so the host can queue a batch
// of them and synchronise once per batch to read the state. A step stays in the block
// while its frontier has at most small_vertices vertices and small_edges out-edges.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/check.cuh"
#include "geblas/types.hpp"

namespace geblas::detail::cuda::graph {

struct TraversalLaunchPolicy {
  // The single-block loop: 1024 threads (32 warps, one warp per frontier vertex) on one
  // SM. A step with at most small_vertices frontier vertices and small_edges frontier
  // edges stays there: 4096 vertices are 128 per warp, about the cost of two grid-wide
  // launches, so a grid launch would not pay below that. Chosen by that estimate, not
  // measured yet (no GPU where this was written).
  static constexpr int block_threads = 1024;
  static constexpr Index small_vertices = 4096;
  static constexpr Index small_edges = 65536;
  // Grid-wide steps: 256 threads per block, blocks_per_sm blocks on every SM, grid-
  // stride loops over the work; the host queues step_batch steps per synchronisation.
  static constexpr int grid_threads = 256;
  static constexpr int blocks_per_sm = 8;
  static constexpr int step_batch = 8;
};

// The grid of the step kernels for the current device.
inline unsigned step_grid() {
  int device = 0, sms = 0;
  GEBLAS_CUDA_CHECK(cudaGetDevice(&device));
  GEBLAS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return static_cast<unsigned>((sms > 0 ? sms : 1) * TraversalLaunchPolicy::blocks_per_sm);
}

// Called by every thread of every block at the end of a grid step: true in thread 0 of
// the block that finishes last, after it has reset the count for the next step. Every
// block's writes of the step are visible to that thread (fence before the count, fence
// after it), so it can advance the traversal state, which every block has read by then.
__device__ inline bool last_block_of_step(unsigned* blocks_done) {
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!(last && threadIdx.x == 0)) return false;
  __threadfence();
  *blocks_done = 0;
  return true;
}

__device__ inline unsigned long long warp_sum(unsigned long long x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffffu, x, offset);
  return x;  // complete in lane 0
}

}  // namespace geblas::detail::cuda::graph
