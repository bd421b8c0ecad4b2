// softmax_rows entry points: validation, the 16-bit widening and the dispatch record.
// The backends compute on float32 and float64; float16 and bfloat16 values are widened
// to float with the convert entry, the float kernel runs, and each result is rounded
// once into the 16-bit output (as the 16-bit mxm does).
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/detail/borrowed_pattern.hpp"
#include "geblas/operations/softmax.hpp"

namespace geblas::detail {
namespace {

void check_value_type(const char* op, TypeId t) {
  if (t != TypeId::float32 && t != TypeId::float64 && !is_16bit_float(t))
    throw DomainMismatch(std::string(op) +
                         ": the values must be floating point (float32, float64, float16 or "
                         "bfloat16), got " +
                         std::string(to_string(t)));
}

RawBuffer widened(const Backend& be, const void* values, Index count, TypeId from, Device d) {
  RawBuffer out(static_cast<std::size_t>(count) * sizeof(float), d);
  required(be.convert_values, "convert", d)(out.data(), TypeId::float32, values, from, count, d.ordinal());
  return out;
}

void record(const char* op, const Backend& be, TypeId t) {
  // The entry names its variant; an empty operand runs none.
  DispatchRecord& rec = begin_dispatch(op, be.name);
  rec.variant = "none";
  if (is_16bit_float(t)) rec.reason = "16-bit values computed in float";
}

}  // namespace

void softmax_rows_values(void* out, const SparseStorage& S) {
  constexpr const char* op = "softmax_rows";
  check_value_type(op, S.type);
  const Backend& be = backend_for(S.device);
  record(op, be, S.type);
  auto* entry = required(be.softmax_rows, op, S.device);
  if (S.nvals > 0) {
    if (is_16bit_float(S.type)) {
      RawBuffer f = widened(be, S.values.data(), S.nvals, S.type, S.device);
      entry(f.data(), borrowed_pattern(S, f.data(), TypeId::float32));
      be.convert_values(out, S.type, f.data(), TypeId::float32, S.nvals, S.device.ordinal());
    } else {
      entry(out, S);
    }
  }
  end_dispatch();
}

void softmax_rows_backward_values(void* out, const SparseStorage& P, const void* dP) {
  constexpr const char* op = "softmax_rows_backward";
  check_value_type(op, P.type);
  const Backend& be = backend_for(P.device);
  record(op, be, P.type);
  auto* entry = required(be.softmax_rows_backward, op, P.device);
  if (P.nvals > 0) {
    if (is_16bit_float(P.type)) {
      RawBuffer p = widened(be, P.values.data(), P.nvals, P.type, P.device);
      RawBuffer dp = widened(be, dP, P.nvals, P.type, P.device);
      RawBuffer r(static_cast<std::size_t>(P.nvals) * sizeof(float), P.device);
      entry(r.data(), borrowed_pattern(P, p.data(), TypeId::float32), dp.data());
      be.convert_values(out, P.type, r.data(), TypeId::float32, P.nvals, P.device.ordinal());
    } else {
      entry(out, P, dP);
    }
  }
  end_dispatch();
}

void softmax_rows(SparseStorage& C, const SparseStorage& S) {
  check_type("softmax_rows", "S", S.type, C.type);
  check_device("softmax_rows", "S", S.device, C.device);
  if (C.nrows != S.nrows || C.ncols != S.ncols)
    throw DimensionMismatch("softmax_rows: C is " + shape(C.nrows, C.ncols) + " but S is " + shape(S.nrows, S.ncols));
  SparseStorage T = S;  // S's pattern (a copy on S's device; its derived cache starts empty)
  softmax_rows_values(T.values.data(), T);
  const DispatchRecord rec = last_dispatch();
  C = std::move(T);
  restore_dispatch(rec);
}

void softmax_rows_backward(SparseStorage& dS, const SparseStorage& P, const SparseStorage& dP) {
  constexpr const char* op = "softmax_rows_backward";
  check_type(op, "P", P.type, dS.type);
  check_type(op, "dP", dP.type, dS.type);
  check_device(op, "P", P.device, dS.device);
  check_device(op, "dP", dP.device, dS.device);
  if (dS.nrows != P.nrows || dS.ncols != P.ncols || dP.nrows != P.nrows || dP.ncols != P.ncols)
    throw DimensionMismatch(std::string(op) + ": dS is " + shape(dS.nrows, dS.ncols) + ", P is " +
                            shape(P.nrows, P.ncols) + ", dP is " + shape(dP.nrows, dP.ncols) + "; all must agree");
  if (dP.nvals != P.nvals)
    throw InvalidValue(std::string(op) + ": dP must have P's pattern, but dP has " + std::to_string(dP.nvals) +
                       " entries and P " + std::to_string(P.nvals));
  // The same row lengths: compare the row offsets where they live (the only part of the
  // pattern check that costs less than the backward itself).
  const Backend& be = backend_for(P.device);
  if (P.nrows > 0 && P.nvals > 0) {
    const std::size_t bytes = static_cast<std::size_t>(P.nrows + 1) * sizeof(Index);
    std::unique_ptr<Index[]> a(new Index[static_cast<std::size_t>(P.nrows + 1)]);
    std::unique_ptr<Index[]> b(new Index[static_cast<std::size_t>(P.nrows + 1)]);
    be.copy(a.get(), Device::cpu(), P.row_offsets.data(), P.device, bytes);
    be.copy(b.get(), Device::cpu(), dP.row_offsets.data(), dP.device, bytes);
    for (Index i = 0; i <= P.nrows; ++i)
      if (a[i] != b[i])
        throw InvalidValue(std::string(op) + ": dP must have P's pattern, but row " + std::to_string(i - 1) +
                           " has other lengths in dP and P");
  }
  SparseStorage T = P;
  softmax_rows_backward_values(T.values.data(), P, dP.values.data());
  const DispatchRecord rec = last_dispatch();
  dS = std::move(T);
  restore_dispatch(rec);
}

}  // namespace geblas::detail
