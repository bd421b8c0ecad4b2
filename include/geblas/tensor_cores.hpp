// Tensor-core sparse x dense products on row windows: what a user can see of the plan
// that the "tc_window" SpMM builds for a matrix, an explicit row reordering that makes
// windows denser, and the cost model's threshold (for calibration benches).
//
// The plan splits A into windows of 16 rows, lists each window's distinct columns and
// sends each window either to tensor cores (TF32 mma over the window's condensed
// columns) or to CUDA cores (a warp per row over the CSR entries). It is built on the
// GPU the first time it is needed and cached with the matrix until the matrix changes.
#pragma once

#include <vector>

#include "geblas/config.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas {

// Facts about a matrix's window plan.
struct WindowPlanInfo {
  Index windows = 0;               // ceil(nrows / 16)
  Index tensor_core_windows = 0;   // windows the cost model sends to tensor cores
  Index cuda_core_windows = 0;     // windows with entries sent to CUDA cores
  Index empty_windows = 0;         // windows without entries (CUDA cores write their rows)
  Index tensor_core_nvals = 0;     // entries inside tensor-core windows
  Index distinct_columns = 0;      // sum over windows of their distinct columns
  double threshold = 0;            // the cost model's threshold the routing used
  double build_ms = 0;             // wall time of building the plan, synchronised
  bool cached = false;             // true when this call found the plan already built
};

namespace detail {
GEBLAS_API WindowPlanInfo window_plan_info(const SparseStorage& A);
GEBLAS_API std::vector<Index> window_row_order(const SparseStorage& A);
}  // namespace detail

// The plan the tc_window variant uses for A (A on a CUDA device), built now if it is
// not cached yet. Meant for benches and for users who want to see the routing.
template <Scalar T>
WindowPlanInfo window_plan_info(const SparseMatrix<T>& A) {
  return detail::window_plan_info(A.storage());
}

// A row order that groups rows with similar columns, so that 16-row windows have fewer
// distinct columns and more of them suit tensor cores. Returns perm with perm[i] = the
// old row placed at position i; geblas never applies it by itself. Apply it to A's rows
// (and map C's rows back: row i of the product is old row perm[i]). Lightweight: rows
// are sorted by two min-hashes of their column sets (rows sharing most columns likely
// share both), then by length, empty rows last; O(nvals + nrows log nrows) on the host.
template <Scalar T>
std::vector<Index> window_row_order(const SparseMatrix<T>& A) {
  return detail::window_row_order(A.storage());
}

// The tensor-core routing threshold: a window goes to tensor cores when its entries
// per 8-rounded distinct column reach this value. The default (4) comes from the H100
// times of the scalar-gather kernel (docs/PERFORMANCE.md, "Hybrid tensor-core SpMM"). Changing it is
// process-wide and meant for calibration; routings are cached per threshold.
GEBLAS_API double tc_window_threshold();
GEBLAS_API void set_tc_window_threshold(double entries_per_column);

}  // namespace geblas
