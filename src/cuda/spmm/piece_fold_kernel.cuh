// The fold of cut rows (piece_fold.cuh describes it) as a kernel template only, so that
// NVRTC can compile it for run-time semirings (src/cuda/jit/) from this same file.
#pragma once

#include "cuda/spmm/device_ops.cuh"

namespace geblas::detail::cuda::spmm {

struct PieceFoldPolicy {
  static constexpr int threads = 256;
  static constexpr int max_groups = 8;
};

// Cut: any struct with row, first_piece and pieces (>= 1).
template <class Ops, bool RowMajor, class Cut>
__global__ void __launch_bounds__(PieceFoldPolicy::threads)
    fold_pieces(Operands<typename Ops::Stored, RowMajor> op, Ops ops, const Cut* __restrict__ cut,
                const typename Ops::T* __restrict__ partial) {
  using T = typename Ops::T;
  using Stored = typename Ops::Stored;
  constexpr int threads = PieceFoldPolicy::threads;
  __shared__ T sums[threads];
  const Cut r = cut[blockIdx.x];
  int groups = 1;
  while (groups * 2 <= r.pieces && groups < PieceFoldPolicy::max_groups) groups *= 2;
  const int width = threads / groups;
  const int g = static_cast<int>(threadIdx.x) / width, c = static_cast<int>(threadIdx.x) % width;
  const T* row = partial + static_cast<Index>(r.first_piece) * op.n;
  for (Index j0 = 0; j0 < op.n; j0 += width) {
    const Index j = j0 + c;
    const bool in = j < op.n;
    T acc{};
    if (in) {
      acc = row[static_cast<Index>(g) * op.n + j];  // g < pieces: every group has a piece
#pragma unroll 4
      for (int q = g + groups; q < r.pieces; q += groups) acc = ops.add(acc, row[static_cast<Index>(q) * op.n + j]);
    }
    sums[threadIdx.x] = acc;
    __syncthreads();
    if (g == 0 && in) {
      for (int h = 1; h < groups; ++h) acc = ops.add(acc, sums[h * width + c]);
      Stored* out = op.c_at(r.row, j);
      *out = narrow<Stored>(op.accumulate ? ops.add(widen<T>(*out), acc) : acc);
    }
    __syncthreads();  // sums is written again for the next columns
  }
}

}  // namespace geblas::detail::cuda::spmm
