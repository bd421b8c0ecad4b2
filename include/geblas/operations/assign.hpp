// assign: C<M>(rows, cols) = accum(C(rows, cols), A) and the scalar forms, which set
// every listed position: assign(levels, depth, IndexList::all(), {.mask = frontier})
// is the level update of a BFS. Repeated indices are an InvalidIndex error; an index
// outside C / w is IndexOutOfBounds naming the list, the position and the index.
//
// Semantics are GrB_assign's (not GxB_subassign's): the mask has the shape of the
// whole output, and C<M, replace>(rows, cols) = accum(C(rows, cols), A) means
//   Z = C, except on the region rows x cols: Z = A there without an accumulator
//       (entries of C in the region that A lacks are deleted), accum(C, A) on the
//       union with one; then C = Z where the mask allows, and outside the mask C is
//       kept (or, with replace, cleared anywhere in C, also outside the region).
// The scalar forms treat A as full of the value. A dense Vector output stores zero
// (T{}) where Z has no entry.
#pragma once

#include <type_traits>

#include "geblas/operations/index_list.hpp"
#include "geblas/options.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas {

namespace detail {
GEBLAS_API void assign(SparseStorage& C, const SparseStorage& A, const IndexList& rows,
                       const IndexList& cols, const Options& o);
GEBLAS_API void assign_scalar(SparseStorage& C, const void* value, const IndexList& rows,
                              const IndexList& cols, const Options& o);
GEBLAS_API void assign(VectorStorage& w, const VectorStorage& u, const IndexList& indices,
                       const Options& o);
GEBLAS_API void assign_scalar(VectorStorage& w, const void* value, const IndexList& indices,
                              const Options& o);
}  // namespace detail

template <Scalar T>
void assign(SparseMatrix<T>& C, const SparseMatrix<T>& A, const IndexList& rows,
            const IndexList& cols, const Options& options = {}) {
  detail::assign(C.storage(), A.storage(), rows, cols, options);
}
template <Scalar T>
void assign(SparseMatrix<T>& C, std::type_identity_t<T> value, const IndexList& rows, const IndexList& cols,
            const Options& options = {}) {
  detail::assign_scalar(C.storage(), &value, rows, cols, options);
}
template <Scalar T>
void assign(Vector<T>& w, const Vector<T>& u, const IndexList& indices, const Options& options = {}) {
  detail::assign(w.storage(), u.storage(), indices, options);
}
template <Scalar T>
void assign(Vector<T>& w, std::type_identity_t<T> value, const IndexList& indices, const Options& options = {}) {
  detail::assign_scalar(w.storage(), &value, indices, options);
}

}  // namespace geblas
