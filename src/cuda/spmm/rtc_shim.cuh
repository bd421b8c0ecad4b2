// What the SpMM kernel headers need from the C++ library, the CUDA headers and geblas's
// types, in a form NVRTC compiles: NVRTC ships no standard headers, and the kernels are
// compiled from these very files at run time for run-time semirings (src/cuda/jit/).
// Under NVRTC (__CUDACC_RTC__) this defines the few names used; under nvcc it includes
// the real headers. The 16-bit storage types are only declared under NVRTC: run-time
// semirings compute on bool, int32, int64, float and double, so their kernels never
// instantiate the 16-bit branches.
#pragma once

#ifdef __CUDACC_RTC__

namespace std {
using int32_t = int;
using int64_t = long long;
using uint8_t = unsigned char;
using uint32_t = unsigned;
using uint64_t = unsigned long long;
using size_t = decltype(sizeof(0));
using uintptr_t = unsigned long long;
template <class A, class B> inline constexpr bool is_same_v = false;
template <class A> inline constexpr bool is_same_v<A, A> = true;
template <class T> inline constexpr bool is_floating_point_v = is_same_v<T, float> || is_same_v<T, double>;
template <class T>
inline constexpr bool is_integral_v = is_same_v<T, bool> || is_same_v<T, int> || is_same_v<T, long long> ||
                                      is_same_v<T, unsigned> || is_same_v<T, unsigned long long>;
__device__ __forceinline__ void* memcpy(void* d, const void* s, size_t n) { return ::memcpy(d, s, n); }
}  // namespace std

namespace geblas {
using Index = std::int64_t;  // the widths of geblas/types.hpp (src/cuda/jit/spmm_jit.cu checks them)
using ColIndex = std::int32_t;
}  // namespace geblas

struct __half { unsigned short bits; };
struct __nv_bfloat16 { unsigned short bits; };
struct __half2 { unsigned bits; };
struct __nv_bfloat162 { unsigned bits; };
__device__ float __half2float(__half);
__device__ float __bfloat162float(__nv_bfloat16);
__device__ __half __float2half_rn(float);
__device__ __nv_bfloat16 __float2bfloat16_rn(float);
__device__ float2 __half22float2(__half2);
__device__ float2 __bfloat1622float2(__nv_bfloat162);
__device__ __half2 __floats2half2_rn(float, float);
__device__ __nv_bfloat162 __floats2bfloat162_rn(float, float);

#else

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "geblas/types.hpp"

#endif
