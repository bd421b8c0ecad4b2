// extract: C<M> = accum(C, A(rows, cols)), w<m> = accum(w, u(indices)), and a column
// of a matrix as a vector. Index lists may repeat and be unsorted; an index outside
// the source is an IndexOutOfBounds error naming it. A dense Vector output stores zero
// (T{}) where the extracted entry is absent. With transpose_a, extract reads A' and
// extract_column reads a row of A.
#pragma once

#include "geblas/operations/index_list.hpp"
#include "geblas/options.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas {

namespace detail {
GEBLAS_API void extract(SparseStorage& C, const SparseStorage& A, const IndexList& rows,
                        const IndexList& cols, const Options& o);
GEBLAS_API void extract(VectorStorage& w, const VectorStorage& u, const IndexList& indices,
                        const Options& o);
GEBLAS_API void extract_column(VectorStorage& w, const SparseStorage& A, const IndexList& rows,
                               Index col, const Options& o);
}  // namespace detail

template <Scalar T>
void extract(SparseMatrix<T>& C, const SparseMatrix<T>& A, const IndexList& rows,
             const IndexList& cols, const Options& options = {}) {
  detail::extract(C.storage(), A.storage(), rows, cols, options);
}
template <Scalar T>
void extract(Vector<T>& w, const Vector<T>& u, const IndexList& indices, const Options& options = {}) {
  detail::extract(w.storage(), u.storage(), indices, options);
}
template <Scalar T>
void extract_column(Vector<T>& w, const SparseMatrix<T>& A, const IndexList& rows, Index col,
                    const Options& options = {}) {
  detail::extract_column(w.storage(), A.storage(), rows, col, options);
}

}  // namespace geblas
