// How the CPU product kernels fold a term into an accumulator: the start value and the
// step, in one place so that every kernel keeps binary_op.hpp's NaN rule (max and min
// reduce from the identity and drop NaN terms; an entry whose terms are all NaN is the
// identity) and the fast form of it.
#pragma once

#include <type_traits>

#include "geblas/monoid.hpp"
#include "geblas/semiring.hpp"

namespace geblas::detail::cpu {

template <class S>
struct Fold {
  using T = typename S::value_type;

 private:
  template <template <class> class M>
  static constexpr bool add_is() {
    if constexpr (requires { typename S::add_monoid; }) return std::is_same_v<typename S::add_monoid, M<T>>;
    else return false;
  }

 public:
  static constexpr bool is_max = add_is<monoid::max>();
  static constexpr bool is_min = add_is<monoid::min>();
  static constexpr bool is_plus = add_is<monoid::plus>();
  // max and min start from the identity (-inf / +inf, or the type's bounds): that is what
  // makes a row of only NaN terms the identity. Every other add starts from the first term,
  // so that a monoid whose identity is not neutral in practice (any, and user-defined adds
  // the kernels know nothing about) still gives one of the terms.
  static constexpr bool from_identity = is_max || is_min;

  // acc (+) term. For floating max / min the accumulator is never NaN (it starts from the
  // identity and only ever takes non-NaN terms), so "ignore a NaN operand" is just
  // `term > acc ? term : acc`: a NaN term compares false and is dropped. That is one
  // maxps / minps (whose NaN case returns the second operand) instead of the
  // compare-and-blend that fmax semantics needs when either side may be NaN. The only
  // difference from binop::max is which zero a tie of -0 and +0 keeps (fmax leaves it
  // open too; every comparison sees them equal).
  static T step(T acc, T term) {
    if constexpr (std::is_floating_point_v<T> && is_max) return term > acc ? term : acc;
    else if constexpr (std::is_floating_point_v<T> && is_min) return term < acc ? term : acc;
    else return S::add(acc, term);
  }
};

}  // namespace geblas::detail::cpu
