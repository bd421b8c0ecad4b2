// Tensor-core sparse x dense products on row windows: what a user can see of the plan
// that the "tc_window" SpMM builds for a matrix, an explicit row reordering that makes
// windows denser, and the cost model's thresholds (for calibration benches).
//
// The plan splits A into windows of 16 rows, lists each window's distinct columns and
// sends each window either to tensor cores (mma over the window's condensed columns) or
// to CUDA cores (a warp per row over the CSR entries). It is built on the GPU the first
// time it is needed and cached with the matrix until the matrix changes.
//
// Which values run on tensor cores:
// - float plus_times in TF32 (mma m16n8k8; inputs rounded to 10 mantissa bits, relative
//   error near 1e-3 of sum |A||B|), and only when the caller sets Options::allow_tf32:
//   without it the dispatcher never picks a tensor-core variant for float;
// - half and bfloat16 plus_times (mma m16n8k16, fp32 accumulation). They need no
//   setting: the products of 16-bit values are exact in fp32 and the sums are fp32, the
//   same class of result as geblas's 16-bit CUDA-core path, rounded once when C is
//   stored. The dispatcher routes them to tc_window when the cost model predicts a gain.
#pragma once

#include <vector>

#include "geblas/config.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas {

// Facts about a matrix's window plan, routed for one number of columns N of B.
struct WindowPlanInfo {
  Index windows = 0;               // ceil(nrows / 16)
  Index tensor_core_windows = 0;   // windows the cost model sends to tensor cores
  Index cuda_core_windows = 0;     // windows with entries sent to CUDA cores
  Index empty_windows = 0;         // windows without entries (CUDA cores write their rows)
  Index tensor_core_nvals = 0;     // entries inside tensor-core windows
  Index tensor_core_columns = 0;   // condensed columns of tensor-core windows, padded to the mma K
  Index distinct_columns = 0;      // sum over windows of their distinct columns
  int k_step = 8;                  // the mma K the columns are padded to: 8 (TF32), 16 (half, bfloat16)
  double threshold = 0;            // the cost model's threshold the routing used (for A's type and N)
  double predicted_gain = 0;       // (tensor_core_nvals - threshold x tensor_core_columns) / nvals
  double build_ms = 0;             // wall time of building the plan and routing, synchronised
  bool cached = false;             // true when this call found the plan and routing already built
};

namespace detail {
GEBLAS_API WindowPlanInfo window_plan_info(const SparseStorage& A, Index n);
GEBLAS_API std::vector<Index> window_row_order(const SparseStorage& A);
}  // namespace detail

// The plan the tc_window variant uses for A (A on a CUDA device) when B has n columns,
// built now if it is not cached yet. Meant for benches and for users who want to see
// the routing (the threshold depends on A's type and on n, see tc_window_threshold).
template <Scalar T>
WindowPlanInfo window_plan_info(const SparseMatrix<T>& A, Index n = 128) {
  return detail::window_plan_info(A.storage(), n);
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

// The routing threshold of the cost model: a window goes to tensor cores when its
// entries per condensed column (padded to the mma K: 8 for TF32, 16 for half and
// bfloat16) reach this value. It is the cost of one condensed column on tensor cores
// in units of one entry on CUDA cores, one value per value class (TF32 for float; half
// and bfloat16 together) and per band of N (src/cuda/spmm/policy/tc_cost_model.cpp holds the table
// and says where each value comes from). `type` is A's type (float32, float16 or
// bfloat16; others throw InvalidValue), n the columns of B. The model is the CUDA
// backend's: in a build without CUDA these three throw NotImplemented.
GEBLAS_API double tc_window_threshold(TypeId type, Index n);
// A process-wide override of every class and band, meant for calibration benches
// (routings are cached per threshold); reset_tc_window_threshold() returns to the table.
GEBLAS_API void set_tc_window_threshold(double entries_per_column);
GEBLAS_API void reset_tc_window_threshold();

}  // namespace geblas
