// The CUDA SpMM variants, each described once: its name, family, summary and tuning shape
// (problem.hpp's Family and Shape). The registry, the dispatcher's rules, the tests and the
// bench (through cuda_spmm_variant_names and Options::variant) and the NVRTC compiler for
// run-time semirings (src/cuda/jit/compiler.cpp) all read this table and no other list. A
// variant of an existing family is one line here (and its tests); a new family adds its
// kernel header, its launcher (the family's .cu file) and a line of GEBLAS_SPMM_FAMILIES.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "cuda/spmm/problem.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cuda::spmm {

// X(name, family, summary, shape fields...) in registry order (the order tests, bench and
// listings use); the exact variants first, then the TF32 tensor-core ones. Which variants
// the dispatcher picks, and on which runs that rests, is in policy/dispatch_policy.cpp.
// The nnz_split shapes are properties of the cached work list and of the launch only, so
// they cost no compile time; row_wise is a second set of kernels. crc is GE-SpMM without
// warp merging (coarsening 1, the paper's choice for N <= 32); cwm's 2 is the paper's
// choice (best on most SNAP graphs on GTX 1080Ti / RTX 2080), not re-tuned on the H100/H200.
#define GEBLAS_SPMM_VARIANTS(X)                                                                                       \
  X(row_split, row_split, "a warp per row, entry-parallel slots, 16-byte loads of B")                                 \
  X(row_pieces, row_pieces,                                                                                           \
    "a warp per row; rows of 2-8 pieces added in one block, longer ones folded by a second kernel")                   \
  X(row_group, row_group, "a lane group as wide as N per row: several short rows per warp")                           \
  X(merge_path, merge_path, "equal slices of the rows+entries merge, carries folded by a second kernel")              \
  X(crc, ge_spmm, "GE-SpMM coalesced row caching: a warp per row, a column per lane", .coarsening = 1)               \
  X(cwm, ge_spmm, "GE-SpMM row caching + coarse warp merging: 2 columns per lane", .coarsening = 2)                  \
  X(nnz_split, nnz_split, "equal entries per warp: runs of short rows or pieces of long ones, 4 rounds", .steps = 4) \
  X(nnz_split_fused, nnz_split, "nnz_split with pieces folded inside the kernel (one launch)", .steps = 4,           \
    .fused_fold = true)                                                                                               \
  X(nnz_split_long, nnz_split, "nnz_split with 16 rounds per unit, pieces folded inside the kernel", .steps = 16,    \
    .fused_fold = true)                                                                                               \
  X(nnz_split_line, nnz_split,                                                                                        \
    "nnz_split with 128-byte column tiles (one line of B per entry and slot), folded inside", .steps = 4,            \
    .max_lanes = 8, .fused_fold = true)                                                                               \
  X(nnz_split_line_long, nnz_split, "nnz_split_line with 16 rounds per unit", .steps = 16, .max_lanes = 8,           \
    .fused_fold = true)                                                                                               \
  X(nnz_split_rows_long, nnz_split, "nnz_split_long with each slot's stretch walked row by row", .steps = 16,        \
    .fused_fold = true, .row_wise = true)                                                                             \
  X(nnz_split_long_waves, nnz_split, "nnz_split_long with units sized to fill the last wave of warps", .steps = 16,  \
    .fused_fold = true, .fit_waves = true)                                                                            \
  X(row_pieces_long, row_pieces, "row_pieces with pieces of at least 128 entries (fewer pieces to fold)",            \
    .long_pieces = true)                                                                                              \
  X(row_pieces_wide, row_pieces,                                                                                      \
    "row_pieces with 8 float columns per lane (two 16-byte loads): twice the entry slots of a warp at the same N, "  \
    "where N is a multiple of 8 (else row_pieces)",                                                                   \
    .wide = true)                                                                                                     \
  X(tc_window, tc_window,                                                                                             \
    "16-row windows: dense ones on tensor cores (TF32, fp16, bf16), the rest on CUDA cores")                          \
  X(tc_window_all, tc_window, "every 16-row window on tensor cores (TF32, fp16, bf16)", .all_windows = true)

#define GEBLAS_SPMM_VARIANT_ID(name, family, summary, ...) name,
enum class VariantId : std::uint8_t { GEBLAS_SPMM_VARIANTS(GEBLAS_SPMM_VARIANT_ID) };
#undef GEBLAS_SPMM_VARIANT_ID

#define GEBLAS_SPMM_VARIANT_SPEC(name, family, summary, ...) \
  SpmmVariant{#name, Family::family, summary, Shape{__VA_ARGS__}},
inline constexpr SpmmVariant variant_table[] = {GEBLAS_SPMM_VARIANTS(GEBLAS_SPMM_VARIANT_SPEC)};
#undef GEBLAS_SPMM_VARIANT_SPEC

// The exact variants come first: tf32_variants() is the tail of the table.
inline constexpr std::size_t exact_variant_count = [] {
  std::size_t n = 0;
  while (n < std::size(variant_table) && variant_table[n].exact()) ++n;
  for (std::size_t i = n; i < std::size(variant_table); ++i)
    if (variant_table[i].exact()) throw "an exact SpMM variant listed after a tensor-core one";
  return n;
}();

constexpr const SpmmVariant& variant(VariantId id) { return variant_table[static_cast<std::size_t>(id)]; }

// row_split_variant(), nnz_split_long_variant(), ...: the dispatcher's rules name variants so.
#define GEBLAS_SPMM_VARIANT_GETTER(name, family, summary, ...) \
  constexpr const SpmmVariant& name##_variant() { return variant(VariantId::name); }
GEBLAS_SPMM_VARIANTS(GEBLAS_SPMM_VARIANT_GETTER)
#undef GEBLAS_SPMM_VARIANT_GETTER

// Calls f.template operator()<I>() with I the index of `v` in variant_table, instantiated
// for the entries of family F only: a family whose shape is a template argument of its
// kernels (ge_spmm's coarsening, nnz_split's row_wise) compiles them for exactly the
// shapes its variants have in the table, so a new shape is still one line there.
template <Family F, class Fn>
void with_table_entry(const SpmmVariant& v, Fn&& f) {
  const bool found = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return ([&]<std::size_t J>() {
      if constexpr (variant_table[J].family == F) {
        if (&v == &variant_table[J]) {
          f.template operator()<J>();
          return true;
        }
      }
      return false;
    }.template operator()<I>() || ...);
  }(std::make_index_sequence<std::size(variant_table)>{});
  if (!found) throw Error(Info::panic, std::string("SpMM variant ") + v.name + " is not of the family that ran it");
}

inline constexpr auto variant_pointers = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<const SpmmVariant*, sizeof...(I)>{&variant_table[I]...};
}(std::make_index_sequence<std::size(variant_table)>{});

// Every exact variant, in table order (the ones every exact test enumerates).
inline std::span<const SpmmVariant* const> variants() {
  return std::span<const SpmmVariant* const>(variant_pointers).first(exact_variant_count);
}
// The TF32 tensor-core variants: not exact in fp32, so listed apart; find_variant and the
// dispatcher (only with allow_tf32) reach them.
inline std::span<const SpmmVariant* const> tf32_variants() {
  return std::span<const SpmmVariant* const>(variant_pointers).subspan(exact_variant_count);
}
// The variant called `name`, or null.
inline const SpmmVariant* find_variant(std::string_view name) {
  for (const SpmmVariant* v : variant_pointers)
    if (name == v->name) return v;
  return nullptr;
}

}  // namespace geblas::detail::cuda::spmm
