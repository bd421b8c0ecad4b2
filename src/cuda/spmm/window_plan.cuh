// The row-window plan of the tensor-core SpMM (tc_window): A's rows cut into windows
// of 16 (the M of mma.m16n8k8 and m16n8k16), each window's distinct columns in order (its condensed
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
  static constexpr int window_rows = 16;  // mma M: one window = the 16 rows of an A tile
  // mma K: condensed columns are padded to multiples of it (8 for TF32 m16n8k8, 16 for
  // half and bfloat16 m16n8k16).
  static constexpr int k_step_tf32 = 8;
  static constexpr int k_step_16bit = 16;
  static constexpr int block = 256;       // plan kernels: plain element-wise work, any size does
  // Work is cut so that no block or warp runs a long serial chain while the GPU idles
  // (a hub row of 2600 entries made one warp take 0.6 ms on the H200, run 1 of
  // bench_spmm_hybrid): a tensor-core window with more distinct columns is split into
  // segments of this many condensed columns, and a CUDA-core row into pieces of this
  // many entries; the parts of one row are summed with atomics into C.
  static constexpr int segment_columns = 256;
  static constexpr int piece_entries = 128;
};

inline int tc_k_step(TypeId type) {
  return type == TypeId::float32 ? WindowPolicy::k_step_tf32 : WindowPolicy::k_step_16bit;
}

// The cost model. A window of `nvals` entries over `ncols` distinct columns costs
// about tc_per_column(N) * (ncols padded to the mma K) on tensor cores (one gathered row
// of B per condensed column, every column of the tile computed whether it holds an
// entry or not) and cc_per_entry(N) * nvals on CUDA cores (one gathered row of B per
// entry). Their ratio is the threshold, geblas::tc_window_threshold(type, N): one value
// per value class and band of N (src/cuda/spmm/policy/tc_cost_model.cpp holds them and their
// sources). The window structure (the plan) does not depend on N; the routing is built
// and cached per (threshold, K).
__host__ __device__ inline bool window_goes_to_tensor_cores(int nvals, int ncols, double threshold, int k_step) {
  if (nvals == 0) return false;  // an empty window only writes identities: CUDA cores
  const int padded = (ncols + k_step - 1) / k_step * k_step;
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

// The routing of the windows under one threshold and K, as lists of work items. A
// threshold of 0 sends every window with entries to tensor cores (tc_window_all).
struct WindowRoute {
  double threshold = 0;
  int k_step = 8;
  Index tc_windows = 0;
  Index cc_windows = 0;
  Index empty_windows = 0;
  Index tc_nvals = 0;
  Index tc_columns = 0;  // condensed columns of the tensor-core windows, each padded to k_step
  Index tc_items = 0, cc_items = 0, zero_rows = 0;
  RawBuffer tc_item_list;   // int2 [tc_items]: (window, segment of its condensed columns)
  RawBuffer cc_item_list;   // int2 [cc_items]: (row, piece of its entries), rows of the other windows
  RawBuffer zero_row_list;  // int32 [zero_rows]: rows summed from several items (zeroed first)
  // int32 [nrows]: a row's position in zero_row_list, -1 for rows one item computes.
  // The 16-bit kernels sum split rows in an fp32 scratch row of that slot and round
  // them into C once at the end.
  RawBuffer row_slot;
  double build_ms = 0;
};

// Both build on A's device with one host synchronisation each and are cached in A's derived cache (dropped when A changes).
// They need A.nvals < 2^31 (int32 positions) and throw NotImplemented beyond.
std::shared_ptr<const WindowPlan> cached_window_plan(const SparseStorage& A, bool* was_cached = nullptr);
std::shared_ptr<const WindowRoute> cached_window_route(const SparseStorage& A, const WindowPlan& plan,
                                                       double threshold, int k_step, bool* was_cached = nullptr);

// A's plan routed for its type and B with n columns (declared for the core, with its
// contract, in core/cuda_tensor_cores.hpp).
WindowPlanInfo window_plan_info(const SparseStorage& A, Index n);

}  // namespace geblas::detail::cuda
