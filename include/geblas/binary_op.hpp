// Binary operators: the building blocks of monoids, semirings, accumulators and the
// element-wise operations. Each is a stateless struct whose apply() runs on the host
// and, under nvcc, on the device. Built-ins carry an `id` so that the compiled library
// can reach them at run time; a user-defined operator is any struct with the same
// static apply() (no id).
//
// Integer plus, minus and times wrap around (two's complement) instead of invoking
// undefined behaviour; integer division by zero gives 0 / max / min of the type
// (x == 0, x > 0, x < 0), as SuiteSparse:GraphBLAS does. min and max on floating point
// ignore a NaN operand unless both are NaN (fmin/fmax semantics). Comparisons return
// 1 or 0 in the operand type.
//
// NaN in reductions (the rule, stated here once): max and min reduce as if from the add
// monoid's identity (-inf for max, +inf for min), so with max or min as a semiring's add,
// or as reduce()'s monoid, a NaN term is dropped, and an entry whose terms are all NaN gets
// the identity, exactly like a dense entry with no term. A sparse output stores such an
// entry (it has terms) with the identity as its value. (SuiteSparse:GraphBLAS, which
// reduces without the identity, gives NaN there.) Kernels that fold from an entry's first
// term pass it through detail::first_term (geblas/detail/nan_rule.hpp) to keep this. With
// plus or times NaN propagates as IEEE says, and inf * 0 and inf + -inf give NaN.
// tests/reliability/test_numerical_edges.cpp holds every operation on every backend to
// this: SpGEMM, mxv and vxm (pull and push), sparse and dense x dense products, reduce.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "geblas/config.hpp"
#include "geblas/error.hpp"
#include "geblas/types.hpp"

namespace geblas {

enum class BinaryOpId : std::uint8_t {
  none,
  first, second, pair, any,
  plus, minus, rminus, times, div, rdiv,
  min, max,
  lor, land, lxor,
  eq, ne, gt, lt, ge, le,
};

namespace detail {
template <class T>
GEBLAS_HD T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return a + b;
  }
}
template <class T>
GEBLAS_HD T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a != b;
  } else {
    return a - b;
  }
}
template <class T>
GEBLAS_HD T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return a * b;
  }
}
template <class T>
GEBLAS_HD T safe_div(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a;  // GraphBLAS: x / y on bool is x (y is necessarily true when defined)
  } else if constexpr (std::is_integral_v<T>) {
    if (b == 0) return a == 0 ? T(0) : (a > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min());
    if (b == T(-1)) return wrap_sub(T(0), a);
    return a / b;
  } else {
    return a / b;
  }
}
// fmin/fmax semantics without <cmath>, so that it vectorises and runs on the device.
template <class T>
GEBLAS_HD T min_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (b != b || a < b) ? a : b;
  else return a < b ? a : b;
}
template <class T>
GEBLAS_HD T max_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (b != b || a > b) ? a : b;
  else return a > b ? a : b;
}
}  // namespace detail

namespace binop {

#define GEBLAS_DEFINE_BINOP(NAME, EXPR)                                   \
  template <class T>                                                      \
  struct NAME {                                                           \
    using value_type = T;                                                 \
    static constexpr BinaryOpId id = BinaryOpId::NAME;                    \
    GEBLAS_HD static T apply([[maybe_unused]] T a, [[maybe_unused]] T b) { return EXPR; } \
    GEBLAS_HD T operator()(T a, T b) const { return apply(a, b); }        \
  };

GEBLAS_DEFINE_BINOP(first, a)
GEBLAS_DEFINE_BINOP(second, b)
GEBLAS_DEFINE_BINOP(pair, T(1))
GEBLAS_DEFINE_BINOP(any, a)
GEBLAS_DEFINE_BINOP(plus, detail::wrap_add(a, b))
GEBLAS_DEFINE_BINOP(minus, detail::wrap_sub(a, b))
GEBLAS_DEFINE_BINOP(rminus, detail::wrap_sub(b, a))
GEBLAS_DEFINE_BINOP(times, detail::wrap_mul(a, b))
GEBLAS_DEFINE_BINOP(div, detail::safe_div(a, b))
GEBLAS_DEFINE_BINOP(rdiv, detail::safe_div(b, a))
GEBLAS_DEFINE_BINOP(min, detail::min_value(a, b))
GEBLAS_DEFINE_BINOP(max, detail::max_value(a, b))
GEBLAS_DEFINE_BINOP(lor, T((a != T(0)) || (b != T(0))))
GEBLAS_DEFINE_BINOP(land, T((a != T(0)) && (b != T(0))))
GEBLAS_DEFINE_BINOP(lxor, T((a != T(0)) != (b != T(0))))
GEBLAS_DEFINE_BINOP(eq, T(a == b))
GEBLAS_DEFINE_BINOP(ne, T(a != b))
GEBLAS_DEFINE_BINOP(gt, T(a > b))
GEBLAS_DEFINE_BINOP(lt, T(a < b))
GEBLAS_DEFINE_BINOP(ge, T(a >= b))
GEBLAS_DEFINE_BINOP(le, T(a <= b))

#undef GEBLAS_DEFINE_BINOP

}  // namespace binop

// A built-in operator: one the compiled library can dispatch to by id.
template <class Op>
concept BuiltinBinaryOp = requires {
  { Op::id } -> std::convertible_to<BinaryOpId>;
  typename Op::value_type;
};

// Calls f.template operator()<Op>() with binop::<name><T> for the runtime id.
template <class T, class F>
decltype(auto) visit_binary_op(BinaryOpId id, F&& f) {
  switch (id) {
    case BinaryOpId::first: return f.template operator()<binop::first<T>>();
    case BinaryOpId::second: return f.template operator()<binop::second<T>>();
    case BinaryOpId::pair: return f.template operator()<binop::pair<T>>();
    case BinaryOpId::any: return f.template operator()<binop::any<T>>();
    case BinaryOpId::plus: return f.template operator()<binop::plus<T>>();
    case BinaryOpId::minus: return f.template operator()<binop::minus<T>>();
    case BinaryOpId::rminus: return f.template operator()<binop::rminus<T>>();
    case BinaryOpId::times: return f.template operator()<binop::times<T>>();
    case BinaryOpId::div: return f.template operator()<binop::div<T>>();
    case BinaryOpId::rdiv: return f.template operator()<binop::rdiv<T>>();
    case BinaryOpId::min: return f.template operator()<binop::min<T>>();
    case BinaryOpId::max: return f.template operator()<binop::max<T>>();
    case BinaryOpId::lor: return f.template operator()<binop::lor<T>>();
    case BinaryOpId::land: return f.template operator()<binop::land<T>>();
    case BinaryOpId::lxor: return f.template operator()<binop::lxor<T>>();
    case BinaryOpId::eq: return f.template operator()<binop::eq<T>>();
    case BinaryOpId::ne: return f.template operator()<binop::ne<T>>();
    case BinaryOpId::gt: return f.template operator()<binop::gt<T>>();
    case BinaryOpId::lt: return f.template operator()<binop::lt<T>>();
    case BinaryOpId::ge: return f.template operator()<binop::ge<T>>();
    case BinaryOpId::le: return f.template operator()<binop::le<T>>();
    case BinaryOpId::none: break;
  }
  throw InvalidValue("visit_binary_op: no operator (BinaryOpId::none)");
}

GEBLAS_API const char* to_string(BinaryOpId id);

}  // namespace geblas
