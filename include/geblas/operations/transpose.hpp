// transpose: C<M> = accum(C, A'). transposed(A) is the plain form.
#pragma once

#include "geblas/dense_matrix.hpp"
#include "geblas/options.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas {

namespace detail {
GEBLAS_API void transpose(SparseStorage& C, const SparseStorage& A, const Options& o);
GEBLAS_API void transpose(DenseStorage& C, const DenseStorage& A, const Options& o);
}  // namespace detail

template <class Obj>
void transpose(Obj& C, const Obj& A, const Options& options = {}) {
  detail::transpose(C.storage(), A.storage(), options);
}

template <class Obj>
Obj transposed(const Obj& A) {
  Obj C(A.ncols(), A.nrows(), A.device());
  detail::transpose(C.storage(), A.storage(), {});
  return C;
}

}  // namespace geblas
