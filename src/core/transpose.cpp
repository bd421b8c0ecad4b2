// transpose entry points: C<M> = accum(C, A'). With transpose_a the input is used as
// it is (GraphBLAS's double transpose), so C<M> = accum(C, A).
#include <string>

#include "core/backend.hpp"
#include "core/op_support.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/operations/transpose.hpp"

namespace geblas::detail {
namespace {

template <class X>
void check(const X& C, const X& A, const Options& o) {
  check_type("transpose", "A", A.type, C.type);
  check_accum("transpose", o, C.type);
  check_device("transpose", "A", A.device, C.device);
  const Index m = o.transpose_a ? A.nrows : A.ncols, n = o.transpose_a ? A.ncols : A.nrows;
  if (C.nrows != m || C.ncols != n)
    throw DimensionMismatch("transpose: C is " + shape(C.nrows, C.ncols) + " but the result is " + shape(m, n) +
                            " (A is " + shape(A.nrows, A.ncols) + (o.transpose_a ? ", transpose_a" : "") + ")");
  check_matrix_mask("transpose", o, C.nrows, C.ncols, C.device);
  if (o.transpose_b) throw InvalidValue("transpose: transpose_b does not apply (one input)");
}

}  // namespace

void transpose(SparseStorage& C, const SparseStorage& A, const Options& o) {
  check(C, A, o);
  const Backend& be = backend_for(C.device);
  DispatchRecord& rec = begin_dispatch("transpose", be.name);
  rec.variant = o.transpose_a ? "copy" : "sparse";
  SparseStorage T;
  if (o.transpose_a) {
    T = A;  // storage copy on A's device; the copy's derived cache starts empty
  } else {
    required(be.transpose_sparse, "transpose", C.device)(T, A);
  }
  required(be.write_sparse, "mask/accumulate", C.device)(C, T, o);
  end_dispatch();
}

void transpose(DenseStorage& C, const DenseStorage& A, const Options& o) {
  check(C, A, o);
  const Backend& be = backend_for(C.device);
  DispatchRecord& rec = begin_dispatch("transpose", be.name);
  rec.variant = o.transpose_a ? "copy" : "dense";
  DenseStorage T;
  if (o.transpose_a) T = A;
  else required(be.transpose_dense, "transpose(dense)", C.device)(T, A);
  DenseProduct p;
  p.T = &T;
  required(be.write_dense, "mask/accumulate", C.device)(C, p, o, zero_scalar());
  end_dispatch();
}

}  // namespace geblas::detail
