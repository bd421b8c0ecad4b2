// The fold of cut rows (piece_fold.cuh describes it) as a kernel template only, so that
// NVRTC can compile it for run-time semirings (src/cuda/jit/) from this same file.
#pragma once

#include "cuda/spmm/device_ops.cuh"
#include "cuda/spmm/shared_access.cuh"

namespace geblas::detail::cuda::spmm {

struct PieceFoldPolicy {
  static constexpr int threads = 256;
  static constexpr int max_groups = 8;
  // Columns each thread adds at once (width apart, so each load stays coalesced across
  // the group): independent chains whose loads are in flight together. With one column a
  // thread, the critical block of musae-crocodile at N = 128 (a hub of 111 pieces) walked
  // its four column chunks one after another: the fold took 17.5 us beside the product's
  // 29 us, and its busiest SM was 2.4x the mean (H200).
  static constexpr int columns_per_thread = 4;
};

// Cut: any struct with row, first_piece and pieces (>= 1).
template <class Ops, bool RowMajor, class Cut>
__global__ void __launch_bounds__(PieceFoldPolicy::threads)
    fold_pieces(Operands<typename Ops::Stored, RowMajor> op, Ops ops, const Cut* __restrict__ cut,
                const typename Ops::T* __restrict__ partial) {
  using T = typename Ops::T;
  using Stored = typename Ops::Stored;
  constexpr int threads = PieceFoldPolicy::threads;
  constexpr int tile = PieceFoldPolicy::columns_per_thread;
  __shared__ T sums[tile * threads];
  const SharedArray<T> shared_sums = shared_array(sums);
  wait_for_prior_grid();  // launched early (programmatic dependent launch): the partial rows come from the product
  const Cut r = cut[blockIdx.x];
  int groups = 1;
  while (groups * 2 <= r.pieces && groups < PieceFoldPolicy::max_groups) groups *= 2;
  const int width = threads / groups;
  const int g = static_cast<int>(threadIdx.x) / width, c = static_cast<int>(threadIdx.x) % width;
  const T* row = partial + static_cast<Index>(r.first_piece) * op.n;
  for (Index j0 = 0; j0 < op.n; j0 += static_cast<Index>(width) * tile) {
    T acc[tile];
#pragma unroll
    for (int t = 0; t < tile; ++t) {
      const Index j = j0 + c + static_cast<Index>(t) * width;
      acc[t] = j < op.n ? row[static_cast<Index>(g) * op.n + j] : T{};  // g < pieces: every group has a piece
    }
#pragma unroll 2
    for (int q = g + groups; q < r.pieces; q += groups) {
      const T* piece = row + static_cast<Index>(q) * op.n;
#pragma unroll
      for (int t = 0; t < tile; ++t) {
        const Index j = j0 + c + static_cast<Index>(t) * width;
        if (j < op.n) acc[t] = ops.add(acc[t], piece[j]);
      }
    }
#pragma unroll
    for (int t = 0; t < tile; ++t) shared_sums.store(t * threads + static_cast<int>(threadIdx.x), acc[t]);
    __syncthreads();
    if (g == 0) {
#pragma unroll
      for (int t = 0; t < tile; ++t) {
        const Index j = j0 + c + static_cast<Index>(t) * width;
        if (j >= op.n) continue;
        T sum = acc[t];
        for (int h = 1; h < groups; ++h) sum = ops.add(sum, shared_sums.load(t * threads + h * width + c));
        Stored* out = op.c_at(r.row, j);
        *out = narrow<Stored>(op.accumulate ? ops.add(widen<T>(*out), sum) : sum);
      }
    }
    __syncthreads();  // sums is written again for the next columns
  }
}

}  // namespace geblas::detail::cuda::spmm
