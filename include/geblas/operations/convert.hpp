// convert: a copy of a matrix or vector with its values converted to another stored type,
// on the operand's device. It is how 16-bit values (half, bfloat16) are made from float
// data and read back as float for the operations that compute on float32/float64 only.
//
// Rounding: to nearest, ties to even, once (double -> half is not rounded through
// float); NaN stays NaN; values beyond the target's range become infinities (floating
// targets) or saturate (integer targets, with NaN -> 0, truncating toward zero); any
// value converts to bool as x != 0. geblas/detail/value_convert.hpp holds the one
// implementation the CPU and the GPU share.
#pragma once

#include "geblas/dense_matrix.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas {

namespace detail {
// out[k] = in[k] converted, for the whole value array; out is replaced by a fresh
// storage of `to` on the operand's device (same pattern / shape / layout).
GEBLAS_API SparseStorage convert(const SparseStorage& A, TypeId to);
GEBLAS_API DenseStorage convert(const DenseStorage& A, TypeId to);
GEBLAS_API VectorStorage convert(const VectorStorage& u, TypeId to);
}  // namespace detail

template <Scalar U, Scalar T>
SparseMatrix<U> convert(const SparseMatrix<T>& A) {
  return SparseMatrix<U>(detail::convert(A.storage(), type_id<U>));
}

template <Scalar U, Scalar T>
DenseMatrix<U> convert(const DenseMatrix<T>& A) {
  return DenseMatrix<U>(detail::convert(A.storage(), type_id<U>));
}

template <Scalar U, Scalar T>
Vector<U> convert(const Vector<T>& u) {
  return Vector<U>(detail::convert(u.storage(), type_id<U>));
}

}  // namespace geblas
