// The fold of cut rows, shared by row_pieces and nnz_split: the pieces of a long row leave
// partial rows in the workspace (piece q of a row at row first_piece + q, N values of the
// compute type each), and this kernel adds them with the semiring's add and writes C.
// One block per cut row. Its threads form G groups of threads / G columns, G the largest
// power of two not above the row's pieces (at most max_groups): group g adds pieces g,
// g + G, g + 2G, ... in order, then group 0 adds the G group sums in group order. So a
// hub row's dependent adds are 1/G of a one-thread-per-column fold's (the 111 pieces of
// musae-crocodile's 3546-entry row at N >= 128 made that fold a third of row_pieces' time:
// docs/notes/spmm-ncu-2026-11-25.md), and rows of few pieces use every thread on columns.
// The order of the adds depends only on the row's pieces and is the same on every call;
// for plus over floats it is not the left-to-right order (the tests' rounding bound holds).
#pragma once

#include "cuda/check.cuh"
#include "cuda/spmm/ops.cuh"

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

template <class Ops, bool RowMajor, class Cut>
void launch_fold(const Operands<typename Ops::Stored, RowMajor>& op, Ops ops, const Cut* cut, Index cut_count,
                 const typename Ops::T* partial, cudaStream_t stream) {
  if (cut_count == 0) return;
  fold_pieces<Ops, RowMajor, Cut><<<grid_limit(cut_count), PieceFoldPolicy::threads, 0, stream>>>(op, ops, cut, partial);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

}  // namespace geblas::detail::cuda::spmm
