// reduce: rows of a matrix to a vector, w<m> = accum(w, add_j A(:, j)) (columns with
// transpose_a), or a whole matrix / vector to one scalar, over a monoid. A row with no
// entries gives no entry in a sparse w and the identity in a dense w.
#pragma once

#include "geblas/dense_matrix.hpp"
#include "geblas/monoid.hpp"
#include "geblas/options.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas {

namespace detail {
GEBLAS_API void reduce_rows(VectorStorage& w, const SparseStorage& A, MonoidId m, const Options& o);
GEBLAS_API void reduce_rows(VectorStorage& w, const DenseStorage& A, MonoidId m, const Options& o);
// Writes one value of A's type to *result.
GEBLAS_API void reduce_scalar(void* result, const SparseStorage& A, MonoidId m);
GEBLAS_API void reduce_scalar(void* result, const DenseStorage& A, MonoidId m);
GEBLAS_API void reduce_scalar(void* result, const VectorStorage& u, MonoidId m);
}  // namespace detail

template <Scalar T, BuiltinMonoid M>
void reduce(Vector<T>& w, const SparseMatrix<T>& A, M, const Options& options = {}) {
  static_assert(std::is_same_v<typename M::value_type, T>, "geblas::reduce: monoid type must match");
  detail::reduce_rows(w.storage(), A.storage(), M::id, options);
}
template <Scalar T, BuiltinMonoid M>
void reduce(Vector<T>& w, const DenseMatrix<T>& A, M, const Options& options = {}) {
  static_assert(std::is_same_v<typename M::value_type, T>, "geblas::reduce: monoid type must match");
  detail::reduce_rows(w.storage(), A.storage(), M::id, options);
}
// The reduction of every entry; the identity for an object with no entries.
template <class Obj, BuiltinMonoid M>
typename Obj::value_type reduce(const Obj& A, M) {
  static_assert(std::is_same_v<typename M::value_type, typename Obj::value_type>,
                "geblas::reduce: monoid type must match");
  typename Obj::value_type result{};
  detail::reduce_scalar(&result, A.storage(), M::id);
  return result;
}

}  // namespace geblas
