// The semiring as the SpMM kernels use it, and the pieces every kernel shares: the
// choice between a fully specialised fast path (StaticOps: float/double x plus_times,
// max_times, min_plus on row-major B and C, where the add and multiply inline) and the
// generic path (RuntimeOps: any built-in (semiring, type) pair and any layout, the
// operators chosen by a warp-uniform switch), vector loads and warp shuffles.
//
// Every Ops names two types: Stored, the type of A's values, B and C in memory, and T,
// the type the kernel computes in. They are the same for the five computed types; half
// and bfloat16 (Stored = __half / __nv_bfloat16) compute in float: a kernel loads 16-bit
// values (8 per 16-byte load of B), widens them in registers, accumulates in float and
// rounds once when it stores C. Variants opt in to the 16-bit types with
// with_ops<Takes16::...> and say what they take in can_implement (takes_16bit).
//
// `any` keeps whichever term a kernel meets first under GraphBLAS's rules; the kernels
// reduce it with min, which always returns one of the terms, has a true identity (so
// partial sums of split rows combine correctly) and is deterministic for every variant.
// Rows without entries still receive the semiring's own identity (0 for any).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/spmm/device_ops.cuh"
#include "cuda/spmm/problem.hpp"
#include "geblas/semiring.hpp"

namespace geblas::detail::cuda::spmm {

// A built-in semiring known at compile time, computing in S's value type on values
// stored as StoredT (S's value type, or a 16-bit float for S over float).
template <class S, class StoredT = typename S::value_type>
struct StaticOps {
  using T = typename S::value_type;
  using Stored = StoredT;
  static constexpr bool reads_a = semiring_reads_a<S>();
  static constexpr bool reads_b = semiring_reads_b<S>();
  __device__ __forceinline__ T identity() const { return S::identity(); }
  __device__ __forceinline__ T empty_value() const { return S::identity(); }
  __device__ __forceinline__ T add(T a, T b) const {
    // fmax/fmin have exactly the NaN rule of geblas's max/min and compile to one instruction.
    if constexpr (S::add_monoid::id == MonoidId::max && std::is_floating_point_v<T>) return fmax(a, b);
    else if constexpr (S::add_monoid::id == MonoidId::min && std::is_floating_point_v<T>) return fmin(a, b);
    else return S::add(a, b);
  }
  __device__ __forceinline__ T mul(T a, T b) const { return S::mul(a, b); }
};

enum class AddKind : std::uint8_t { plus, min, max, lor };
enum class MulKind : std::uint8_t { times, plus, min, max, land, pair, second };

// Any built-in semiring over Value, chosen at run time, on values stored as StoredT.
template <class Value, class StoredT = Value>
struct RuntimeOps {
  using T = Value;
  using Stored = StoredT;
  AddKind add_kind = AddKind::plus;
  MulKind mul_kind = MulKind::times;
  T ident{};
  T empty{};
  static constexpr bool reads_a = true;
  static constexpr bool reads_b = true;

  __device__ __forceinline__ T identity() const { return ident; }
  __device__ __forceinline__ T empty_value() const { return empty; }
  __device__ __forceinline__ T add(T a, T b) const {
    switch (add_kind) {
      case AddKind::plus: return geblas::detail::wrap_add(a, b);
      case AddKind::min: return geblas::detail::min_value(a, b);
      case AddKind::max: return geblas::detail::max_value(a, b);
      case AddKind::lor: break;
    }
    return T((a != T(0)) || (b != T(0)));
  }
  __device__ __forceinline__ T mul(T a, T b) const {
    switch (mul_kind) {
      case MulKind::times: return geblas::detail::wrap_mul(a, b);
      case MulKind::plus: return geblas::detail::wrap_add(a, b);
      case MulKind::min: return geblas::detail::min_value(a, b);
      case MulKind::max: return geblas::detail::max_value(a, b);
      case MulKind::land: return T((a != T(0)) && (b != T(0)));
      case MulKind::pair: return T(1);
      case MulKind::second: break;
    }
    return b;
  }
};

// M::identity() for the monoid visit_monoid picks (a named functor: nvcc warns about a
// template lambda without parameters).
struct IdentityOf {
  template <class M>
  auto operator()() const {
    return M::identity();
  }
};

// The semiring's row of the built-in list (semiring.hpp) as kinds: one switch over its
// monoid and one over its operator, not one instantiation per semiring.
template <class T, class Stored = T>
RuntimeOps<T, Stored> runtime_ops(SemiringId s) {
  RuntimeOps<T, Stored> ops;
  const SemiringInfo& info = semiring_info(s);
  switch (info.add) {
    case MonoidId::plus: ops.add_kind = AddKind::plus; break;
    case MonoidId::max: ops.add_kind = AddKind::max; break;
    case MonoidId::lor: ops.add_kind = AddKind::lor; break;
    default: ops.add_kind = AddKind::min; break;  // min, and any (see the file comment)
  }
  switch (info.mul) {
    case BinaryOpId::plus: ops.mul_kind = MulKind::plus; break;
    case BinaryOpId::min: ops.mul_kind = MulKind::min; break;
    case BinaryOpId::max: ops.mul_kind = MulKind::max; break;
    case BinaryOpId::land: ops.mul_kind = MulKind::land; break;
    case BinaryOpId::pair: ops.mul_kind = MulKind::pair; break;
    case BinaryOpId::second: ops.mul_kind = MulKind::second; break;
    default: ops.mul_kind = MulKind::times; break;
  }
  ops.empty = visit_monoid<T>(info.add, IdentityOf{});
  ops.ident = info.add == MonoidId::any ? monoid::min<T>::identity() : ops.empty;
  return ops;
}

// Which half / bfloat16 problems a variant computes (each adds kernels: 2 types x the
// fast ops x vector widths, + the generic path).
enum class Takes16 : std::uint8_t {
  none,  // none: can_implement refuses them (merge_path, crc, cwm)
  all,   // every semiring float takes, any layout (row_split, row_pieces, row_group)
  // only the fast path with 16-byte loads: plus_times, max_times, min_plus on row-major B
  // and C whose N and leading dimensions are multiples of 8 values (the nnz_split family:
  // its kernels are the largest, so the scalar and generic 16-bit ones are not compiled;
  // the dispatcher sends the rest to row_split / row_pieces / row_group)
  fast_vector,
};

template <class Stored>
inline constexpr bool is_16bit_stored = std::is_same_v<Stored, __half> || std::is_same_v<Stored, __nv_bfloat16>;

// Calls f.template operator()<Ops, RowMajor>(ops) with the fast path when one is
// compiled for the problem, else with the generic one. Every variant runs through this,
// so the fast set is defined here once. With L != none, half and bfloat16 problems run
// too (fast path: plus_times, max_times, min_plus over float on 16-bit row-major
// operands; with L = all also the generic path over float for the other semirings and
// layouts); a 16-bit problem outside L reaches visit_type, which throws NotImplemented
// (can_implement refuses it first).
template <Takes16 L = Takes16::none, class F>
void with_ops(const SpmmProblem& p, F&& f) {
  const bool row_major = p.b_row_major() && p.c_row_major();
  auto fast = [&]<class T, class Stored>() {
    switch (p.semiring) {
      case SemiringId::plus_times: f.template operator()<StaticOps<semiring::plus_times<T>, Stored>, true>({}); return true;
      case SemiringId::max_times: f.template operator()<StaticOps<semiring::max_times<T>, Stored>, true>({}); return true;
      case SemiringId::min_plus: f.template operator()<StaticOps<semiring::min_plus<T>, Stored>, true>({}); return true;
      default: return false;
    }
  };
  if constexpr (L != Takes16::none) {
    if (p.type == TypeId::float16) {
      if (row_major && fast.template operator()<float, __half>()) return;
      if constexpr (L == Takes16::all) {
        f.template operator()<RuntimeOps<float, __half>, false>(runtime_ops<float, __half>(p.semiring));
        return;
      }
    }
    if (p.type == TypeId::bfloat16) {
      if (row_major && fast.template operator()<float, __nv_bfloat16>()) return;
      if constexpr (L == Takes16::all) {
        f.template operator()<RuntimeOps<float, __nv_bfloat16>, false>(runtime_ops<float, __nv_bfloat16>(p.semiring));
        return;
      }
    }
  }
  if (row_major && p.type == TypeId::float32 && fast.template operator()<float, float>()) return;
  if (row_major && p.type == TypeId::float64 && fast.template operator()<double, double>()) return;
  visit_type(p.type, [&]<class T>() { f.template operator()<RuntimeOps<T>, false>(runtime_ops<T>(p.semiring)); });
}

// Whether 16-byte vectors of T fit the problem (defined below).
inline bool vector_aligned(const SpmmProblem& p, int v);

// with_ops, then launch.template operator()<Ops, V, RowMajor>(ops) with V values per lane:
// a 16-byte vector of Ops::Stored where B and C allow it (vector_aligned), else 1. The
// kernels are compiled for exactly these widths. Under Takes16::fast_vector a 16-bit
// problem launches the vector width only (can_implement has checked the alignment).
template <Takes16 L = Takes16::none, class Launch>
void with_vector_ops(const SpmmProblem& p, Launch&& launch) {
  with_ops<L>(p, [&]<class Ops, bool RowMajor>(Ops ops) {
    constexpr int full = 16 / sizeof(typename Ops::Stored);
    if constexpr (L == Takes16::fast_vector && is_16bit_stored<typename Ops::Stored>) {
      launch.template operator()<Ops, full, true>(ops);
    } else if constexpr (RowMajor && full > 1) {
      if (vector_aligned(p, full)) return launch.template operator()<Ops, full, true>(ops);
      return launch.template operator()<Ops, 1, true>(ops);
    } else {
      launch.template operator()<Ops, 1, RowMajor>(ops);
    }
  });
}

template <class T, bool RowMajor>
Operands<T, RowMajor> operands(const SpmmProblem& p) {
  const auto row_bytes = static_cast<std::uint64_t>(p.b_row_stride) * sizeof(T);
  if (row_bytes > 0xffffffffu)
    throw InvalidValue("CUDA mxm: B's row stride of " + std::to_string(row_bytes) +
                       " bytes is above 4 GiB, which the sparse x dense kernels address with 32-bit offsets");
  return {p.m,
          p.n,
          p.row_offsets,
          p.col_indices,
          static_cast<const T*>(p.values),
          static_cast<const T*>(p.B),
          static_cast<T*>(p.C),
          p.b_row_stride,
          p.b_col_stride,
          p.c_row_stride,
          p.c_col_stride,
          p.accumulate,
          static_cast<unsigned>(row_bytes)};
}

// Whether 16-byte vectors of T fit the problem: N, the strides and both base pointers
// multiples of the vector, B and C row-major.
inline bool vector_aligned(const SpmmProblem& p, int v) {
  if (v <= 1) return true;
  const std::size_t bytes = static_cast<std::size_t>(v) * p.value_bytes();
  return p.b_row_major() && p.c_row_major() && p.n % v == 0 && p.b_row_stride % v == 0 && p.c_row_stride % v == 0 &&
         reinterpret_cast<std::uintptr_t>(p.B) % bytes == 0 && reinterpret_cast<std::uintptr_t>(p.C) % bytes == 0;
}

// The vector width (in values) a 16-byte load holds for the problem's (stored) type.
inline int full_vector(const SpmmProblem& p) { return static_cast<int>(16 / p.value_bytes()); }

// The values per lane of a run-time semiring's kernels (src/cuda/jit/): a 16-byte vector
// where B and C allow it, else 1; its kernels for every width are compiled on demand.
inline int runtime_vector(const SpmmProblem& p) {
  const int full = full_vector(p);
  return p.b_row_major() && p.c_row_major() && full > 1 && vector_aligned(p, full) ? full : 1;
}

// can_implement's check for the 16-bit types: what a variant of mode L takes (see
// Takes16); a refusal names the variant, the type and what to use instead.
inline bool takes_16bit(const SpmmProblem& p, Takes16 mode, const char* variant, std::string* why) {
  if (!is_16bit_float(p.type)) return true;
  const std::string type(to_string(p.type));
  if (mode == Takes16::none) {
    if (why) *why = std::string(variant) + " does not compute " + type +
                    " values (row_split, row_pieces, row_group and the nnz_split family do)";
    return false;
  }
  if (!supports_semiring(p.semiring, TypeId::float32)) {
    if (why) *why = std::string(to_string(p.semiring)) + " is not defined over " + type + " (its values compute in float)";
    return false;
  }
  if (mode == Takes16::fast_vector) {
    const bool fast = p.semiring == SemiringId::plus_times || p.semiring == SemiringId::max_times ||
                      p.semiring == SemiringId::min_plus;
    if (!fast || !vector_aligned(p, 8)) {
      if (why) *why = std::string(variant) + " computes " + type +
                      " only for plus_times, max_times and min_plus on row-major B and C with N, the leading "
                      "dimensions and the base addresses multiples of 8 values (row_split, row_pieces and "
                      "row_group take the rest)";
      return false;
    }
  }
  return true;
}

}  // namespace geblas::detail::cuda::spmm
