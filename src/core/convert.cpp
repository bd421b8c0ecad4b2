// convert entry points: copy the pattern / shape, convert the value array through the
// backend's convert_values on the operand's device. Any stored type to any other,
// 16-bit ones included: this is the path between float data and half / bfloat16.
#include "core/backend.hpp"
#include "core/trace.hpp"
#include "geblas/operations/convert.hpp"

namespace geblas::detail {
namespace {

RawBuffer convert_buffer(const RawBuffer& in, Index count, TypeId from, TypeId to, Device device) {
  RawBuffer out(checked_bytes(count, 1, size_of(to), "convert"), device);
  const Backend& be = backend_for(device);
  DispatchRecord& rec = begin_dispatch("convert", be.name);
  rec.variant = "values";
  required(be.convert_values, "convert", device)(out.data(), to, in.data(), from, count, device.ordinal());
  end_dispatch();
  return out;
}

}  // namespace

SparseStorage convert(const SparseStorage& A, TypeId to) {
  SparseStorage out;
  out.nrows = A.nrows;
  out.ncols = A.ncols;
  out.nvals = A.nvals;
  out.type = to;
  out.device = A.device;
  out.row_offsets = A.row_offsets;
  out.col_indices = A.col_indices;
  out.values = convert_buffer(A.values, A.nvals, A.type, to, A.device);
  return out;
}

DenseStorage convert(const DenseStorage& A, TypeId to) {
  DenseStorage out;
  out.nrows = A.nrows;
  out.ncols = A.ncols;
  out.ld = A.ld;
  out.layout = A.layout;
  out.type = to;
  out.device = A.device;
  // The whole buffer, padding included (ld may exceed the inner size).
  out.data = convert_buffer(A.data, static_cast<Index>(A.data.bytes() / size_of(A.type)), A.type, to, A.device);
  return out;
}

VectorStorage convert(const VectorStorage& u, TypeId to) {
  VectorStorage out;
  out.size = u.size;
  out.nvals = u.nvals;
  out.dense = u.dense;
  out.type = to;
  out.device = u.device;
  out.indices = u.indices;
  out.values = convert_buffer(u.values, static_cast<Index>(u.values.bytes() / size_of(u.type)), u.type, to, u.device);
  return out;
}

}  // namespace geblas::detail
