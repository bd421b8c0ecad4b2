// softmax_rows: the softmax of each row of a sparse matrix over its stored entries (the
// edge softmax of graph attention), and its backward. C takes S's pattern, and each row
// i's values become
//   C(i, j) = exp(S(i, j) - m_i) / sum over the row's stored k of exp(S(i, k) - m_i),
// m_i the row's largest value (subtracted so that no exp overflows; the result is the
// same in exact arithmetic). A row without entries stays empty. A row whose values are
// all -inf has no defined softmax; geblas gives it zeros (the row then passes no
// gradient either). A NaN in a row makes the whole row NaN. Float32 and float64 compute
// in their own type; float16 and bfloat16 compute in float (one rounding per result).
//
// softmax_rows_backward(dS, P, dP), for P = softmax_rows(S) and dP the gradient of P:
//   dS(i, j) = P(i, j) (dP(i, j) - sum over the row's k of P(i, k) dP(i, k)),
// on P's pattern. dP must hold P's pattern: the same number of entries and the same row
// lengths are checked (cheap), and the column indices are assumed equal (a dP with the
// same row lengths but other columns is not detected: its values are paired in order).
// No mask and no accumulator: C and dS are replaced.
#pragma once

#include "geblas/sparse_matrix.hpp"

namespace geblas {

namespace detail {
GEBLAS_API void softmax_rows(SparseStorage& C, const SparseStorage& S);
GEBLAS_API void softmax_rows_backward(SparseStorage& dS, const SparseStorage& P, const SparseStorage& dP);
// The same on values alone: out (S.nvals values of S's type, on S's device) receives
// the softmax of S's rows; S's own values may be out (in place).
GEBLAS_API void softmax_rows_values(void* out, const SparseStorage& S);
// out = the backward's values on P's pattern, with dP's values given in P's order.
GEBLAS_API void softmax_rows_backward_values(void* out, const SparseStorage& P, const void* dP);
}  // namespace detail

template <class T>
void softmax_rows(SparseMatrix<T>& C, const SparseMatrix<T>& S) {
  detail::softmax_rows(C.storage(), S.storage());
}

template <class T>
SparseMatrix<T> softmax_rows(const SparseMatrix<T>& S) {
  SparseMatrix<T> C(S.nrows(), S.ncols(), S.device());
  detail::softmax_rows(C.storage(), S.storage());
  return C;
}

template <class T>
void softmax_rows_backward(SparseMatrix<T>& dS, const SparseMatrix<T>& P, const SparseMatrix<T>& dP) {
  detail::softmax_rows_backward(dS.storage(), P.storage(), dP.storage());
}

}  // namespace geblas
