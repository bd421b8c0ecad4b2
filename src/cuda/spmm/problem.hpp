// The sparse x dense product as the CUDA SpMM variants see it (plain pointers, sizes,
// strides, the runtime type and semiring), and the life cycle every variant follows:
// can_implement(problem), workspace_bytes(problem), run(problem, workspace, stream).
// The dispatcher, the tests and the bench reach every variant through this interface;
// the variants themselves are the table in variants.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

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
  // A run-time semiring's kernels (src/cuda/jit/): `semiring` is not read, and the
  // variants take run-time semirings' vector rule (runtime_vector, ops.cuh).
  bool runtime_semiring = false;

  bool b_row_major() const { return b_col_stride == 1; }
  bool c_row_major() const { return c_col_stride == 1; }
  std::size_t value_bytes() const { return size_of(type); }  // stored in A, B and C
  // The type the kernels compute in (partial rows in workspaces): float for the 16-bit types.
  std::size_t compute_bytes() const { return is_16bit_float(type) ? sizeof(float) : size_of(type); }
};

// The families of variants: one host launcher each (its `<family>_family` FamilyOps, in
// the family's .cu file), shared by the built-in kernels and by run-time semirings'
// (src/cuda/jit/spmm_jit.cu). X(family, kernel header NVRTC compiles or "", whether its
// kernels take 16-byte vectors of B and C).
#define GEBLAS_SPMM_FAMILIES(X)                               \
  X(row_split, "cuda/spmm/row_split_kernel.cuh", true)        \
  X(row_group, "cuda/spmm/row_group_kernel.cuh", true)        \
  X(row_pieces, "cuda/spmm/row_pieces_kernel.cuh", true)      \
  X(nnz_split, "cuda/spmm/nnz_split_kernel.cuh", true)        \
  X(merge_path, "cuda/spmm/merge_path_kernel.cuh", true)      \
  X(ge_spmm, "cuda/spmm/ge_spmm_kernel.cuh", false)           \
  X(tc_window, "", false)

#define GEBLAS_SPMM_FAMILY_ENUM(family, header, vectors) family,
enum class Family : std::uint8_t { GEBLAS_SPMM_FAMILIES(GEBLAS_SPMM_FAMILY_ENUM) };
#undef GEBLAS_SPMM_FAMILY_ENUM

// The tuning shape of a variant inside its family: the knobs its family's launcher reads.
// A field a family does not read keeps its default.
struct Shape {
  int steps = 0;               // nnz_split: rounds of U loads per slot and unit
  int max_lanes = 32;          // nnz_split: lanes per entry slot at most
  bool fused_fold = false;     // nnz_split: pieces folded inside the kernel (arrival counters)
  bool row_wise = false;       // nnz_split: the kernel's RowWise walk (a second set of kernels)
  bool fit_waves = false;      // nnz_split: unit size fitted to the GPU's resident warps
  bool long_pieces = false;    // row_pieces: pieces of at least RowPiecesPolicy::min_long_piece entries
  bool wide = false;           // row_pieces: two 16-byte vectors per lane where row_pieces_vector allows
  int coarsening = 1;          // ge_spmm: columns of C per lane, 32 apart (CF)
  bool all_windows = false;    // tc_window: every 16-row window on tensor cores, no cost model
};

// One kernel variant: a line of the table in variants.hpp. `can_implement` returns true or
// sets `why` to the reason it cannot run the problem; `run` may only be called after it
// returned true, with at least workspace_bytes() of device memory (any content) in
// `workspace`. All three go to the family's launcher with the variant's shape.
struct SpmmVariant {
  const char* name;     // the algorithm, e.g. "row_split"
  Family family;
  const char* summary;  // one line for listings and traces
  Shape shape;

  bool can_implement(const SpmmProblem& p, std::string* why) const;
  std::size_t workspace_bytes(const SpmmProblem& p) const;
  void run(const SpmmProblem& p, void* workspace, cudaStream_t stream) const;
  // Exact in every type (not the TF32 tensor-core family), so the exact tests enumerate
  // it and run-time semirings are compiled for it.
  constexpr bool exact() const { return family != Family::tc_window; }
};

// What a family does for each of its variants; `<family>_family` is defined in the
// family's .cu file (a family left undefined fails to link).
struct FamilyOps {
  bool (*can_implement)(const SpmmVariant& v, const SpmmProblem& p, std::string* why);
  std::size_t (*workspace_bytes)(const SpmmVariant& v, const SpmmProblem& p);
  void (*run)(const SpmmVariant& v, const SpmmProblem& p, void* workspace, cudaStream_t stream);
};
#define GEBLAS_SPMM_FAMILY_OPS(family, header, vectors) extern const FamilyOps family##_family;
GEBLAS_SPMM_FAMILIES(GEBLAS_SPMM_FAMILY_OPS)
#undef GEBLAS_SPMM_FAMILY_OPS

}  // namespace geblas::detail::cuda::spmm
