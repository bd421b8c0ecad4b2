// Shared-memory arrays of row_pieces and of the fold of cut rows, read and written through
// 32-bit shared-window addresses. NVRTC (CUDA 13.0) addresses shared memory with 64-bit
// pointers where nvcc uses 32-bit ones, and the wider address arithmetic made the
// run-time semirings' kernels up to 5% slower than the built-ins
// (docs/notes/spmm-tuning.md, "What limits speed now": NVRTC code parity). With the addresses taken once and
// the accesses written in PTX, both compilers give these kernels the same code, and the
// built-in row_pieces ran 1% faster (1-5% at N = 32) on an H200. nnz_split keeps plain
// accesses: written this way, nvcc unrolls its entry loop less and the built-in ran 5%
// slower (the note's evening section), so there NVRTC's code still differs.
#pragma once

#include "cuda/spmm/rtc_shim.cuh"

namespace geblas::detail::cuda::spmm {

// The shared-window address of p, a pointer into a __shared__ array.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One value of 1, 4 or 8 bytes at shared-window address a. Volatile with a memory clobber:
// the compiler neither moves the access across __syncwarp() / __syncthreads() nor keeps a
// value read before another lane's store.
template <class T>
__device__ __forceinline__ T shared_load(unsigned a) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8, "a computed type of 1, 4 or 8 bytes");
  T x;
  if constexpr (sizeof(T) == 1) {
    unsigned w;
    asm volatile("ld.shared.u8 %0, [%1];" : "=r"(w) : "r"(a) : "memory");
    const unsigned char b = static_cast<unsigned char>(w);
    std::memcpy(&x, &b, 1);
  } else if constexpr (sizeof(T) == 4) {
    unsigned w;
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(w) : "r"(a) : "memory");
    std::memcpy(&x, &w, 4);
  } else {
    unsigned long long w;
    asm volatile("ld.shared.b64 %0, [%1];" : "=l"(w) : "r"(a) : "memory");
    std::memcpy(&x, &w, 8);
  }
  return x;
}

template <class T>
__device__ __forceinline__ void shared_store(unsigned a, T x) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8, "a computed type of 1, 4 or 8 bytes");
  if constexpr (sizeof(T) == 1) {
    unsigned char b;
    std::memcpy(&b, &x, 1);
    asm volatile("st.shared.u8 [%0], %1;" ::"r"(a), "r"(static_cast<unsigned>(b)) : "memory");
  } else if constexpr (sizeof(T) == 4) {
    unsigned w;
    std::memcpy(&w, &x, 4);
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(a), "r"(w) : "memory");
  } else {
    unsigned long long w;
    std::memcpy(&w, &x, 8);
    asm volatile("st.shared.b64 [%0], %1;" ::"r"(a), "l"(w) : "memory");
  }
}

// A __shared__ array of T at shared-window address `at`: element i lies at at + i * sizeof(T), in 32-bit arithmetic.
template <class T>
struct SharedArray {
  unsigned at;
  __device__ __forceinline__ T load(int i) const { return shared_load<T>(address(i)); }
  __device__ __forceinline__ void store(int i, T x) const { shared_store<T>(address(i), x); }
  __device__ __forceinline__ unsigned address(int i) const {
    return at + static_cast<unsigned>(i) * static_cast<unsigned>(sizeof(T));
  }
};
// A whole __shared__ array, and row r of a two-dimensional one; the window
// address of the array is taken once, so that no 64-bit pointer arithmetic precedes it.
template <class T, int N>
__device__ __forceinline__ SharedArray<T> shared_array(T (&a)[N]) {
  return {shared_address(a)};
}
template <class T, int R, int N>
__device__ __forceinline__ SharedArray<T> shared_row(T (&a)[R][N], int r) {
  return {shared_address(a) + static_cast<unsigned>(r) * static_cast<unsigned>(sizeof(a[0]))};
}

}  // namespace geblas::detail::cuda::spmm
