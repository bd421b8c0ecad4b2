// <geblas/cuda.cuh>: the compile-time path for user-defined semirings on the GPU, kept
// for existing code and deprecated. A semiring type of the caller's own (a struct with
// value_type, identity, add, mul) is compiled into the caller's program, so its kernel
// comes from this header, instantiated by nvcc in the caller's code; geblas::cuda_mxm
// below runs it with a simple warp-per-row kernel, not the library's tuned variants.
// Run-time semirings (geblas::jit::semiring, <geblas/jit.hpp>) replace it: the same
// operators written as text run in every tuned SpMM kernel on the GPU (NVRTC, no nvcc in
// the caller's build) and on the CPU, so cuda_mxm with a user-defined semiring type is
// [[deprecated]]. With a built-in semiring it simply forwards to geblas::mxm and stays.
// geblas::mxm keeps one meaning everywhere (a user semiring type on GPU operands is
// NotImplemented there), so including this header changes nothing else, in any order.
// The semiring's identity, add and mul must be callable on the device (GEBLAS_HD).
//
// Sparse x dense is the form supported on the GPU; the other forms with a user-defined
// semiring raise NotImplemented on the GPU and run on the CPU. Masks, accumulators and
// transposes work as for built-in semirings: the library validates the call and applies
// them around this product.
#pragma once

#if !defined(__CUDACC__)
#error "<geblas/cuda.cuh> is for code compiled by nvcc; other code uses <geblas/geblas.hpp>"
#endif

#include <cuda_runtime.h>

#include <string>

#include "geblas/detail/mxm_plan.hpp"

#include "geblas/detail/spmm_variants.hpp"
#include "geblas/detail/views.hpp"
#include "geblas/error.hpp"
#include "geblas/geblas.hpp"

namespace geblas::detail::cuda_user {

// Launch shape of the user-semiring SpMM: a warp per row of A, rows in blocks of
// kRowsPerBlock warps. Not tuned (the built-in semirings have the tuned variants);
// the kernel stages 32 entries of the row per coalesced load, as GE-SpMM does.
struct UserSpmmPolicy {
  static constexpr int kRowsPerBlock = 4;
};

// The semiring's read flags as constants: host constexpr functions cannot be called in
// device code, their values can be used there.
template <class S>
inline constexpr bool reads_a_v = semiring_reads_a<S>();
template <class S>
inline constexpr bool reads_b_v = semiring_reads_b<S>();

// Shuffles for any value type: types narrower than 32 bits travel as int.
template <class T>
__device__ __forceinline__ T shuffle(T v, int lane) {
  if constexpr (sizeof(T) < 4) {
    return static_cast<T>(__shfl_sync(0xffffffffu, static_cast<int>(v), lane));
  } else {
    return __shfl_sync(0xffffffffu, v, lane);
  }
}

// T(i, :) = A(i, :) (+).(x) B for the rows of this warp. Each lane owns one column of a
// 32-column slice of T; the row's entries come in tiles of 32 read with one coalesced
// load, then broadcast lane by lane. A row without entries gets the identity.
template <class S, class T>
__global__ void spmm_warp_per_row(CsrView<T> A, DenseView<T> B, DenseView<T> C) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const Index row = static_cast<Index>(blockIdx.x) * UserSpmmPolicy::kRowsPerBlock + (threadIdx.x >> 5);
  if (row >= A.nrows) return;  // whole warps leave together: rows are per warp
  const Index begin = A.row_offsets[row], end = A.row_offsets[row + 1];
  const bool b_row_major = B.layout == Layout::row_major;
  for (Index j0 = 0; j0 < C.ncols; j0 += 32) {
    const Index j = j0 + lane;
    const bool live = j < C.ncols;
    T acc = S::identity();
    for (Index tile = begin; tile < end; tile += 32) {
      const int count = end - tile < 32 ? static_cast<int>(end - tile) : 32;
      ColIndex my_col = 0;
      T my_val = T(1);
      if (lane < count) {
        my_col = A.col_indices[tile + lane];
        if constexpr (reads_a_v<S>) my_val = A.values[tile + lane];
      }
      for (int e = 0; e < count; ++e) {
        const Index k = static_cast<Index>(shuffle(my_col, e));
        const T a = shuffle(my_val, e);
        if (live) {
          T b = T(1);
          if constexpr (reads_b_v<S>) b = b_row_major ? B.data[k * B.ld + j] : B.data[j * B.ld + k];
          acc = S::add(acc, S::mul(a, b));
        }
      }
    }
    if (live) C.data[row * C.ld + j] = acc;  // the product T is row-major
  }
}

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw CudaError(std::string("geblas::mxm (user-defined semiring on the GPU): ") + what + ": " +
                        cudaGetErrorString(e),
                    static_cast<int>(e));
}

template <class S>
void mxm(UserMxmPlan& plan) {
  using T = typename S::value_type;
  if (plan.form != UserMxmPlan::Form::sparse_dense)
    throw NotImplemented(
        "geblas::mxm: a user-defined semiring on " + plan.device.str() +
        " supports sparse x dense only; move the operands to Device::cpu() for the other forms");
  const CsrView<T> A = csr_view<T>(*plan.a_sparse);
  const DenseView<T> B = dense_view<T>(*plan.b_dense);
  const DenseView<T> C = dense_view<T>(plan.t_dense);
  if (A.nrows == 0 || C.ncols == 0) return;
  const int ordinal = plan.device.ordinal();
  check(cudaSetDevice(ordinal), "cudaSetDevice");
  auto stream = static_cast<cudaStream_t>(cuda_stream_handle(ordinal));
  const Index blocks = (A.nrows + UserSpmmPolicy::kRowsPerBlock - 1) / UserSpmmPolicy::kRowsPerBlock;
  spmm_warp_per_row<S, T><<<static_cast<unsigned>(blocks), 32 * UserSpmmPolicy::kRowsPerBlock, 0, stream>>>(
      A, B, C);
  check(cudaGetLastError(), "kernel launch");
}

}  // namespace geblas::detail::cuda_user

namespace geblas {

namespace detail::cuda_user {
// A semiring type that is not one of the built-ins: the overload of cuda_mxm that runs
// this header's kernel.
template <class S>
concept UserSemiring = !BuiltinSemiring<S>;
}  // namespace detail::cuda_user

// C<M> = accum(C, A (+).(x) B) as geblas::mxm: a built-in semiring goes to geblas::mxm and
// the library's tuned kernels.
template <Scalar T, BuiltinSemiring S>
void cuda_mxm(DenseMatrix<T>& C, const SparseMatrix<T>& A, const DenseMatrix<T>& B, S semiring,
              const Options& options = {}) {
  detail::check_semiring_type<S, T>();
  geblas::mxm(C, A, B, semiring, options);
}

// A user-defined semiring type runs this header's untuned kernel when the operands are on
// a CUDA device (the CPU template on the CPU).
template <Scalar T, detail::cuda_user::UserSemiring S>
[[deprecated(
    "geblas::cuda_mxm with a user-defined semiring type runs an untuned GPU kernel; write the semiring as "
    "geblas::jit::semiring<T>(add, mul) (<geblas/jit.hpp>) and call geblas::mxm, which runs it in the tuned SpMM "
    "kernels on the GPU and on the CPU")]] void
cuda_mxm(DenseMatrix<T>& C, const SparseMatrix<T>& A, const DenseMatrix<T>& B, S semiring,
         const Options& options = {}) {
  detail::check_semiring_type<S, T>();
  (void)semiring;
  detail::mxm_user<S, true>(C, A, B, options);
}

}  // namespace geblas
