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

void row_stats(RowStats& s, const SparseStorage& A);

void transpose_sparse(SparseStorage& T, const SparseStorage& A);
void transpose_dense(DenseStorage& T, const DenseStorage& A);
void relayout_dense(DenseStorage& T, const DenseStorage& A, Layout layout);

void write_dense(DenseStorage& C, const DenseProduct& T, const Options& o, const ScalarBytes& identity);
void write_sparse(SparseStorage& C, SparseStorage& T, const Options& o);
void write_vector(VectorStorage& w, VectorResult& t, const Options& o, const ScalarBytes& identity);

void mxv_pull(const MxvArgs& args);
void mxv_push(const MxvArgs& args);
void ewise_sparse(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, BinaryOpId op, EwiseKind kind);
void ewise_dense(DenseStorage& T, const DenseStorage& A, const DenseStorage& B, BinaryOpId op);
void ewise_vector(VectorResult& t, const VectorStorage& u, const VectorStorage& v, BinaryOpId op, EwiseKind kind);
void apply_values(void* out, const void* in, Index count, TypeId type, const ApplyArgs& f, int ordinal);
void convert_values(void* out, TypeId to, const void* in, TypeId from, Index count, int ordinal);
void reduce_rows_sparse(VectorResult& t, const SparseStorage& A, MonoidId m);
void reduce_rows_dense(VectorStorage& t, const DenseStorage& A, MonoidId m);
void reduce_values(ScalarBytes& result, const void* values, Index count, TypeId type, MonoidId m, int ordinal);
void select_sparse(SparseStorage& T, const SparseStorage& A, const SelectPredicate& p);
void select_vector(VectorStorage& t, const VectorStorage& u, const SelectPredicate& p);
void extract_sparse(SparseStorage& T, const SparseStorage& A, const IndexArray& rows, const IndexArray& cols);
void extract_vector(VectorResult& t, const VectorStorage& u, const IndexArray& indices);
void assign_sparse(SparseStorage& Z, const SparseStorage& C, const SparseStorage* A, const ScalarBytes& scalar,
                   const IndexArray& rows, const IndexArray& cols, BinaryOpId accum);
void assign_vector(VectorResult& Z, const VectorStorage& w, const VectorStorage* u, const ScalarBytes& scalar,
                   const IndexArray& indices, BinaryOpId accum);

// Calls f.template operator()<S>() for the built-in semiring `s` over T, compiling only
// the (semiring, type) pairs that libgeblas.so supports.
template <class T, class F>
void with_semiring(SemiringId s, F&& f) {
  visit_semiring<T>(s, [&]<class S>() {
    if constexpr (supports_semiring(S::id, type_id<T>)) f.template operator()<S>();
  });
}

}  // namespace geblas::detail::cpu
