// apply: C<M> = accum(C, f(A)) entry by entry, with a unary operator, or with a binary
// operator whose second operand is bound to a scalar: apply(C, A, binop::times<T>{}, 0.85).
// The pattern of the result is the pattern of A; transpose_a applies f to A'.
#pragma once

#include "geblas/dense_matrix.hpp"
#include "geblas/options.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/unary_op.hpp"
#include "geblas/vector.hpp"

namespace geblas {

namespace detail {
// Exactly one of unary / binary is set (the other is `none`-like: unary ignored when
// binary != BinaryOpId::none). `scalar` points to one value of the operands' type.
struct ApplyOp {
  UnaryOpId unary = UnaryOpId::identity;
  BinaryOpId binary = BinaryOpId::none;
  const void* scalar = nullptr;
};
GEBLAS_API void apply(SparseStorage& C, const SparseStorage& A, const ApplyOp& op, const Options& o);
GEBLAS_API void apply(DenseStorage& C, const DenseStorage& A, const ApplyOp& op, const Options& o);
GEBLAS_API void apply(VectorStorage& w, const VectorStorage& u, const ApplyOp& op, const Options& o);
}  // namespace detail

template <class Obj, BuiltinUnaryOp Op>
void apply(Obj& C, const Obj& A, Op, const Options& options = {}) {
  static_assert(std::is_same_v<typename Op::value_type, typename Obj::value_type>,
                "geblas::apply: operator type must match");
  detail::apply(C.storage(), A.storage(), detail::ApplyOp{Op::id, BinaryOpId::none, nullptr}, options);
}

template <class Obj, BuiltinBinaryOp Op>
void apply(Obj& C, const Obj& A, Op, typename Obj::value_type scalar, const Options& options = {}) {
  static_assert(std::is_same_v<typename Op::value_type, typename Obj::value_type>,
                "geblas::apply: operator type must match");
  detail::apply(C.storage(), A.storage(), detail::ApplyOp{UnaryOpId::identity, Op::id, &scalar}, options);
}

}  // namespace geblas
