// extract entry points: C<M> = accum(C, A(rows, cols)), w<m> = accum(w, u(indices))
// and w<m> = accum(w, A(rows, col)). Index lists are checked here (IndexOutOfBounds
// names the argument and the position) and copied to the operands' device. A column
// is row `col` of A', taken from A's cache, so the backend needs no column access.
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "core/op_support.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/operations/extract.hpp"

namespace geblas::detail {

void extract(SparseStorage& C, const SparseStorage& A, const IndexList& rows, const IndexList& cols,
             const Options& o) {
  const char* op = "extract";
  check_type(op, "A", A.type, C.type);
  check_accum(op, o, C.type);
  check_device(op, "A", A.device, C.device);
  if (o.transpose_b) throw InvalidValue("extract: transpose_b does not apply (one input)");
  const Index am = o.transpose_a ? A.ncols : A.nrows, an = o.transpose_a ? A.nrows : A.ncols;
  const DeviceIndices r = upload_indices(op, "rows", rows, am, o.transpose_a ? "A's columns" : "A's rows", false, C.device);
  const DeviceIndices c = upload_indices(op, "cols", cols, an, o.transpose_a ? "A's rows" : "A's columns", false, C.device);
  if (C.nrows != r.view.count || C.ncols != c.view.count)
    throw DimensionMismatch("extract: C is " + shape(C.nrows, C.ncols) + " but the index lists select " +
                            shape(r.view.count, c.view.count));
  check_matrix_mask(op, o, C.nrows, C.ncols, C.device);
  const Backend& be = backend_for(C.device);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  rec.variant = "sparse_rows";
  std::shared_ptr<const SparseStorage> At;
  if (o.transpose_a) At = cached_transpose(A);
  SparseStorage T;
  required(be.extract_sparse, op, C.device)(T, At ? *At : A, r.view, c.view);
  required(be.write_sparse, "mask/accumulate", C.device)(C, T, o);
  end_dispatch();
}

void extract(VectorStorage& w, const VectorStorage& u, const IndexList& indices, const Options& o) {
  const char* op = "extract";
  check_type(op, "u", u.type, w.type);
  check_accum(op, o, w.type);
  check_device(op, "u", u.device, w.device);
  if (o.transpose_a || o.transpose_b) throw InvalidValue("extract: transposes do not apply to vectors");
  const DeviceIndices idx = upload_indices(op, "indices", indices, u.size, "u's size", false, w.device);
  if (w.size != idx.view.count)
    throw DimensionMismatch("extract: w has size " + std::to_string(w.size) + " but the index list selects " +
                            std::to_string(idx.view.count));
  check_vector_mask(op, o, w.size, w.device);
  const Backend& be = backend_for(w.device);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  rec.variant = "vector";
  VectorResult t;
  required(be.extract_vector, op, w.device)(t, u, idx.view);
  required(be.write_vector, "mask/accumulate", w.device)(w, t, o, zero_scalar());
  end_dispatch();
}

void extract_column(VectorStorage& w, const SparseStorage& A, const IndexList& rows, Index col, const Options& o) {
  const char* op = "extract_column";
  check_type(op, "A", A.type, w.type);
  check_accum(op, o, w.type);
  check_device(op, "A", A.device, w.device);
  if (o.transpose_b) throw InvalidValue("extract_column: transpose_b does not apply (one input)");
  // With transpose_a the "column" is a row of A.
  const Index am = o.transpose_a ? A.ncols : A.nrows, an = o.transpose_a ? A.nrows : A.ncols;
  if (col < 0 || col >= an)
    throw IndexOutOfBounds("extract_column: col = " + std::to_string(col) + " is outside " +
                           (o.transpose_a ? "A's rows" : "A's columns") + " [0, " + std::to_string(an) + ")");
  const DeviceIndices r = upload_indices(op, "rows", rows, am, o.transpose_a ? "A's columns" : "A's rows", false, w.device);
  if (w.size != r.view.count)
    throw DimensionMismatch("extract_column: w has size " + std::to_string(w.size) + " but the index list selects " +
                            std::to_string(r.view.count));
  check_vector_mask(op, o, w.size, w.device);
  const Backend& be = backend_for(w.device);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  rec.variant = "row_of_transpose";
  // Column col of op(A) is row col of op(A)'; op(A)' is A' (cached) or A itself.
  std::shared_ptr<const SparseStorage> At;
  if (!o.transpose_a) At = cached_transpose(A);
  const DeviceIndices one = upload_indices(op, "col", IndexList{col}, an, "A's columns", false, w.device);
  SparseStorage T;  // 1 x |rows|
  required(be.extract_sparse, op, w.device)(T, At ? *At : A, one.view, r.view);
  // A one-row CSR's columns and values are a sparse vector's indices and values.
  VectorResult t;
  t.t.size = r.view.count;
  t.t.nvals = T.nvals;
  t.t.dense = false;
  t.t.type = T.type;
  t.t.device = T.device;
  t.t.indices = std::move(T.col_indices);
  t.t.values = std::move(T.values);
  required(be.write_vector, "mask/accumulate", w.device)(w, t, o, zero_scalar());
  end_dispatch();
}

}  // namespace geblas::detail
