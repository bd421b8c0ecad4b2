// Reference semirings for the tests, written independently of geblas: each named
// semiring is a pair of plain lambdas and an identity, with the same documented rules
// (integer arithmetic wraps, min/max ignore a single NaN).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ref {

template <class T>
struct SemiringOps {
  std::string name;
  std::function<T(T, T)> add;
  std::function<T(T, T)> mul;
  T identity;
};

template <class T>
T wrapping_plus(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else return a + b;
}
template <class T>
T wrapping_times(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a && b;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) * static_cast<std::make_unsigned_t<T>>(b));
  else return a * b;
}
template <class T>
T fmin_like(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return std::fmin(a, b);
  else return std::min(a, b);
}
template <class T>
T fmax_like(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return std::fmax(a, b);
  else return std::max(a, b);
}
template <class T>
T top() { return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max(); }
template <class T>
T bottom() { return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest(); }

// The names the geblas built-ins use; "any_second" is checked separately (any result of
// the terms is allowed), so its reference returns the candidates' min for comparison.
template <class T>
SemiringOps<T> semiring(const std::string& name) {
  auto second = [](T, T b) { return b; };
  if (name == "plus_times") return {name, wrapping_plus<T>, wrapping_times<T>, T(0)};
  if (name == "max_times") return {name, fmax_like<T>, wrapping_times<T>, bottom<T>()};
  if (name == "min_plus") return {name, fmin_like<T>, wrapping_plus<T>, top<T>()};
  if (name == "max_plus") return {name, fmax_like<T>, wrapping_plus<T>, bottom<T>()};
  if (name == "min_times") return {name, fmin_like<T>, wrapping_times<T>, top<T>()};
  if (name == "max_min") return {name, fmax_like<T>, fmin_like<T>, bottom<T>()};
  if (name == "min_max") return {name, fmin_like<T>, fmax_like<T>, top<T>()};
  if (name == "plus_pair") return {name, wrapping_plus<T>, [](T, T) { return T(1); }, T(0)};
  if (name == "min_second") return {name, fmin_like<T>, second, top<T>()};
  if (name == "plus_second") return {name, wrapping_plus<T>, second, T(0)};
  if (name == "lor_land") return {name, [](T a, T b) { return T(a || b); }, [](T a, T b) { return T(a && b); }, T(0)};
  if (name == "any_second") return {name, [](T a, T) { return a; }, second, T(0)};
  throw std::invalid_argument("ref::semiring: unknown " + name);
}

}  // namespace ref
