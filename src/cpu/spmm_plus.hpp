// The plus-family sparse x dense product on the CPU (plus_times, plus_second, plus_pair on
// float and double, row-major C): row kernels compiled for SSE2, AVX2 + FMA and AVX-512
// and chosen at run time (src/cpu/spmm_plus.cpp), behind the generic driver of
// include/geblas/detail/cpu/spmm.hpp. The idea is that of SuiteSparse:GraphBLAS's
// dense-output saxpy (hand-vectorised FMA loops per instruction set), written here over
// one vector abstraction.
//
// Which results are bit-identical: plus_second and plus_pair are bit for bit the generic
// kernel's on every instruction set (same additions, same order). plus_times is bit for
// bit the generic kernel's on SSE2; on AVX2 and AVX-512 each term is one fused
// multiply-add (one rounding instead of two), so there the result is bit for bit the same
// on AVX2 and AVX-512, and within |C - exact| <= gamma(n) * sum_k |A(i,k) * B(k,j)| of the
// exact sum (n the row's entries, gamma(n) = n u / (1 - n u), u the unit roundoff), as is
// the SSE2 result: the bound of recursive summation, which tests/cpu checks.
#pragma once

#include <cstddef>

#include "cpu/spmm_policy.hpp"
#include "geblas/detail/views.hpp"
#include "geblas/semiring.hpp"

namespace geblas::detail::cpu {

enum class CpuIsa { sse2, avx2, avx512 };
const char* to_string(CpuIsa isa);

// The instruction set the plus kernels use on this CPU: the widest it runs, unless
// GEBLAS_CPU_ISA (baseline / sse2, avx2, avx512) asks for a narrower one.
CpuIsa plus_isa();
// Whether this CPU runs the kernels of `isa`.
bool cpu_runs(CpuIsa isa);

template <class T>
using PlusRowsFn = void (*)(const CsrView<T>&, const T*, Index, const DenseView<T>&, Index, Index, bool);

// The row kernel for semiring s on T compiled for isa (which this CPU must run), or
// nullptr where s is not plus_times / plus_second / plus_pair or T is not float / double.
template <class T>
PlusRowsFn<T> plus_rows_for(SemiringId s, CpuIsa isa);

}  // namespace geblas::detail::cpu
