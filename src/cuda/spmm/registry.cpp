// The registry of CUDA SpMM variants: the one place a new variant is added (declare its
// getter in problem.hpp, list it here). The dispatcher, the tests (through
// cuda_spmm_variant_names) and the bench enumerate and force variants from this list.
#include <array>

#include "cuda/context.cuh"
#include "cuda/spmm/problem.hpp"
#include "geblas/detail/spmm_variants.hpp"

namespace geblas::detail {
namespace cuda::spmm {

std::span<const SpmmVariant* const> variants() {
  // the size is deduced: a size larger than the list would leave a null variant
  static const std::array all{
      &row_split_variant(),
      &row_pieces_variant(),
      &row_group_variant(),
      &merge_path_variant(),
      &crc_variant(),
      &cwm_variant(),
      &nnz_split_variant(),
      &nnz_split_fused_variant(),
      &nnz_split_long_variant(),
      &nnz_split_line_variant(),
      &nnz_split_line_long_variant(),
      &nnz_split_rows_long_variant(),
      &nnz_split_long_waves_variant(),
      &row_pieces_long_variant(),
      &row_pieces_wide_variant(),
  };
  return all;
}

std::span<const SpmmVariant* const> tf32_variants() {
  static const std::array all{&tc_window_variant(), &tc_window_all_variant()};
  return all;
}

const SpmmVariant* find_variant(std::string_view name) {
  for (const SpmmVariant* v : variants())
    if (name == v->name) return v;
  for (const SpmmVariant* v : tf32_variants())
    if (name == v->name) return v;
  return nullptr;
}

}  // namespace cuda::spmm

std::vector<std::string> cuda_spmm_variant_names() {
  std::vector<std::string> out;
  for (const auto* v : cuda::spmm::variants()) out.emplace_back(v->name);
  return out;
}

void* cuda_stream_handle(int ordinal) { return cuda::stream(ordinal); }

}  // namespace geblas::detail
