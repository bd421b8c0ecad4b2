// Reference binary / unary operators, monoids and select predicates for the tests,
// written from the documented rules (binary_op.hpp, unary_op.hpp, monoid.hpp,
// select_op.hpp) as plain lambdas keyed by name; nothing here includes geblas.
// Rules: integer plus/minus/times wrap; integer x / 0 is 0, max or min by the sign of
// x; bool arithmetic is logical (plus = or, times = and, minus = xor, x / y = x);
// floating min/max ignore one NaN; comparisons give 1 / 0 in the operand type.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace ref {

template <class T>
using Binary = std::function<T(T, T)>;
template <class T>
using Unary = std::function<T(T)>;

template <class T>
T ref_plus(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else return a + b;
}
template <class T>
T ref_minus(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a != b;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(b));
  else return a - b;
}
template <class T>
T ref_times(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a && b;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) * static_cast<std::make_unsigned_t<T>>(b));
  else return a * b;
}
template <class T>
T ref_div(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a;
  else if constexpr (std::is_integral_v<T>) {
    if (b == 0) return a == 0 ? T(0) : a > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
    if (b == -1) return ref_minus<T>(T(0), a);
    return static_cast<T>(a / b);
  } else return a / b;
}
template <class T>
T ref_min(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return std::fmin(a, b);
  else return a < b ? a : b;
}
template <class T>
T ref_max(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return std::fmax(a, b);
  else return a > b ? a : b;
}

template <class T>
Binary<T> binary(const std::string& n) {
  auto truth = [](T x) { return x != T(0); };
  if (n == "first" || n == "any") return [](T a, T) { return a; };
  if (n == "second") return [](T, T b) { return b; };
  if (n == "pair") return [](T, T) { return T(1); };
  if (n == "plus") return ref_plus<T>;
  if (n == "minus") return ref_minus<T>;
  if (n == "rminus") return [](T a, T b) { return ref_minus<T>(b, a); };
  if (n == "times") return ref_times<T>;
  if (n == "div") return ref_div<T>;
  if (n == "rdiv") return [](T a, T b) { return ref_div<T>(b, a); };
  if (n == "min") return ref_min<T>;
  if (n == "max") return ref_max<T>;
  if (n == "lor") return [truth](T a, T b) { return T(truth(a) || truth(b)); };
  if (n == "land") return [truth](T a, T b) { return T(truth(a) && truth(b)); };
  if (n == "lxor") return [truth](T a, T b) { return T(truth(a) != truth(b)); };
  if (n == "eq") return [](T a, T b) { return T(a == b); };
  if (n == "ne") return [](T a, T b) { return T(a != b); };
  if (n == "gt") return [](T a, T b) { return T(a > b); };
  if (n == "lt") return [](T a, T b) { return T(a < b); };
  if (n == "ge") return [](T a, T b) { return T(a >= b); };
  if (n == "le") return [](T a, T b) { return T(a <= b); };
  throw std::invalid_argument("ref::binary: unknown " + n);
}

template <class T>
Unary<T> unary(const std::string& n) {
  if (n == "identity") return [](T x) { return x; };
  if (n == "ainv") return [](T x) { return ref_minus<T>(T(0), x); };
  if (n == "minv") return [](T x) { return ref_div<T>(T(1), x); };
  if (n == "abs") return [](T x) { return x < T(0) ? ref_minus<T>(T(0), x) : x; };
  if (n == "lnot") return [](T x) { return T(x == T(0)); };
  if (n == "one") return [](T) { return T(1); };
  // Only for floating point in the tests (integer NaN / infinity casts are undefined).
  if (n == "sqrt") return [](T x) { return static_cast<T>(std::sqrt(static_cast<double>(x))); };
  if (n == "exp") return [](T x) { return static_cast<T>(std::exp(static_cast<double>(x))); };
  if (n == "log") return [](T x) { return static_cast<T>(std::log(static_cast<double>(x))); };
  throw std::invalid_argument("ref::unary: unknown " + n);
}

template <class T>
struct Monoid {
  Binary<T> add;
  T identity;
};

template <class T>
T ref_top() { return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max(); }
template <class T>
T ref_bottom() { return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest(); }

template <class T>
Monoid<T> monoid(const std::string& n) {
  if (n == "plus") return {binary<T>("plus"), T(0)};
  if (n == "times") return {binary<T>("times"), T(1)};
  if (n == "min") return {binary<T>("min"), ref_top<T>()};
  if (n == "max") return {binary<T>("max"), ref_bottom<T>()};
  if (n == "lor") return {binary<T>("lor"), T(0)};
  if (n == "land") return {binary<T>("land"), T(1)};
  if (n == "lxor") return {binary<T>("lxor"), T(0)};
  if (n == "any") return {binary<T>("any"), T(0)};  // any term is acceptable: see the tests
  throw std::invalid_argument("ref::monoid: unknown " + n);
}

// Select predicates on (i, j, x) with offset k or threshold y.
template <class T>
std::function<bool(long long, long long, T)> predicate(const std::string& n, long long k, T y) {
  if (n == "tril") return [k](long long i, long long j, T) { return j <= i + k; };
  if (n == "triu") return [k](long long i, long long j, T) { return j >= i + k; };
  if (n == "diag") return [k](long long i, long long j, T) { return j == i + k; };
  if (n == "offdiag") return [k](long long i, long long j, T) { return j != i + k; };
  if (n == "row_le") return [k](long long i, long long, T) { return i <= k; };
  if (n == "row_gt") return [k](long long i, long long, T) { return i > k; };
  if (n == "col_le") return [k](long long, long long j, T) { return j <= k; };
  if (n == "col_gt") return [k](long long, long long j, T) { return j > k; };
  if (n == "value_eq") return [y](long long, long long, T x) { return x == y; };
  if (n == "value_ne") return [y](long long, long long, T x) { return x != y; };
  if (n == "value_lt") return [y](long long, long long, T x) { return x < y; };
  if (n == "value_le") return [y](long long, long long, T x) { return x <= y; };
  if (n == "value_gt") return [y](long long, long long, T x) { return x > y; };
  if (n == "value_ge") return [y](long long, long long, T x) { return x >= y; };
  if (n == "nonzero") return [](long long, long long, T x) { return x != T(0); };
  throw std::invalid_argument("ref::predicate: unknown " + n);
}

}  // namespace ref
