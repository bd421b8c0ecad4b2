// reduce entry points: rows (or, with transpose_a, columns) of a matrix to a vector
// under mask and accumulator, and everything to one scalar. Absent entries of a dense
// w take the monoid's identity.
#include <cstring>
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "core/op_support.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/operations/reduce.hpp"

namespace geblas::detail {
namespace {

ScalarBytes monoid_identity(MonoidId m, TypeId t) {
  ScalarBytes out;
  visit_type(t, [&]<class T>() {
    visit_monoid<T>(m, [&]<class M>() { *static_cast<T*>(out.data()) = M::identity(); });
  });
  return out;
}

template <class X>
void check_rows(const VectorStorage& w, const X& A, const Options& o) {
  check_type("reduce", "A", A.type, w.type);
  check_accum("reduce", o, w.type);
  check_device("reduce", "A", A.device, w.device);
  const Index m = o.transpose_a ? A.ncols : A.nrows;
  if (w.size != m)
    throw DimensionMismatch("reduce: w has size " + std::to_string(w.size) + " but A" + (o.transpose_a ? "'" : "") +
                            " has " + std::to_string(m) + " rows");
  check_vector_mask("reduce", o, w.size, w.device);
  if (o.transpose_b) throw InvalidValue("reduce: transpose_b does not apply (one input)");
}

void reduce_flat(void* result, const void* values, Index count, TypeId type, MonoidId m, Device device) {
  const Backend& be = backend_for(device);
  DispatchRecord& rec = begin_dispatch("reduce(scalar)", be.name);
  rec.variant = "values";
  ScalarBytes r;
  required(be.reduce_values, "reduce(scalar)", device)(r, values, count, type, m, device.ordinal());
  std::memcpy(result, r.data(), size_of(type));
  end_dispatch();
}

}  // namespace

void reduce_rows(VectorStorage& w, const SparseStorage& A, MonoidId m, const Options& o) {
  check_rows(w, A, o);
  const Backend& be = backend_for(w.device);
  DispatchRecord& rec = begin_dispatch("reduce(rows)", be.name);
  rec.variant = "sparse_rows";
  std::shared_ptr<const SparseStorage> At;
  if (o.transpose_a) At = cached_transpose(A);
  VectorResult t;
  required(be.reduce_rows_sparse, "reduce(rows)", w.device)(t, At ? *At : A, m);
  required(be.write_vector, "mask/accumulate", w.device)(w, t, o, monoid_identity(m, w.type));
  end_dispatch();
}

void reduce_rows(VectorStorage& w, const DenseStorage& A, MonoidId m, const Options& o) {
  check_rows(w, A, o);
  const Backend& be = backend_for(w.device);
  DispatchRecord& rec = begin_dispatch("reduce(rows)", be.name);
  rec.variant = "dense_rows";
  DenseStorage At;
  if (o.transpose_a) required(be.transpose_dense, "transpose(dense)", w.device)(At, A);
  VectorResult t;
  required(be.reduce_rows_dense, "reduce(rows)", w.device)(t.t, o.transpose_a ? At : A, m);
  required(be.write_vector, "mask/accumulate", w.device)(w, t, o, monoid_identity(m, w.type));
  end_dispatch();
}

void reduce_scalar(void* result, const SparseStorage& A, MonoidId m) {
  reduce_flat(result, A.values.data(), A.nvals, A.type, m, A.device);
}

void reduce_scalar(void* result, const DenseStorage& A, MonoidId m) {
  // Dense storage is packed (ld equals the inner dimension), so its data is flat.
  reduce_flat(result, A.data.data(), A.nrows * A.ncols, A.type, m, A.device);
}

void reduce_scalar(void* result, const VectorStorage& u, MonoidId m) {
  reduce_flat(result, u.values.data(), u.nvals, u.type, m, u.device);
}

}  // namespace geblas::detail
