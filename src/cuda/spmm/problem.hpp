// The sparse x dense product as the CUDA SpMM variants see it (plain pointers, sizes,
// strides, the runtime type and semiring), and the life cycle every variant follows:
// can_implement(problem), workspace_bytes(problem), run(problem, workspace, stream).
// The dispatcher, the tests and the bench reach every variant through this interface.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "core/derived_cache.hpp"
#include "geblas/semiring.hpp"
#include "geblas/types.hpp"

namespace geblas::detail::cuda::spmm {

// C (m x n) = A (m x k, CSR) (+).(x) B (k x n); B and C in either layout, element (i, j)
// of X at X[i * row_stride + j * col_stride]. With `accumulate`, rows of A holding
// entries give C = C (+) T and empty rows leave C alone.
struct SpmmProblem {
  Index m = 0, k = 0, n = 0, nnz = 0;
  const Index* row_offsets = nullptr;  // m + 1 entries, 64-bit
  const ColIndex* col_indices = nullptr;
  const void* values = nullptr;
  const void* B = nullptr;
  Index b_row_stride = 0, b_col_stride = 1;
  void* C = nullptr;
  Index c_row_stride = 0, c_col_stride = 1;
  TypeId type = TypeId::float32;
  SemiringId semiring = SemiringId::plus_times;
  bool accumulate = false;
  int device = 0;
  const RowStats* stats = nullptr;  // A's cached row statistics; null when unknown
  // A itself, for variants that keep a plan in its derived cache (derived_cache.hpp).
  const SparseStorage* matrix = nullptr;
  bool allow_tf32 = false;  // Options::allow_tf32: float may run on TF32 tensor cores

  bool b_row_major() const { return b_col_stride == 1; }
  bool c_row_major() const { return c_col_stride == 1; }
  std::size_t value_bytes() const { return size_of(type); }  // stored in A, B and C
  // The type the kernels compute in (partial rows in workspaces): float for the 16-bit types.
  std::size_t compute_bytes() const { return is_16bit_float(type) ? sizeof(float) : size_of(type); }
};

// One kernel variant. `can_implement` returns true or sets `why` to the reason it
// cannot run the problem; `run` may only be called after it returned true, with at
// least workspace_bytes() of device memory (any content) in `workspace`.
struct SpmmVariant {
  const char* name;     // the algorithm, e.g. "row_split"
  const char* summary;  // one line for listings and traces
  bool (*can_implement)(const SpmmProblem& p, std::string* why);
  std::size_t (*workspace_bytes)(const SpmmProblem& p);
  void (*run)(const SpmmProblem& p, void* workspace, cudaStream_t stream);
};

// Every registered variant, in registry order (registry.cpp is the one place to add one).
std::span<const SpmmVariant* const> variants();
// The variant called `name`, or null.
const SpmmVariant* find_variant(std::string_view name);

// The variants, one getter per algorithm file.
const SpmmVariant& crc_variant();
const SpmmVariant& cwm_variant();
const SpmmVariant& row_split_variant();
const SpmmVariant& merge_path_variant();
const SpmmVariant& row_pieces_variant();
const SpmmVariant& row_group_variant();
const SpmmVariant& nnz_split_variant();
const SpmmVariant& nnz_split_fused_variant();
const SpmmVariant& nnz_split_long_variant();
const SpmmVariant& nnz_split_line_variant();
const SpmmVariant& nnz_split_line_long_variant();
const SpmmVariant& nnz_split_rows_long_variant();
const SpmmVariant& nnz_split_long_waves_variant();
const SpmmVariant& row_pieces_long_variant();
const SpmmVariant& row_pieces_wide_variant();

// The TF32 tensor-core variants (tc_window_variant.cpp). They are not exact in fp32, so
// they are listed apart (tf32_variants) from the variants every exact test enumerates;
// find_variant and the dispatcher (only with allow_tf32) reach them.
const SpmmVariant& tc_window_variant();
const SpmmVariant& tc_window_all_variant();
std::span<const SpmmVariant* const> tf32_variants();

}  // namespace geblas::detail::cuda::spmm
