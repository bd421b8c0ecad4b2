// select entry points: C<M> = accum(C, the entries of A where the predicate holds).
// The value thunk arrives as a host pointer and goes to the backend by value.
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "core/op_support.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/operations/select.hpp"

namespace geblas::detail {
namespace {

bool is_value_predicate(SelectOpId op) {
  switch (op) {
    case SelectOpId::value_eq:
    case SelectOpId::value_ne:
    case SelectOpId::value_lt:
    case SelectOpId::value_le:
    case SelectOpId::value_gt:
    case SelectOpId::value_ge: return true;
    default: return false;
  }
}

SelectPredicate predicate_of(const SelectArgs& p, TypeId type) {
  SelectPredicate out;
  out.op = p.op;
  out.k = p.index_thunk;
  if (is_value_predicate(p.op)) {
    if (!p.value_thunk) throw InvalidValue("select: a value predicate needs its threshold");
    out.threshold = scalar_from(p.value_thunk, type);
  }
  return out;
}

}  // namespace

void select(SparseStorage& C, const SparseStorage& A, const SelectArgs& p, const Options& o) {
  check_type("select", "A", A.type, C.type);
  check_accum("select", o, C.type);
  check_device("select", "A", A.device, C.device);
  const Index m = o.transpose_a ? A.ncols : A.nrows, n = o.transpose_a ? A.nrows : A.ncols;
  if (C.nrows != m || C.ncols != n)
    throw DimensionMismatch("select: C is " + shape(C.nrows, C.ncols) + " but A" + (o.transpose_a ? "'" : "") +
                            " is " + shape(m, n));
  check_matrix_mask("select", o, C.nrows, C.ncols, C.device);
  if (o.transpose_b) throw InvalidValue("select: transpose_b does not apply (one input)");
  const SelectPredicate pred = predicate_of(p, C.type);
  const Backend& be = backend_for(C.device);
  DispatchRecord& rec = begin_dispatch("select", be.name);
  rec.variant = "sparse_rows";
  std::shared_ptr<const SparseStorage> At;
  if (o.transpose_a) At = cached_transpose(A);
  SparseStorage T;
  required(be.select_sparse, "select", C.device)(T, At ? *At : A, pred);
  required(be.write_sparse, "mask/accumulate", C.device)(C, T, o);
  end_dispatch();
}

void select(VectorStorage& w, const VectorStorage& u, const SelectArgs& p, const Options& o) {
  check_type("select", "u", u.type, w.type);
  check_accum("select", o, w.type);
  check_device("select", "u", u.device, w.device);
  if (u.size != w.size)
    throw DimensionMismatch("select: w has size " + std::to_string(w.size) + ", u has size " + std::to_string(u.size));
  check_vector_mask("select", o, w.size, w.device);
  if (o.transpose_a || o.transpose_b) throw InvalidValue("select: transposes do not apply to vectors");
  const SelectPredicate pred = predicate_of(p, w.type);
  const Backend& be = backend_for(w.device);
  DispatchRecord& rec = begin_dispatch("select", be.name);
  rec.variant = "vector";
  VectorResult t;
  required(be.select_vector, "select", w.device)(t.t, u, pred);
  required(be.write_vector, "mask/accumulate", w.device)(w, t, o, zero_scalar());
  end_dispatch();
}

}  // namespace geblas::detail
