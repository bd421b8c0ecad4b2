// The built-in operators chosen at run time on the device: one switch per call over the
// operator id. The non-hot operations (write-back, element-wise, select, assign, the
// dense products) use these, so each kernel is compiled once per value type instead of
// once per (operator, type) pair; the branch is uniform across a warp and cheap beside
// the memory traffic of these kernels.
#pragma once

#include "geblas/binary_op.hpp"
#include "geblas/monoid.hpp"
#include "geblas/select_op.hpp"
#include "geblas/semiring.hpp"
#include "geblas/unary_op.hpp"

namespace geblas::detail::cuda::ops {

template <class T>
__host__ __device__ inline T binop_apply(BinaryOpId id, T a, T b) {
  switch (id) {
    case BinaryOpId::first: return binop::first<T>::apply(a, b);
    case BinaryOpId::second: return binop::second<T>::apply(a, b);
    case BinaryOpId::pair: return binop::pair<T>::apply(a, b);
    case BinaryOpId::any: return binop::any<T>::apply(a, b);
    case BinaryOpId::plus: return binop::plus<T>::apply(a, b);
    case BinaryOpId::minus: return binop::minus<T>::apply(a, b);
    case BinaryOpId::rminus: return binop::rminus<T>::apply(a, b);
    case BinaryOpId::times: return binop::times<T>::apply(a, b);
    case BinaryOpId::div: return binop::div<T>::apply(a, b);
    case BinaryOpId::rdiv: return binop::rdiv<T>::apply(a, b);
    case BinaryOpId::min: return binop::min<T>::apply(a, b);
    case BinaryOpId::max: return binop::max<T>::apply(a, b);
    case BinaryOpId::lor: return binop::lor<T>::apply(a, b);
    case BinaryOpId::land: return binop::land<T>::apply(a, b);
    case BinaryOpId::lxor: return binop::lxor<T>::apply(a, b);
    case BinaryOpId::eq: return binop::eq<T>::apply(a, b);
    case BinaryOpId::ne: return binop::ne<T>::apply(a, b);
    case BinaryOpId::gt: return binop::gt<T>::apply(a, b);
    case BinaryOpId::lt: return binop::lt<T>::apply(a, b);
    case BinaryOpId::ge: return binop::ge<T>::apply(a, b);
    case BinaryOpId::le: return binop::le<T>::apply(a, b);
    case BinaryOpId::none: break;
  }
  return b;  // no operator: the new value replaces the old (C = T)
}

template <class T>
__host__ __device__ inline T unop_apply(UnaryOpId id, T x) {
  switch (id) {
    case UnaryOpId::identity: return unop::identity<T>::apply(x);
    case UnaryOpId::ainv: return unop::ainv<T>::apply(x);
    case UnaryOpId::minv: return unop::minv<T>::apply(x);
    case UnaryOpId::abs: return unop::abs<T>::apply(x);
    case UnaryOpId::lnot: return unop::lnot<T>::apply(x);
    case UnaryOpId::one: return unop::one<T>::apply(x);
    case UnaryOpId::sqrt: return unop::sqrt<T>::apply(x);
    case UnaryOpId::exp: return unop::exp<T>::apply(x);
    case UnaryOpId::log: return unop::log<T>::apply(x);
  }
  return x;
}

template <class T>
__host__ __device__ inline T monoid_apply(MonoidId id, T a, T b) {
  switch (id) {
    case MonoidId::plus: return monoid::plus<T>::apply(a, b);
    case MonoidId::times: return monoid::times<T>::apply(a, b);
    case MonoidId::min: return monoid::min<T>::apply(a, b);
    case MonoidId::max: return monoid::max<T>::apply(a, b);
    case MonoidId::lor: return monoid::lor<T>::apply(a, b);
    case MonoidId::land: return monoid::land<T>::apply(a, b);
    case MonoidId::lxor: return monoid::lxor<T>::apply(a, b);
    case MonoidId::any: break;
  }
  return monoid::any<T>::apply(a, b);
}

template <class T>
__host__ __device__ inline T monoid_identity(MonoidId id) {
  switch (id) {
    case MonoidId::plus: return monoid::plus<T>::identity();
    case MonoidId::times: return monoid::times<T>::identity();
    case MonoidId::min: return monoid::min<T>::identity();
    case MonoidId::max: return monoid::max<T>::identity();
    case MonoidId::lor: return monoid::lor<T>::identity();
    case MonoidId::land: return monoid::land<T>::identity();
    case MonoidId::lxor: return monoid::lxor<T>::identity();
    case MonoidId::any: break;
  }
  return monoid::any<T>::identity();
}

// A built-in semiring as its (add monoid, multiply operator) pair.
struct RtSemiring {
  MonoidId add = MonoidId::plus;
  BinaryOpId mul = BinaryOpId::times;
};

inline RtSemiring rt_semiring(SemiringId s) { return {semiring_info(s).add, semiring_info(s).mul}; }

// Whether entry (i, j) with value x satisfies a select predicate (see select_op.hpp).
template <class T>
__host__ __device__ inline bool select_holds(SelectOpId op, Index k, T threshold, Index i, Index j, T x) {
  switch (op) {
    case SelectOpId::tril: return j <= i + k;
    case SelectOpId::triu: return j >= i + k;
    case SelectOpId::diag: return j == i + k;
    case SelectOpId::offdiag: return j != i + k;
    case SelectOpId::row_le: return i <= k;
    case SelectOpId::row_gt: return i > k;
    case SelectOpId::col_le: return j <= k;
    case SelectOpId::col_gt: return j > k;
    case SelectOpId::value_eq: return x == threshold;
    case SelectOpId::value_ne: return x != threshold;
    case SelectOpId::value_lt: return x < threshold;
    case SelectOpId::value_le: return x <= threshold;
    case SelectOpId::value_gt: return x > threshold;
    case SelectOpId::value_ge: return x >= threshold;
    case SelectOpId::nonzero: break;
  }
  return x != T(0);
}

}  // namespace geblas::detail::cuda::ops
