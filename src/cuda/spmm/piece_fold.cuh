// The fold of cut rows, shared by row_pieces and nnz_split: the pieces of a long row leave
// partial rows in the workspace (piece q of a row at row first_piece + q, N values of the
// compute type each), and this kernel adds them with the semiring's add and writes C.
// One block per cut row. Its threads form G groups of threads / G columns, G the largest
// power of two not above the row's pieces (at most max_groups): group g adds pieces g,
// g + G, g + 2G, ... in order, then group 0 adds the G group sums in group order. So a
// hub row's dependent adds are 1/G of a one-thread-per-column fold's (the 111 pieces of
// musae-crocodile's 3546-entry row at N >= 128 made that fold a third of row_pieces' time:
// docs/notes/spmm-ncu.md), and rows of few pieces use every thread on columns.
// The order of the adds depends only on the row's pieces and is the same on every call;
// for plus over floats it is not the left-to-right order (the tests' rounding bound holds).
// The kernel is in piece_fold_kernel.cuh (NVRTC compiles it for run-time semirings too);
// this file launches it, for the built-in kernels and run-time semirings' alike.
#pragma once

#include "cuda/spmm/early_launch.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/piece_fold_kernel.cuh"

namespace geblas::detail::cuda::spmm {

// Kernel I of `k` is fold_pieces<Ops, RowMajor, Cut> (taking op, ops, cut, partial).
template <int I, class Kernels, class Cut>
void launch_fold(const Kernels& k, const Cut* cut, Index cut_count, const typename Kernels::Compute* partial,
                 cudaStream_t stream) {
  if (cut_count == 0) return;
  // Launched early behind the product (the kernel waits for it before reading the partial
  // rows): the fold starts without the launch gap.
  k.template launch<I>(Start::early, dim3(grid_limit(cut_count)), PieceFoldPolicy::threads, stream, cut, partial);
}

}  // namespace geblas::detail::cuda::spmm
