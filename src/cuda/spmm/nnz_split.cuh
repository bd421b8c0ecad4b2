// The nnz_split family's launcher (the algorithm is described in nnz_split.cu): the cached
// work list, fold counters and grid for a problem (built in nnz_split.cu), and the
// launches, for the built-in kernels and run-time semirings' alike (src/cuda/jit/).
#pragma once

#include <memory>

#include "cuda/spmm/early_launch.cuh"
#include "cuda/spmm/nnz_split_kernel.cuh"
#include "cuda/spmm/piece_fold.cuh"
#include "cuda/spmm/problem.hpp"

namespace geblas::detail::cuda::spmm {

struct NnzSplitLaunch {
  const void* units = nullptr;     // nnz::Unit[unit_count]
  const void* cut_rows = nullptr;  // nnz::CutRow[cut_count]
  Index unit_count = 0, cut_count = 0, piece_count = 0;
  unsigned* counters = nullptr;  // fused fold: arrival counters; null: a second kernel folds
  int log_w = 0;
  unsigned grid_x = 1, grid_y = 1;
  std::shared_ptr<const void> plan, keep;  // hold the cached list and counters while in use
};
// The launch of `shape` (the variant's) with V = v values per lane for p (p.matrix set).
NnzSplitLaunch nnz_split_prepare(const SpmmProblem& p, const Shape& shape, int v);

// Kernel 0 is nnz::nnz_split_kernel (taking op, ops, log_w, units, unit_count, partial,
// cut_rows, counters), kernel 1 the fold of cut rows, fold_pieces over nnz::CutRow (when
// the shape does not fold inside the kernel). `workspace` holds the variant's
// workspace_bytes: a partial row of the compute type per piece.
template <class Kernels>
void launch_nnz_split(const SpmmVariant& v, const SpmmProblem& p, int vec, const Kernels& k, void* workspace,
                      cudaStream_t stream) {
  using T = typename Kernels::Compute;
  const NnzSplitLaunch l = nnz_split_prepare(p, v.shape, vec);
  if (l.unit_count == 0) return;
  T* const partial = static_cast<T*>(workspace);
  const auto* const units = static_cast<const nnz::Unit*>(l.units);
  const auto* const cut_rows = static_cast<const nnz::CutRow*>(l.cut_rows);
  const int log_w = l.log_w;
  const Index unit_count = l.unit_count;
  unsigned* const counters = l.counters;
  k.template launch<0>(Start::early, dim3(l.grid_x, l.grid_y), nnz::NnzSplitPolicy::block_threads, stream, log_w, units,
                       unit_count, partial, cut_rows, counters);
  if (!counters) launch_fold<1>(k, cut_rows, l.cut_count, static_cast<const T*>(partial), stream);
}

}  // namespace geblas::detail::cuda::spmm
