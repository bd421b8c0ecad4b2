// The plus-family row kernels of the CPU sparse x dense product, one copy per instruction
// set (SSE2, AVX2 + FMA, AVX-512F), each an inclusion of spmm_plus_kernel.inc under its
// own `#pragma GCC target` and namespace, over that set's Vec<T>; and the run-time choice
// between them. See spmm_plus.hpp for which results are bit-identical.
#include "cpu/spmm_plus.hpp"

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>

#include "geblas/error.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GEBLAS_PLUS_KERNELS 1
#endif

namespace geblas::detail::cpu {

#ifdef GEBLAS_PLUS_KERNELS

// plus_pair: every term is 1, so a row of C holds its entry count in every column. The
// generic kernel sums n ones in order, which in floating point is exact up to 2^digits and
// then stays at 2^digits (x + 1 rounds back to x there, ties to even); this is that value.
template <class T>
void pair_rows(const CsrView<T>& A, const T*, Index, const DenseView<T>& C, Index r0, Index r1, bool accumulate) {
  constexpr Index saturation = Index{1} << std::numeric_limits<T>::digits;
  for (Index i = r0; i < r1; ++i) {
    const Index count = A.row_offsets[i + 1] - A.row_offsets[i];
    T* c = C.data + i * C.ld;
    if (count == 0) {
      if (!accumulate)
        for (Index j = 0; j < C.ncols; ++j) c[j] = T(0);
      continue;
    }
    const T v = static_cast<T>(count < saturation ? count : saturation);
    if (accumulate)
      for (Index j = 0; j < C.ncols; ++j) c[j] += v;
    else
      for (Index j = 0; j < C.ncols; ++j) c[j] = v;
  }
}

namespace sse2 {
// x86-64's baseline: no fused multiply-add, so madd rounds twice as the generic kernel does.
template <class T>
struct Vec;
template <>
struct Vec<float> {
  using V = __m128;
  static constexpr int lanes = 4;
  static constexpr int tile_vectors = PlusPolicy::sse2_tile_vectors;
  static V load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, V v) { _mm_storeu_ps(p, v); }
  static V set1(float x) { return _mm_set1_ps(x); }
  static V add(V a, V b) { return _mm_add_ps(a, b); }
  static V mul(V a, V b) { return _mm_mul_ps(a, b); }
  static V madd(V a, V b, V c) { return _mm_add_ps(c, _mm_mul_ps(a, b)); }
  static V load_n(const float* p, int w) {
    alignas(16) float t[4] = {};
    for (int j = 0; j < w; ++j) t[j] = p[j];
    return _mm_load_ps(t);
  }
  static void store_n(float* p, V v, int w) {
    alignas(16) float t[4];
    _mm_store_ps(t, v);
    for (int j = 0; j < w; ++j) p[j] = t[j];
  }
};
template <>
struct Vec<double> {
  using V = __m128d;
  static constexpr int lanes = 2;
  static constexpr int tile_vectors = PlusPolicy::sse2_tile_vectors;
  static V load(const double* p) { return _mm_loadu_pd(p); }
  static void store(double* p, V v) { _mm_storeu_pd(p, v); }
  static V set1(double x) { return _mm_set1_pd(x); }
  static V add(V a, V b) { return _mm_add_pd(a, b); }
  static V mul(V a, V b) { return _mm_mul_pd(a, b); }
  static V madd(V a, V b, V c) { return _mm_add_pd(c, _mm_mul_pd(a, b)); }
  static V load_n(const double* p, int) { return _mm_load_sd(p); }  // w is 1
  static void store_n(double* p, V v, int) { _mm_store_sd(p, v); }
};
#include "cpu/spmm_plus_kernel.inc"
}  // namespace sse2

// GCC takes the instruction set from a pragma region; clang ignores that pragma and
// takes an attribute applied to every function declared in the region.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
namespace avx2 {
// Partial loads and stores through a lane mask (vmaskmov: masked-off lanes do not fault).
template <class T>
struct Vec;
template <>
struct Vec<float> {
  using V = __m256;
  static constexpr int lanes = 8;
  static constexpr int tile_vectors = PlusPolicy::avx2_tile_vectors;
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V set1(float x) { return _mm256_set1_ps(x); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V madd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static __m256i mask(int w) { return _mm256_cmpgt_epi32(_mm256_set1_epi32(w), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); }
  static V load_n(const float* p, int w) { return _mm256_maskload_ps(p, mask(w)); }
  static void store_n(float* p, V v, int w) { _mm256_maskstore_ps(p, mask(w), v); }
};
template <>
struct Vec<double> {
  using V = __m256d;
  static constexpr int lanes = 4;
  static constexpr int tile_vectors = PlusPolicy::avx2_tile_vectors;
  static V load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
  static V set1(double x) { return _mm256_set1_pd(x); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V madd(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static __m256i mask(int w) { return _mm256_cmpgt_epi64(_mm256_set1_epi64x(w), _mm256_setr_epi64x(0, 1, 2, 3)); }
  static V load_n(const double* p, int w) { return _mm256_maskload_pd(p, mask(w)); }
  static void store_n(double* p, V v, int w) { _mm256_maskstore_pd(p, mask(w), v); }
};
#include "cpu/spmm_plus_kernel.inc"
}  // namespace avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
namespace avx512 {
template <class T>
struct Vec;
template <>
struct Vec<float> {
  using V = __m512;
  static constexpr int lanes = 16;
  static constexpr int tile_vectors = PlusPolicy::avx512_tile_vectors;
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V set1(float x) { return _mm512_set1_ps(x); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V madd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static __mmask16 mask(int w) { return static_cast<__mmask16>((1u << w) - 1); }
  static V load_n(const float* p, int w) { return _mm512_maskz_loadu_ps(mask(w), p); }
  static void store_n(float* p, V v, int w) { _mm512_mask_storeu_ps(p, mask(w), v); }
};
template <>
struct Vec<double> {
  using V = __m512d;
  static constexpr int lanes = 8;
  static constexpr int tile_vectors = PlusPolicy::avx512_tile_vectors;
  static V load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
  static V set1(double x) { return _mm512_set1_pd(x); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V madd(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static __mmask8 mask(int w) { return static_cast<__mmask8>((1u << w) - 1); }
  static V load_n(const double* p, int w) { return _mm512_maskz_loadu_pd(mask(w), p); }
  static void store_n(double* p, V v, int w) { _mm512_mask_storeu_pd(p, mask(w), v); }
};
#include "cpu/spmm_plus_kernel.inc"
}  // namespace avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

const char* to_string(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::sse2: return "sse2";
    case CpuIsa::avx2: return "avx2+fma";
    case CpuIsa::avx512: break;
  }
  return "avx512";
}

bool cpu_runs(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::sse2: return true;
    case CpuIsa::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case CpuIsa::avx512: break;
  }
  return __builtin_cpu_supports("avx512f");
}

CpuIsa plus_isa() {
  static const CpuIsa isa = [] {
    CpuIsa widest = cpu_runs(CpuIsa::avx512) ? CpuIsa::avx512 : cpu_runs(CpuIsa::avx2) ? CpuIsa::avx2 : CpuIsa::sse2;
    const char* env = std::getenv("GEBLAS_CPU_ISA");
    if (!env || !*env) return widest;
    const std::string want = env;
    CpuIsa asked;
    if (want == "baseline" || want == "sse2") asked = CpuIsa::sse2;
    else if (want == "avx2") asked = CpuIsa::avx2;
    else if (want == "avx512") asked = CpuIsa::avx512;
    else throw InvalidValue("GEBLAS_CPU_ISA='" + want + "': expected baseline, sse2, avx2 or avx512");
    // a set this CPU lacks falls to the widest it has (a test run on an older CPU)
    return static_cast<int>(asked) < static_cast<int>(widest) ? asked : widest;
  }();
  return isa;
}

template <class T>
PlusRowsFn<T> plus_rows_for(SemiringId s, CpuIsa isa) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (s == SemiringId::plus_pair) return &pair_rows<T>;
    if (s != SemiringId::plus_times && s != SemiringId::plus_second) return nullptr;
    const bool times = s == SemiringId::plus_times;
    switch (isa) {
      case CpuIsa::sse2:
        return times ? &sse2::plus_rows<T, sse2::PlusTerm::times> : &sse2::plus_rows<T, sse2::PlusTerm::second>;
      case CpuIsa::avx2:
        return times ? &avx2::plus_rows<T, avx2::PlusTerm::times> : &avx2::plus_rows<T, avx2::PlusTerm::second>;
      case CpuIsa::avx512: break;
    }
    return times ? &avx512::plus_rows<T, avx512::PlusTerm::times> : &avx512::plus_rows<T, avx512::PlusTerm::second>;
  } else {
    return nullptr;
  }
}

#else  // not x86-64 GCC: the generic kernel serves every semiring

const char* to_string(CpuIsa) { return "generic"; }
bool cpu_runs(CpuIsa isa) { return isa == CpuIsa::sse2; }
CpuIsa plus_isa() { return CpuIsa::sse2; }
template <class T>
PlusRowsFn<T> plus_rows_for(SemiringId, CpuIsa) {
  return nullptr;
}

#endif

template PlusRowsFn<bool> plus_rows_for<bool>(SemiringId, CpuIsa);
template PlusRowsFn<std::int32_t> plus_rows_for<std::int32_t>(SemiringId, CpuIsa);
template PlusRowsFn<std::int64_t> plus_rows_for<std::int64_t>(SemiringId, CpuIsa);
template PlusRowsFn<float> plus_rows_for<float>(SemiringId, CpuIsa);
template PlusRowsFn<double> plus_rows_for<double>(SemiringId, CpuIsa);

}  // namespace geblas::detail::cpu
