// What a launch of an nnz_split variant needs besides the kernel: the variant's shape, and
// the cached work list, fold counters and grid for a problem (built in nnz_split.cu; used
// by its own launches and by run-time semirings, src/cuda/jit/).
#pragma once

#include <memory>
#include <string_view>

#include "cuda/spmm/problem.hpp"

namespace geblas::detail::cuda::spmm {

struct NnzSplitShape {
  int steps;        // rounds of U loads per slot and unit
  int max_lanes;    // lanes per slot at most
  bool fused_fold;  // pieces folded inside the kernel (arrival counters)
  bool row_wise;    // the kernel's RowWise walk
  bool fit_waves;   // unit size fitted to the resident warps
};
// The shape of the nnz_split variant called `variant`; false for other names.
bool nnz_split_shape(std::string_view variant, NnzSplitShape& out);

struct NnzSplitLaunch {
  const void* units = nullptr;     // nnz::Unit[unit_count]
  const void* cut_rows = nullptr;  // nnz::CutRow[cut_count]
  Index unit_count = 0, cut_count = 0, piece_count = 0;
  unsigned* counters = nullptr;  // fused fold: arrival counters; null: a second kernel folds
  int log_w = 0;
  unsigned grid_x = 1, grid_y = 1;
  std::shared_ptr<const void> plan, keep;  // hold the cached list and counters while in use
};
// The launch of `shape` with V = v values per lane for p (p.matrix set).
NnzSplitLaunch nnz_split_prepare(const SpmmProblem& p, const NnzSplitShape& shape, int v);

}  // namespace geblas::detail::cuda::spmm
