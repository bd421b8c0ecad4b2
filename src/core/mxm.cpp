// mxm's entry points: validation, transposes, the choice of backend, and the mask /
// accumulator step. The product itself is the backend's; sparse x dense writes straight
// into C when no mask is given and the accumulator (if any) is the semiring's own add,
// which is the case a GNN layer or a PageRank step hits. Sparse x dense is also the one
// operation on half / bfloat16 (core/mxm_16bit.cpp).
#include <cmath>
#include <cstring>
#include <string>

#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "core/jit_mxm_plan.hpp"
#include "core/mxm_16bit.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/detail/mxm_plan.hpp"
#include "geblas/operations/mxm.hpp"

namespace geblas::detail {
namespace {

using Form = UserMxmPlan::Form;

const char* op_name(Form f) {
  switch (f) {
    case Form::sparse_dense: return "mxm(sparse x dense)";
    case Form::sparse_sparse: return "mxm(sparse x sparse)";
    case Form::dense_sparse: return "mxm(dense x sparse)";
    case Form::dense_dense: return "mxm(dense x dense)";
  }
  return "mxm";
}

ScalarBytes semiring_identity(SemiringId s, TypeId t) {
  ScalarBytes out;
  visit_type(t, [&]<class T>() {
    visit_semiring<T>(s, [&]<class S>() { *static_cast<T*>(out.data()) = S::identity(); });
  });
  return out;
}

template <class X>
Index rows_of(const X& x, bool transposed) { return transposed ? x.ncols : x.nrows; }
template <class X>
Index cols_of(const X& x, bool transposed) { return transposed ? x.nrows : x.ncols; }

// Validates C = op(A) (+).(x) op(B): types, accumulator, devices, shapes and the mask.
template <class CS, class AS, class BS>
void check_product(const char* op, const CS& C, const AS& A, const BS& B, TypeId t, const Options& o) {
  check_type(op, "C", C.type, t);
  check_type(op, "A", A.type, t);
  check_type(op, "B", B.type, t);
  check_accum(op, o, t);
  const Device dev = C.device;
  check_device(op, "A", A.device, dev);
  check_device(op, "B", B.device, dev);
  const Index am = rows_of(A, o.transpose_a), ak = cols_of(A, o.transpose_a);
  const Index bk = rows_of(B, o.transpose_b), bn = cols_of(B, o.transpose_b);
  if (ak != bk)
    throw DimensionMismatch(std::string(op) + ": inner dimensions differ: A" + (o.transpose_a ? "'" : "") + " is " +
                            shape(am, ak) + ", B" + (o.transpose_b ? "'" : "") + " is " + shape(bk, bn));
  if (C.nrows != am || C.ncols != bn)
    throw DimensionMismatch(std::string(op) + ": C is " + shape(C.nrows, C.ncols) + " but the product is " +
                            shape(am, bn));
  check_matrix_mask(op, o, C.nrows, C.ncols, dev);
}

// Validates C = op(A) (+).(x) op(B) and fills the plan's operands, transposes applied.
template <class CS, class AS, class BS>
UserMxmPlan prepare(Form form, const CS& C, const AS& A, const BS& B, TypeId t, const Options& o,
                    bool allocate_product = true) {
  check_product(op_name(form), C, A, B, t, o);
  const Device dev = C.device;
  UserMxmPlan plan;
  plan.form = form;
  plan.device = dev;
  plan.type = t;
  const Backend& be = backend_for(dev);
  if constexpr (std::is_same_v<AS, SparseStorage>) {
    if (o.transpose_a) plan.a_sparse_t = cached_transpose(A);
    plan.a_sparse = o.transpose_a ? plan.a_sparse_t.get() : &A;
  } else {
    if (o.transpose_a) required(be.transpose_dense, "transpose(dense)", dev)(plan.a_dense_t, A);
    plan.a_dense = o.transpose_a ? &plan.a_dense_t : &A;
  }
  if constexpr (std::is_same_v<BS, SparseStorage>) {
    if (o.transpose_b) plan.b_sparse_t = cached_transpose(B);
    plan.b_sparse = o.transpose_b ? plan.b_sparse_t.get() : &B;
  } else {
    if (o.transpose_b) required(be.transpose_dense, "transpose(dense)", dev)(plan.b_dense_t, B);
    plan.b_dense = o.transpose_b ? &plan.b_dense_t : &B;
  }
  if (form != Form::sparse_sparse && allocate_product) plan.t_dense = make_dense(C.nrows, C.ncols, Layout::row_major, t, dev);
  return plan;
}

DenseProduct product_of(const UserMxmPlan& plan) {
  DenseProduct p;
  p.T = &plan.t_dense;
  if (plan.form == Form::sparse_dense) p.rows_of = plan.a_sparse;
  if (plan.form == Form::dense_sparse) p.cols_of = plan.b_sparse;
  return p;
}

bool same_memory(const DenseStorage& x, const DenseStorage& y) {
  return x.data.data() != nullptr && x.data.data() == y.data.data();
}

}  // namespace

void mxm(DenseStorage& C, const SparseStorage& A, const DenseStorage& B, SemiringId s, const Options& o) {
  const char* op = op_name(Form::sparse_dense);
  check_semiring(op, s, C.type);
  // The direct path writes the product into C; it needs no mask, an accumulator that is
  // the semiring's own add (fused into the kernel), and B not sharing C's memory.
  const bool direct = o.mask.empty() && (o.accum.empty() || o.accum.op == add_op_of(s)) &&
                      !same_memory(C, B);
  // 16-bit values reach a backend's kernels only on the direct GPU path, untransposed
  // (the transposes would need 16-bit kernels of their own); everything else computes
  // on float copies (core/mxm_16bit.cpp).
  if (is_16bit_float(C.type) && (C.device.is_cpu() || !direct || o.transpose_a || o.transpose_b)) {
    mxm_widened_16bit(C, A, B, s, o);
    return;
  }
  UserMxmPlan plan = prepare(Form::sparse_dense, C, A, B, C.type, o, /*allocate_product=*/!direct);
  const Backend& be = backend_for(C.device);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  auto spmm = required(be.mxm_sparse_dense, op, C.device);
  if (direct) {
    spmm({plan.a_sparse, plan.b_dense, &C, s, !o.accum.empty(), o.variant, &rec, o.allow_tf32});
  } else {
    spmm({plan.a_sparse, plan.b_dense, &plan.t_dense, s, false, o.variant, &rec, o.allow_tf32});
    required(be.write_dense, "mask/accumulate", C.device)(C, product_of(plan), o, semiring_identity(s, C.type));
  }
  end_dispatch();
}

namespace {

// The forms other than sparse x dense: the backend's product (entry, which records the
// variant it ran) into the plan's T, then the mask / accumulator write-back.
template <class CS, class AS, class BS, class Entry>
void product_and_write(Form form, CS& C, const AS& A, const BS& B, SemiringId s, const Options& o,
                       Entry Backend::*entry) {
  const char* op = op_name(form);
  check_semiring(op, s, C.type);
  UserMxmPlan plan = prepare(form, C, A, B, C.type, o);
  const Backend& be = backend_for(C.device);
  begin_dispatch(op, be.name);
  const auto product = required(be.*entry, op, C.device);
  if constexpr (std::is_same_v<CS, SparseStorage>) {
    product(plan.t_sparse, *plan.a_sparse, *plan.b_sparse, s, o);
    required(be.write_sparse, "mask/accumulate", C.device)(C, plan.t_sparse, o);
  } else {
    if constexpr (std::is_same_v<BS, SparseStorage>) product(plan.t_dense, *plan.a_dense, *plan.b_sparse, s);
    else product(plan.t_dense, *plan.a_dense, *plan.b_dense, s);
    required(be.write_dense, "mask/accumulate", C.device)(C, product_of(plan), o, semiring_identity(s, C.type));
  }
  end_dispatch();
}

}  // namespace

void mxm(SparseStorage& C, const SparseStorage& A, const SparseStorage& B, SemiringId s, const Options& o) {
  product_and_write(Form::sparse_sparse, C, A, B, s, o, &Backend::mxm_sparse_sparse);
}
void mxm(DenseStorage& C, const DenseStorage& A, const SparseStorage& B, SemiringId s, const Options& o) {
  product_and_write(Form::dense_sparse, C, A, B, s, o, &Backend::mxm_dense_sparse);
}
void mxm(DenseStorage& C, const DenseStorage& A, const DenseStorage& B, SemiringId s, const Options& o) {
  product_and_write(Form::dense_dense, C, A, B, s, o, &Backend::mxm_dense_dense);
}

namespace {

// SampledOp's rules (sampled_op.hpp): alpha must be exact in an integer T, and bool has
// no scaling.
void check_sampled_op(const char* op, const SampledOp& f, TypeId t) {
  if (f.kind == SampledOp::Kind::identity) return;
  if (t == TypeId::boolean)
    throw InvalidValue(std::string(op) + ": a bool product takes only the identity op (no scale or leaky ReLU)");
  if ((t == TypeId::int32 || t == TypeId::int64) &&
      !(std::isfinite(f.alpha) && f.alpha == std::trunc(f.alpha) && std::fabs(f.alpha) < 9.0e15))
    throw InvalidValue(std::string(op) + ": an integer product needs an integral alpha, got " +
                       std::to_string(f.alpha));
}

}  // namespace

void mxm(SparseStorage& C, const DenseStorage& A, const DenseStorage& B, SemiringId s, const Options& o,
         const SampledOp& f) {
  const char* op = "mxm(dense x dense, sparse C)";
  check_semiring(op, s, C.type);
  check_product(op, C, A, B, C.type, o);
  check_sampled_op(op, f, C.type);
  const Device dev = C.device;
  // The product is computed only where the mask lists an entry: without such a mask every
  // one of the m x n entries would be stored, which is the dense-output mxm's job.
  if (o.mask.kind() != Mask::Kind::sparse || o.mask.complemented())
    throw InvalidValue(std::string(op) +
                       ": needs a sparse mask that is not complemented (the product is "
                       "computed at the mask's entries only; for every entry use a dense C)");
  const Backend& be = backend_for(dev);
  begin_dispatch(op, be.name);
  SparseStorage T;
  required(be.mxm_sampled, op, dev)(T, A, B, s, o, f);
  // T holds only entries the mask allows: without an accumulator, into an empty C or with
  // replace, C<M> = T is T itself, and the write-back's merge (a mask search per entry)
  // is skipped; that is every call of a fresh result (geblas.sddmm, geblas.torch.sddmm).
  if (o.accum.empty() && (C.nvals == 0 || o.replace)) C = std::move(T);
  else required(be.write_sparse, "mask/accumulate", dev)(C, T, o);
  end_dispatch();
}

UserMxmPlan plan_user_mxm(const DenseStorage& C, const SparseStorage& A, const DenseStorage& B, TypeId t,
                          const Options& o) {
  return prepare(Form::sparse_dense, C, A, B, t, o);
}
UserMxmPlan plan_user_mxm(const SparseStorage& C, const SparseStorage& A, const SparseStorage& B, TypeId t,
                          const Options& o) {
  return prepare(Form::sparse_sparse, C, A, B, t, o);
}
UserMxmPlan plan_user_mxm(const DenseStorage& C, const DenseStorage& A, const SparseStorage& B, TypeId t,
                          const Options& o) {
  return prepare(Form::dense_sparse, C, A, B, t, o);
}
UserMxmPlan plan_user_mxm(const DenseStorage& C, const DenseStorage& A, const DenseStorage& B, TypeId t,
                          const Options& o) {
  return prepare(Form::dense_dense, C, A, B, t, o);
}

UserMxmPlan plan_jit_mxm(const DenseStorage& C, const SparseStorage& A, const DenseStorage& B, TypeId t,
                         const Options& o, bool allocate_product) {
  return prepare(Form::sparse_dense, C, A, B, t, o, allocate_product);
}

void finish_user_mxm(DenseStorage& C, UserMxmPlan& plan, const Options& o, const void* identity) {
  ScalarBytes id;
  std::memcpy(id.data(), identity, size_of(C.type));
  required(backend_for(C.device).write_dense, "mask/accumulate", C.device)(C, product_of(plan), o, id);
}

void finish_user_mxm(SparseStorage& C, UserMxmPlan& plan, const Options& o, const void*) {
  required(backend_for(C.device).write_sparse, "mask/accumulate", C.device)(C, plan.t_sparse, o);
}

}  // namespace geblas::detail
