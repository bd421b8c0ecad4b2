// Monoids: an associative, commutative binary operator with its identity and, where
// one exists, a terminal value (an annihilator: once reached, the reduction may stop).
// The add half of every semiring, and the operator of reduce().
#pragma once

#include <limits>
#include <type_traits>

#include "geblas/binary_op.hpp"

namespace geblas {

enum class MonoidId : std::uint8_t { plus, times, min, max, lor, land, lxor, any };

namespace detail {
template <class T>
GEBLAS_HD constexpr T upper_bound_value() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::max();
}
template <class T>
GEBLAS_HD constexpr T lower_bound_value() {
  if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::lowest();
}
}  // namespace detail

namespace monoid {

// has_terminal: whether terminal() is an annihilator the kernels may stop at.
#define GEBLAS_DEFINE_MONOID(NAME, OP, IDENTITY, HAS_TERMINAL, TERMINAL)     \
  template <class T>                                                         \
  struct NAME {                                                              \
    using value_type = T;                                                    \
    using op = binop::OP<T>;                                                 \
    static constexpr MonoidId id = MonoidId::NAME;                           \
    static constexpr bool has_terminal = HAS_TERMINAL;                       \
    GEBLAS_HD static constexpr T identity() { return IDENTITY; }             \
    GEBLAS_HD static constexpr T terminal() { return TERMINAL; }             \
    GEBLAS_HD static T apply(T a, T b) { return op::apply(a, b); }           \
  };

GEBLAS_DEFINE_MONOID(plus, plus, T(0), false, T(0))
GEBLAS_DEFINE_MONOID(times, times, T(1), std::is_integral_v<T>, T(0))
GEBLAS_DEFINE_MONOID(min, min, detail::upper_bound_value<T>(), true, detail::lower_bound_value<T>())
GEBLAS_DEFINE_MONOID(max, max, detail::lower_bound_value<T>(), true, detail::upper_bound_value<T>())
GEBLAS_DEFINE_MONOID(lor, lor, T(0), true, T(1))
GEBLAS_DEFINE_MONOID(land, land, T(1), true, T(0))
GEBLAS_DEFINE_MONOID(lxor, lxor, T(0), false, T(0))
// any: the result is one of the operands, whichever the kernel meets first. geblas's
// kernels keep the first they meet, so results are deterministic for one kernel
// variant but may differ between variants and devices (as GraphBLAS allows).
GEBLAS_DEFINE_MONOID(any, any, T(0), false, T(0))

#undef GEBLAS_DEFINE_MONOID

}  // namespace monoid

template <class M>
concept BuiltinMonoid = requires {
  { M::id } -> std::convertible_to<MonoidId>;
  typename M::value_type;
};

template <class T, class F>
decltype(auto) visit_monoid(MonoidId id, F&& f) {
  switch (id) {
    case MonoidId::plus: return f.template operator()<monoid::plus<T>>();
    case MonoidId::times: return f.template operator()<monoid::times<T>>();
    case MonoidId::min: return f.template operator()<monoid::min<T>>();
    case MonoidId::max: return f.template operator()<monoid::max<T>>();
    case MonoidId::lor: return f.template operator()<monoid::lor<T>>();
    case MonoidId::land: return f.template operator()<monoid::land<T>>();
    case MonoidId::lxor: return f.template operator()<monoid::lxor<T>>();
    case MonoidId::any: break;
  }
  return f.template operator()<monoid::any<T>>();
}

GEBLAS_API const char* to_string(MonoidId id);

}  // namespace geblas
