// ewise_add / ewise_mult entry points: validation (types, devices, shapes, mask,
// accumulator; transpose_a / transpose_b on matrices), the backend's element-wise
// step, then the write-back. A dense output takes zero where no input entry exists.
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "core/op_support.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/operations/ewise.hpp"

namespace geblas::detail {
namespace {

const char* name_of(EwiseKind kind) { return kind == EwiseKind::add ? "ewise_add" : "ewise_mult"; }

void check_op(const char* op, BinaryOpId id) {
  if (id == BinaryOpId::none) throw InvalidValue(std::string(op) + ": no operator given");
}

template <class X>
void check_common(const char* op, const X& C, const X& A, const X& B, BinaryOpId id, const Options& o,
                  const char* a_name = "A", const char* b_name = "B") {
  check_op(op, id);
  check_type(op, a_name, A.type, C.type);
  check_type(op, b_name, B.type, C.type);
  check_accum(op, o, C.type);
  check_device(op, a_name, A.device, C.device);
  check_device(op, b_name, B.device, C.device);
}

template <class X>
void check_matrix_shapes(const char* op, const X& C, const X& A, const X& B, const Options& o) {
  const Index am = o.transpose_a ? A.ncols : A.nrows, an = o.transpose_a ? A.nrows : A.ncols;
  const Index bm = o.transpose_b ? B.ncols : B.nrows, bn = o.transpose_b ? B.nrows : B.ncols;
  if (am != C.nrows || an != C.ncols || bm != C.nrows || bn != C.ncols)
    throw DimensionMismatch(std::string(op) + ": C is " + shape(C.nrows, C.ncols) + ", A" +
                            (o.transpose_a ? "'" : "") + " is " + shape(am, an) + ", B" +
                            (o.transpose_b ? "'" : "") + " is " + shape(bm, bn) + "; all must match");
  check_matrix_mask(op, o, C.nrows, C.ncols, C.device);
}

// The checks of a matrix ewise, then its dispatch record on C's backend.
template <class X>
const Backend& begin_matrix_ewise(const char* name, const X& C, const X& A, const X& B, BinaryOpId op, const Options& o,
                                  const char* variant) {
  check_common(name, C, A, B, op, o);
  check_matrix_shapes(name, C, A, B, o);
  const Backend& be = backend_for(C.device);
  begin_dispatch(name, be.name).variant = variant;
  return be;
}

}  // namespace

void ewise(SparseStorage& C, const SparseStorage& A, const SparseStorage& B, BinaryOpId op, EwiseKind kind,
           const Options& o) {
  const char* name = name_of(kind);
  const Backend& be = begin_matrix_ewise(name, C, A, B, op, o, "sparse_merge");
  std::shared_ptr<const SparseStorage> At, Bt;
  if (o.transpose_a) At = cached_transpose(A);
  if (o.transpose_b) Bt = cached_transpose(B);
  SparseStorage T;
  required(be.ewise_sparse, name, C.device)(T, At ? *At : A, Bt ? *Bt : B, op, kind);
  required(be.write_sparse, "mask/accumulate", C.device)(C, T, o);
  end_dispatch();
}

void ewise(DenseStorage& C, const DenseStorage& A, const DenseStorage& B, BinaryOpId op, EwiseKind kind,
           const Options& o) {
  const char* name = name_of(kind);
  const Backend& be = begin_matrix_ewise(name, C, A, B, op, o, "dense");
  DenseStorage At, Bt;
  if (o.transpose_a) required(be.transpose_dense, "transpose(dense)", C.device)(At, A);
  if (o.transpose_b) required(be.transpose_dense, "transpose(dense)", C.device)(Bt, B);
  DenseStorage T = make_dense(C.nrows, C.ncols, Layout::row_major, C.type, C.device);
  required(be.ewise_dense, name, C.device)(T, o.transpose_a ? At : A, o.transpose_b ? Bt : B, op);
  DenseProduct p;
  p.T = &T;
  required(be.write_dense, "mask/accumulate", C.device)(C, p, o, zero_scalar());
  end_dispatch();
}

void ewise(VectorStorage& w, const VectorStorage& u, const VectorStorage& v, BinaryOpId op, EwiseKind kind,
           const Options& o) {
  const char* name = name_of(kind);
  check_common(name, w, u, v, op, o, "u", "v");
  if (u.size != w.size || v.size != w.size)
    throw DimensionMismatch(std::string(name) + ": w has size " + std::to_string(w.size) + ", u " +
                            std::to_string(u.size) + ", v " + std::to_string(v.size) + "; all must match");
  check_vector_mask(name, o, w.size, w.device);
  if (o.transpose_a || o.transpose_b) throw InvalidValue(std::string(name) + ": transposes do not apply to vectors");
  const Backend& be = backend_for(w.device);
  DispatchRecord& rec = begin_dispatch(name, be.name);
  rec.variant = u.dense && v.dense ? "dense" : "sparse";
  VectorResult t;
  required(be.ewise_vector, name, w.device)(t, u, v, op, kind);
  required(be.write_vector, "mask/accumulate", w.device)(w, t, o, zero_scalar());
  end_dispatch();
}

}  // namespace geblas::detail
