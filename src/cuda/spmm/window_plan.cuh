// The row-window plan of the tensor-core SpMM (tc_window): A's rows cut into windows
// of 16 (the M of mma.m16n8k8), each window's distinct columns in order (its condensed
// column map), each entry's position in that map, and the cost model that routes each
// window to tensor cores or CUDA cores. Built on the GPU and cached with the matrix.
//
// The idea of condensing a window's non-zero columns so that a tensor-core tile covers
// only columns that hold entries comes from TC-GNN; routing whole windows between the
// two kinds of core (never splitting one window between them) follows HC-SpMM.
#pragma once

#include <memory>

#include "geblas/detail/storage.hpp"
#include "geblas/tensor_cores.hpp"

namespace geblas::detail::cuda {

struct WindowPolicy {
  static constexpr int window_rows = 16;  // mma.m16n8k8: one window = the 16 rows of an A tile
  static constexpr int k_step = 8;        // mma K: condensed columns are padded to multiples of 8
  static constexpr int block = 256;       // plan kernels: plain element-wise work, any size does
  // Work is cut so that no block or warp runs a long serial chain while the GPU idles
  // (a hub row of 2600 entries made one warp take 0.6 ms on the H200, run 1 of
  // bench_spmm_hybrid): a tensor-core window with more distinct columns is split into
  // segments of this many condensed columns, and a CUDA-core row into pieces of this
  // many entries; the parts of one row are summed with atomics into C.
  static constexpr int segment_columns = 256;
  static constexpr int piece_entries = 128;
};

// The cost model. A window of `nvals` entries over `ncols` distinct columns costs
// about tc_per_column * ceil8(ncols) on tensor cores (one gathered row of B per
// condensed column, every column of the tile computed whether it holds an entry or
// not) and cc_per_entry * nvals on CUDA cores (one gathered row of B per entry). Both
// grow with N in the same way, so the choice does not depend on N and the plan is
// built once. The ratio of the two constants is the threshold of
// geblas::tc_window_threshold() (a first estimate, see src/core/tensor_cores.cpp).
__host__ __device__ inline bool window_goes_to_tensor_cores(int nvals, int ncols, double threshold) {
  if (nvals == 0) return false;  // an empty window only writes identities: CUDA cores
  const int padded = (ncols + WindowPolicy::k_step - 1) / WindowPolicy::k_step * WindowPolicy::k_step;
  return static_cast<double>(nvals) >= threshold * static_cast<double>(padded);
}

// Independent of the routing: the windows' condensed column maps.
struct WindowPlan {
  Index nrows = 0;
  Index nvals = 0;
  Index windows = 0;
  Index distinct_columns = 0;
  RawBuffer window_col_offsets;  // int32 [windows + 1]: where each window's columns start
  RawBuffer window_cols;         // int32 [distinct_columns] (room for nvals): condensed column -> column of A
  RawBuffer local_cols;          // int32 [nvals]: each entry's condensed column in its window
  double build_ms = 0;
};

// The routing of the windows under one threshold, as lists of work items. A threshold
// of 0 sends every window with entries to tensor cores (the tc_window_all variant).
struct WindowRoute {
  double threshold = 0;
  Index tc_windows = 0;
  Index cc_windows = 0;
  Index empty_windows = 0;
  Index tc_nvals = 0;
  Index tc_columns = 0;  // condensed columns of the tensor-core windows, each rounded up to 8
  Index tc_items = 0, cc_items = 0, zero_rows = 0;
  RawBuffer tc_item_list;   // int2 [tc_items]: (window, segment of its condensed columns)
  RawBuffer cc_item_list;   // int2 [cc_items]: (row, piece of its entries), rows of the other windows
  RawBuffer zero_row_list;  // int32 [zero_rows]: rows summed from several items (zeroed first)
  double build_ms = 0;
};

// Both build on A's device with one host synchronisation each and are cached in A's derived cache (dropped when A changes).
// They need A.nvals < 2^31 (int32 positions) and throw NotImplemented beyond.
std::shared_ptr<const WindowPlan> cached_window_plan(const SparseStorage& A, bool* was_cached = nullptr);
std::shared_ptr<const WindowRoute> cached_window_route(const SparseStorage& A, const WindowPlan& plan,
                                                       double threshold, bool* was_cached = nullptr);

// The backend's window_plan entry.
WindowPlanInfo window_plan_info(const SparseStorage& A);

}  // namespace geblas::detail::cuda
