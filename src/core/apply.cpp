// apply entry points: C<M> = accum(C, f(A)). The result keeps A's pattern, so the core
// copies the pattern (on A's device) and the backend maps the values; transpose_a
// takes A' from A's cache (sparse) or the backend's dense transpose.
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "core/op_support.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/operations/apply.hpp"

namespace geblas::detail {
namespace {

ApplyArgs args_of(const ApplyOp& op, TypeId type) {
  ApplyArgs a;
  a.unary = op.unary;
  a.binary = op.binary;
  if (op.binary != BinaryOpId::none) {
    if (!op.scalar) throw InvalidValue("apply: a binary operator needs a scalar");
    a.scalar = scalar_from(op.scalar, type);
  }
  return a;
}

template <class X>
void check_common(const X& C, const X& A, const Options& o) {
  check_type("apply", "A", A.type, C.type);
  check_accum("apply", o, C.type);
  check_device("apply", "A", A.device, C.device);
  if (o.transpose_b) throw InvalidValue("apply: transpose_b does not apply (one input)");
}

template <class X>
void check_matrix_shape(const X& C, const X& A, const Options& o) {
  const Index m = o.transpose_a ? A.ncols : A.nrows, n = o.transpose_a ? A.nrows : A.ncols;
  if (C.nrows != m || C.ncols != n)
    throw DimensionMismatch("apply: C is " + shape(C.nrows, C.ncols) + " but A" + (o.transpose_a ? "'" : "") +
                            " is " + shape(m, n));
  check_matrix_mask("apply", o, C.nrows, C.ncols, C.device);
}

// The checks of a matrix apply, then its dispatch record on C's backend.
template <class X>
const Backend& begin_matrix_apply(const X& C, const X& A, const Options& o) {
  check_common(C, A, o);
  check_matrix_shape(C, A, o);
  const Backend& be = backend_for(C.device);
  begin_dispatch("apply", be.name).variant = "map_values";
  return be;
}

}  // namespace

void apply(SparseStorage& C, const SparseStorage& A, const ApplyOp& op, const Options& o) {
  const Backend& be = begin_matrix_apply(C, A, o);
  const ApplyArgs f = args_of(op, C.type);
  std::shared_ptr<const SparseStorage> At;
  if (o.transpose_a) At = cached_transpose(A);
  const SparseStorage& src = At ? *At : A;
  SparseStorage T;
  T.nrows = src.nrows;
  T.ncols = src.ncols;
  T.nvals = src.nvals;
  T.type = src.type;
  T.device = src.device;
  T.row_offsets = src.row_offsets;
  T.col_indices = src.col_indices;
  T.values = RawBuffer(static_cast<std::size_t>(src.nvals) * size_of(src.type), src.device);
  required(be.apply_values, "apply", C.device)(T.values.data(), src.values.data(), src.nvals, src.type, f,
                                                C.device.ordinal());
  required(be.write_sparse, "mask/accumulate", C.device)(C, T, o);
  end_dispatch();
}

void apply(DenseStorage& C, const DenseStorage& A, const ApplyOp& op, const Options& o) {
  const Backend& be = begin_matrix_apply(C, A, o);
  const ApplyArgs f = args_of(op, C.type);
  DenseStorage At;
  if (o.transpose_a) required(be.transpose_dense, "transpose(dense)", C.device)(At, A);
  const DenseStorage& src = o.transpose_a ? At : A;
  // Same layout as the source, so that the map runs over the flat array.
  DenseStorage T = make_dense(src.nrows, src.ncols, src.layout, src.type, src.device);
  required(be.apply_values, "apply", C.device)(T.data.data(), src.data.data(), src.nrows * src.ncols, src.type, f,
                                                C.device.ordinal());
  DenseProduct p;
  p.T = &T;
  required(be.write_dense, "mask/accumulate", C.device)(C, p, o, zero_scalar());
  end_dispatch();
}

void apply(VectorStorage& w, const VectorStorage& u, const ApplyOp& op, const Options& o) {
  check_common(w, u, o);
  if (o.transpose_a) throw InvalidValue("apply: transpose_a does not apply to a vector");
  if (u.size != w.size)
    throw DimensionMismatch("apply: w has size " + std::to_string(w.size) + ", u has size " + std::to_string(u.size));
  check_vector_mask("apply", o, w.size, w.device);
  const ApplyArgs f = args_of(op, w.type);
  const Backend& be = backend_for(w.device);
  DispatchRecord& rec = begin_dispatch("apply", be.name);
  rec.variant = "map_values";
  VectorResult t;
  t.t.size = u.size;
  t.t.nvals = u.nvals;
  t.t.dense = u.dense;
  t.t.type = u.type;
  t.t.device = u.device;
  t.t.indices = u.indices;
  t.t.values = RawBuffer(static_cast<std::size_t>(u.nvals) * size_of(u.type), u.device);
  required(be.apply_values, "apply", w.device)(t.t.values.data(), u.values.data(), u.nvals, u.type, f,
                                                w.device.ordinal());
  required(be.write_vector, "mask/accumulate", w.device)(w, t, o, zero_scalar());
  end_dispatch();
}

}  // namespace geblas::detail
