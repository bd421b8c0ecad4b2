// The CPU backend's kernels, one declaration per entry of the backend table.
#pragma once

#include "core/backend.hpp"
#include "geblas/detail/views.hpp"

namespace geblas::detail::cpu {

void mxm_sparse_dense(const SpmmArgs& args);
void mxm_sparse_sparse(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, SemiringId s,
                       const Options& o);
void mxm_dense_sparse(DenseStorage& T, const DenseStorage& A, const SparseStorage& B, SemiringId s);
void mxm_dense_dense(DenseStorage& T, const DenseStorage& A, const DenseStorage& B, SemiringId s);

void transpose_sparse(SparseStorage& T, const SparseStorage& A);
void transpose_dense(DenseStorage& T, const DenseStorage& A);
void relayout_dense(DenseStorage& T, const DenseStorage& A, Layout layout);

void write_dense(DenseStorage& C, const DenseProduct& T, const Options& o, const ScalarBytes& identity);
void write_sparse(SparseStorage& C, SparseStorage& T, const Options& o);

// Calls f.template operator()<S>() for the built-in semiring `s` over T, compiling only
// the (semiring, type) pairs that libgeblas.so supports.
template <class T, class F>
void with_semiring(SemiringId s, F&& f) {
  visit_semiring<T>(s, [&]<class S>() {
    if constexpr (supports_semiring(S::id, type_id<T>)) f.template operator()<S>();
  });
}

}  // namespace geblas::detail::cpu
