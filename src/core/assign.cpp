// assign entry points, with GrB_assign semantics: the mask has the shape of the whole
// output C (not of the region), and replace clears entries of C outside the mask
// anywhere in C. The backend's region step builds Z (C with the region rows x cols
// replaced by, or accumulated with, A or the scalar); the write-back then applies the
// mask without an accumulator: C<M, replace> = Z.
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "core/op_support.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/operations/assign.hpp"

namespace geblas::detail {
namespace {

void check_common(const char* op, const SparseStorage& C, const Options& o) {
  check_accum(op, o, C.type);
  check_matrix_mask(op, o, C.nrows, C.ncols, C.device);
  if (o.transpose_b) throw InvalidValue(std::string(op) + ": transpose_b does not apply (one input)");
}

void check_common(const char* op, const VectorStorage& w, const Options& o) {
  check_accum(op, o, w.type);
  check_vector_mask(op, o, w.size, w.device);
  if (o.transpose_a || o.transpose_b) throw InvalidValue(std::string(op) + ": transposes do not apply to vectors");
}

void finish(SparseStorage& C, SparseStorage& Z, const Options& o) {
  required(backend_for(C.device).write_sparse, "mask/accumulate", C.device)(C, Z, without_accum(o));
}

void finish(VectorStorage& w, VectorResult& Z, const Options& o) {
  required(backend_for(w.device).write_vector, "mask/accumulate", w.device)(w, Z, without_accum(o), zero_scalar());
}

}  // namespace

void assign(SparseStorage& C, const SparseStorage& A, const IndexList& rows, const IndexList& cols,
            const Options& o) {
  const char* op = "assign";
  check_type(op, "A", A.type, C.type);
  check_device(op, "A", A.device, C.device);
  check_common(op, C, o);
  const DeviceIndices r = upload_indices(op, "rows", rows, C.nrows, "C's rows", true, C.device);
  const DeviceIndices c = upload_indices(op, "cols", cols, C.ncols, "C's columns", true, C.device);
  const Index am = o.transpose_a ? A.ncols : A.nrows, an = o.transpose_a ? A.nrows : A.ncols;
  if (am != r.view.count || an != c.view.count)
    throw DimensionMismatch("assign: A" + std::string(o.transpose_a ? "'" : "") + " is " + shape(am, an) +
                            " but the index lists select " + shape(r.view.count, c.view.count));
  const Backend& be = backend_for(C.device);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  rec.variant = "region";
  std::shared_ptr<const SparseStorage> At;
  if (o.transpose_a) At = cached_transpose(A);
  SparseStorage Z;
  required(be.assign_sparse, op, C.device)(Z, C, At ? At.get() : &A, ScalarBytes{}, r.view, c.view, o.accum.op);
  finish(C, Z, o);
  end_dispatch();
}

void assign_scalar(SparseStorage& C, const void* value, const IndexList& rows, const IndexList& cols,
                   const Options& o) {
  const char* op = "assign(scalar)";
  check_common(op, C, o);
  if (o.transpose_a) throw InvalidValue("assign(scalar): transpose_a does not apply to a scalar");
  const DeviceIndices r = upload_indices(op, "rows", rows, C.nrows, "C's rows", true, C.device);
  const DeviceIndices c = upload_indices(op, "cols", cols, C.ncols, "C's columns", true, C.device);
  const Backend& be = backend_for(C.device);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  rec.variant = "region";
  SparseStorage Z;
  required(be.assign_sparse, op, C.device)(Z, C, nullptr, scalar_from(value, C.type), r.view, c.view, o.accum.op);
  finish(C, Z, o);
  end_dispatch();
}

void assign(VectorStorage& w, const VectorStorage& u, const IndexList& indices, const Options& o) {
  const char* op = "assign";
  check_type(op, "u", u.type, w.type);
  check_device(op, "u", u.device, w.device);
  check_common(op, w, o);
  const DeviceIndices idx = upload_indices(op, "indices", indices, w.size, "w's size", true, w.device);
  if (u.size != idx.view.count)
    throw DimensionMismatch("assign: u has size " + std::to_string(u.size) + " but the index list selects " +
                            std::to_string(idx.view.count));
  const Backend& be = backend_for(w.device);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  rec.variant = "region";
  VectorResult Z;
  required(be.assign_vector, op, w.device)(Z, w, &u, ScalarBytes{}, idx.view, o.accum.op);
  finish(w, Z, o);
  end_dispatch();
}

void assign_scalar(VectorStorage& w, const void* value, const IndexList& indices, const Options& o) {
  const char* op = "assign(scalar)";
  check_common(op, w, o);
  const DeviceIndices idx = upload_indices(op, "indices", indices, w.size, "w's size", true, w.device);
  const Backend& be = backend_for(w.device);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  rec.variant = "region";
  VectorResult Z;
  required(be.assign_vector, op, w.device)(Z, w, nullptr, scalar_from(value, w.type), idx.view, o.accum.op);
  finish(w, Z, o);
  end_dispatch();
}

}  // namespace geblas::detail
