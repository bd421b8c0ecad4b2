// mxm: C<M> = accum(C, A (+).(x) B) over a semiring, for sparse and dense A and B.
// Sparse x dense is the hot path (GE-SpMM on the GPU, row-parallel on the CPU); sparse x
// sparse is Gustavson's method with the mask applied during the product.
//
// half / bfloat16 (all of C, A, B; sparse x dense only, every built-in semiring but
// lor_land): each entry is computed in float and rounded once into C. On a GPU, with no
// mask, no transpose and an accumulator that is none or the semiring's add, 16-bit
// kernels read and write the 16-bit arrays directly; every other case, and every case
// on the CPU, widens A's values, B and (if read) C to float temporaries, runs the float
// path and rounds the result into C. docs/TYPES.md states the error bound.
//
// Built-in semirings run inside libgeblas.so on whichever device holds the operands, and
// so do run-time semirings (geblas::jit::semiring, <geblas/jit.hpp>: operators written as
// text, compiled into the tuned GPU kernels). A user-defined semiring type runs on the
// CPU through templates instantiated in the caller's code; on a GPU geblas::mxm reports
// NotImplemented for it, naming the run-time semiring that replaces it (the deprecated
// geblas::cuda_mxm of <geblas/cuda.cuh> still runs it, untuned, in code compiled by nvcc;
// geblas::mxm means the same in every translation unit, with or without that header).
#pragma once

#include <type_traits>

#include "geblas/dense_matrix.hpp"
#include "geblas/detail/cpu/mxm_generic.hpp"
#include "geblas/detail/mxm_plan.hpp"
#include "geblas/operations/sampled_op.hpp"
#include "geblas/options.hpp"
#include "geblas/semiring.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas {

namespace detail {
GEBLAS_API void mxm(DenseStorage& C, const SparseStorage& A, const DenseStorage& B, SemiringId s,
                    const Options& o);
GEBLAS_API void mxm(SparseStorage& C, const SparseStorage& A, const SparseStorage& B, SemiringId s,
                    const Options& o);
GEBLAS_API void mxm(DenseStorage& C, const DenseStorage& A, const SparseStorage& B, SemiringId s,
                    const Options& o);
GEBLAS_API void mxm(SparseStorage& C, const DenseStorage& A, const DenseStorage& B, SemiringId s, const Options& o,
                    const SampledOp& f = {});
GEBLAS_API void mxm(DenseStorage& C, const DenseStorage& A, const DenseStorage& B, SemiringId s,
                    const Options& o);

// For user-defined semirings: checks shapes, types, devices, mask and options exactly as
// the built-in path does and returns the operands on which the product is computed
// (transposes applied), so the generic template only multiplies.
GEBLAS_API UserMxmPlan plan_user_mxm(const DenseStorage& C, const SparseStorage& A,
                                     const DenseStorage& B, TypeId semiring_type, const Options& o);
GEBLAS_API UserMxmPlan plan_user_mxm(const SparseStorage& C, const SparseStorage& A,
                                     const SparseStorage& B, TypeId semiring_type, const Options& o);
GEBLAS_API UserMxmPlan plan_user_mxm(const DenseStorage& C, const DenseStorage& A,
                                     const SparseStorage& B, TypeId semiring_type, const Options& o);
GEBLAS_API UserMxmPlan plan_user_mxm(const DenseStorage& C, const DenseStorage& A,
                                     const DenseStorage& B, TypeId semiring_type, const Options& o);
// Writes the product T into C under the mask and accumulator of `o` (the same rules
// as the built-in path). `identity` points to one value of the semiring's identity.
GEBLAS_API void finish_user_mxm(DenseStorage& C, UserMxmPlan& plan, const Options& o,
                                const void* identity);
GEBLAS_API void finish_user_mxm(SparseStorage& C, UserMxmPlan& plan, const Options& o,
                                const void* identity);

template <class S, class T>
constexpr void check_semiring_type() {
  static_assert(SemiringType<S>, "geblas::mxm: the semiring argument is not a semiring type "
                                 "(needs value_type, identity(), add(), mul())");
  static_assert(std::is_same_v<typename S::value_type, T>,
                "geblas::mxm: the semiring's value_type must be the operands' type");
}

namespace cuda_user {
// The GPU product of a user-defined semiring, defined in <geblas/cuda.cuh> and
// instantiated only through geblas::cuda_mxm (mxm_user<S, true>).
template <class S>
void mxm(UserMxmPlan& plan);
}  // namespace cuda_user

// WithCudaKernel: whether the caller is geblas::cuda_mxm, which brings the GPU kernel.
// The two are distinct instantiations, so no translation unit changes the meaning of
// another's (the former GEBLAS_CUDA_USER_KERNELS macro did: an ODR hazard).
template <class S, bool WithCudaKernel = false, class CM, class AM, class BM>
void mxm_user(CM& C, const AM& A, const BM& B, const Options& o) {
  using T = typename S::value_type;
  UserMxmPlan plan = plan_user_mxm(C.storage(), A.storage(), B.storage(), type_id<T>, o);
  if (!plan.device.is_cpu()) {
    if constexpr (WithCudaKernel)
      cuda_user::mxm<S>(plan);
    else
      throw NotImplemented("geblas::mxm: a user-defined semiring type does not run on " + plan.device.str() +
                           "; write it as geblas::jit::semiring<T>(add, mul) (<geblas/jit.hpp>), which runs in the "
                           "tuned GPU kernels (the deprecated geblas::cuda_mxm of <geblas/cuda.cuh> runs it untuned, "
                           "in code compiled by nvcc)");
  } else {
    cpu::mxm_generic<S>(plan);
  }
  const T identity = S::identity();
  finish_user_mxm(C.storage(), plan, o, &identity);
}
}  // namespace detail

template <Scalar T, class S>
void mxm(DenseMatrix<T>& C, const SparseMatrix<T>& A, const DenseMatrix<T>& B, S semiring,
         const Options& options = {}) {
  detail::check_semiring_type<S, T>();
  (void)semiring;
  if constexpr (BuiltinSemiring<S>) detail::mxm(C.storage(), A.storage(), B.storage(), S::id, options);
  else detail::mxm_user<S>(C, A, B, options);
}

template <Scalar T, class S>
void mxm(SparseMatrix<T>& C, const SparseMatrix<T>& A, const SparseMatrix<T>& B, S semiring,
         const Options& options = {}) {
  detail::check_semiring_type<S, T>();
  (void)semiring;
  if constexpr (BuiltinSemiring<S>) detail::mxm(C.storage(), A.storage(), B.storage(), S::id, options);
  else detail::mxm_user<S>(C, A, B, options);
}

template <Scalar T, class S>
void mxm(DenseMatrix<T>& C, const DenseMatrix<T>& A, const SparseMatrix<T>& B, S semiring,
         const Options& options = {}) {
  detail::check_semiring_type<S, T>();
  (void)semiring;
  if constexpr (BuiltinSemiring<S>) detail::mxm(C.storage(), A.storage(), B.storage(), S::id, options);
  else detail::mxm_user<S>(C, A, B, options);
}

template <Scalar T, class S>
void mxm(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B, S semiring,
         const Options& options = {}) {
  detail::check_semiring_type<S, T>();
  (void)semiring;
  if constexpr (BuiltinSemiring<S>) detail::mxm(C.storage(), A.storage(), B.storage(), S::id, options);
  else detail::mxm_user<S>(C, A, B, options);
}

// The sampled dense x dense product (SDDMM): C<M> = accum(C, f(op(A) (+).(x) op(B))) with a
// sparse C and a sparse mask M that is not complemented (structural, or by value). Only
// the entries M lists are computed, each the fold of its k terms, so the work is
// nvals(M) x inner dimension whatever the shape of the dense product. f is an elementwise
// op fused into the write of each computed entry (SampledOp, sampled_op.hpp: identity by
// default, scale by alpha, leaky ReLU). The attention score of a graph layer,
// s_ij = <x_i, y_j> / sqrt(k) on the edges of a graph, is
//   mxm(S, X, Y, semiring::plus_times<T>{}, {.mask = Mask::structure(G), .transpose_b = true},
//       SampledOp::scale(1 / std::sqrt(k)));
// Built-in semirings only, on the CPU and the GPU. The CPU folds each entry's terms in k
// order; the GPU splits them over a group of lanes and combines the partial folds, so a
// float plus_times entry may differ from the CPU's by rounding (exact for integers, min
// and max).
template <Scalar T, class S>
void mxm(SparseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B, S semiring, const Options& options = {},
         const SampledOp& f = {}) {
  detail::check_semiring_type<S, T>();
  static_assert(BuiltinSemiring<S>,
                "geblas::mxm: the sampled dense x dense product (sparse C) takes the built-in "
                "semirings only");
  (void)semiring;
  detail::mxm(C.storage(), A.storage(), B.storage(), S::id, options, f);
}

}  // namespace geblas
