// Unary operators for apply(). Built-ins carry an id; any callable T(T) also works on
// the host (the CPU backend instantiates it in the caller's code). Integer sqrt, exp
// and log are computed in double and truncated; minv on an integer 0 follows the
// division rule of binary_op.hpp.
#pragma once

#include <cmath>
#include <cstdint>

#include "geblas/binary_op.hpp"

namespace geblas {

enum class UnaryOpId : std::uint8_t { identity, ainv, minv, abs, lnot, one, sqrt, exp, log };

namespace unop {

#define GEBLAS_DEFINE_UNOP(NAME, EXPR)                              \
  template <class T>                                                \
  struct NAME {                                                     \
    using value_type = T;                                           \
    static constexpr UnaryOpId id = UnaryOpId::NAME;                \
    GEBLAS_HD static T apply([[maybe_unused]] T x) { return EXPR; } \
    GEBLAS_HD T operator()(T x) const { return apply(x); }          \
  };

GEBLAS_DEFINE_UNOP(identity, x)
GEBLAS_DEFINE_UNOP(ainv, detail::wrap_sub(T(0), x))
GEBLAS_DEFINE_UNOP(minv, detail::safe_div(T(1), x))
GEBLAS_DEFINE_UNOP(abs, (x < T(0) ? detail::wrap_sub(T(0), x) : x))
GEBLAS_DEFINE_UNOP(lnot, T(!(x != T(0))))
GEBLAS_DEFINE_UNOP(one, T(1))
GEBLAS_DEFINE_UNOP(sqrt, T(std::sqrt(static_cast<double>(x))))
GEBLAS_DEFINE_UNOP(exp, T(std::exp(static_cast<double>(x))))
GEBLAS_DEFINE_UNOP(log, T(std::log(static_cast<double>(x))))

#undef GEBLAS_DEFINE_UNOP

}  // namespace unop

template <class Op>
concept BuiltinUnaryOp = requires {
  { Op::id } -> std::convertible_to<UnaryOpId>;
  typename Op::value_type;
};

template <class T, class F>
decltype(auto) visit_unary_op(UnaryOpId id, F&& f) {
  switch (id) {
    case UnaryOpId::identity: return f.template operator()<unop::identity<T>>();
    case UnaryOpId::ainv: return f.template operator()<unop::ainv<T>>();
    case UnaryOpId::minv: return f.template operator()<unop::minv<T>>();
    case UnaryOpId::abs: return f.template operator()<unop::abs<T>>();
    case UnaryOpId::lnot: return f.template operator()<unop::lnot<T>>();
    case UnaryOpId::one: return f.template operator()<unop::one<T>>();
    case UnaryOpId::sqrt: return f.template operator()<unop::sqrt<T>>();
    case UnaryOpId::exp: return f.template operator()<unop::exp<T>>();
    case UnaryOpId::log: break;
  }
  return f.template operator()<unop::log<T>>();
}

GEBLAS_API const char* to_string(UnaryOpId id);

}  // namespace geblas
