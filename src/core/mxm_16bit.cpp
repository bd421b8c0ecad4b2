// Sparse x dense mxm on half / bfloat16. Products are computed in float (fp32 terms,
// fp32 accumulation) and each result is rounded once, when it is stored in C:
//  * direct GPU path (no mask, accumulator none or the semiring's add, no transposes):
//    the 16-bit operands go to the GPU backend as they are (C.type says float16 /
//    bfloat16); its kernels read 16-bit A and B and write 16-bit C.
//  * every other case, on either device: A's values, B and (where its old values are
//    read: an accumulator or a mask) C are widened to float temporaries with the
//    convert entry, the float32 mxm runs on them, and the float result is rounded
//    into C. An accumulator therefore combines in float too, before the one rounding.
// No operator or kernel is instantiated for the 16-bit types here: that is what keeps
// them cheap to compile.
#include "core/mxm_16bit.hpp"

#include <string>

#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/operations/convert.hpp"
#include "geblas/operations/mxm.hpp"

namespace geblas::detail {
namespace {

constexpr const char* op = "mxm(sparse x dense)";

// A float copy of a 16-bit mask (masks of other types are read as they are).
struct WidenedMask {
  SparseMatrix<float> sparse;
  DenseMatrix<float> dense;
  Mask mask;
};

void widen_mask(const Mask& m, WidenedMask& out) {
  out.mask = m;
  if (m.kind() == Mask::Kind::sparse && is_16bit_float(m.sparse()->type)) {
    out.sparse = SparseMatrix<float>(convert(*m.sparse(), TypeId::float32));
    out.mask = Mask(out.sparse);
  } else if (m.kind() == Mask::Kind::dense && is_16bit_float(m.dense()->type)) {
    out.dense = DenseMatrix<float>(convert(*m.dense(), TypeId::float32));
    out.mask = Mask(out.dense);
  } else {
    return;
  }
  if (m.structural())
    out.mask = m.kind() == Mask::Kind::sparse ? Mask::structure(out.sparse) : Mask::structure(out.dense);
  if (m.complemented()) out.mask = out.mask.complement();
}

}  // namespace

void mxm_widened_16bit(DenseStorage& C, const SparseStorage& A, const DenseStorage& B, SemiringId s,
                       const Options& o) {
  const TypeId t = C.type;
  check_type(op, "A", A.type, t);
  check_type(op, "B", B.type, t);
  check_semiring(op, s, t);
  check_accum(op, o, t);
  check_device(op, "A", A.device, C.device);
  check_device(op, "B", B.device, C.device);
  const Index ak = o.transpose_a ? A.nrows : A.ncols, bk = o.transpose_b ? B.ncols : B.nrows;
  if (ak != bk)
    throw DimensionMismatch(std::string(op) + ": inner dimensions differ: A is " + shape(A.nrows, A.ncols) +
                            ", B is " + shape(B.nrows, B.ncols));
  // C's old values are read only by an accumulator or where a mask keeps them.
  const bool reads_c = !o.accum.empty() || !o.mask.empty();
  const SparseStorage Af = convert(A, TypeId::float32);
  const DenseStorage Bf = convert(B, TypeId::float32);
  DenseStorage Cf = reads_c ? convert(C, TypeId::float32)
                            : make_dense(C.nrows, C.ncols, C.layout, TypeId::float32, C.device);
  Options of = o;
  if (!o.accum.empty()) of.accum.type = TypeId::float32;
  WidenedMask wm;
  widen_mask(o.mask, wm);
  of.mask = wm.mask;
  mxm(Cf, Af, Bf, s, of);  // validates shapes and mask, runs the float kernels
  const DispatchRecord inner = last_dispatch();
  C.data = convert(Cf, t).data;  // same shape and layout: one rounding per entry
  // The last record names the whole call (not the final convert), with the float
  // variant that ran and why it was widened.
  DispatchRecord& rec = begin_dispatch(op, inner.backend.c_str());
  rec.variant = inner.variant;
  rec.reason = std::string(to_string(t)) + " widened to float32" + (inner.reason.empty() ? "" : "; " + inner.reason);
  end_dispatch();
}

}  // namespace geblas::detail
