// The conversion of one value between any two stored types (geblas::convert), written
// once as constexpr code so that the CPU loop and the CUDA kernel (compiled with
// --expt-relaxed-constexpr) give the same bits. Every conversion rounds once, to
// nearest with ties to even: a double or a 64-bit integer is first rounded to float
// "to odd" (truncate, then set the last bit when anything was dropped), which makes the
// following float -> half / bfloat16 rounding exact RNE of the original value, since
// float keeps at least two more bits than either 16-bit type.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "geblas/half.hpp"
#include "geblas/types.hpp"

namespace geblas::detail {

template <class T>
inline constexpr bool is_16bit_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

// d rounded to float toward zero, with the last bit set when the rounding was inexact.
constexpr float double_to_float_odd(double d) {
  float f = static_cast<float>(d);  // nearest; may overshoot |d| (or reach infinity)
  const double a = d < 0 ? -d : d;
  const double af = f < 0 ? -static_cast<double>(f) : static_cast<double>(f);
  std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  if (af > a) --bits;  // one step back toward zero (infinity steps back to the largest float)
  if (static_cast<double>(std::bit_cast<float>(bits)) != d) bits |= 1u;  // NaN keeps being NaN
  return std::bit_cast<float>(bits);
}

// v rounded to float to odd, exactly (no intermediate double rounding).
constexpr float int64_to_float_odd(std::int64_t v) {
  const bool negative = v < 0;
  std::uint64_t u = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  float scale = 1.0f;
  const int width = 64 - std::countl_zero(u);
  if (width > 24) {
    const int shift = width - 24;
    const bool dropped = (u & ((std::uint64_t{1} << shift) - 1)) != 0;
    u = (u >> shift) | (dropped ? 1u : 0u);
    scale = static_cast<float>(std::uint64_t{1} << shift);  // a power of two, exact
  }
  const float f = static_cast<float>(u) * scale;  // u < 2^24: both steps exact
  return negative ? -f : f;
}

// The value as a float that a 16-bit rounding can take without double rounding.
template <class From>
constexpr float to_float_for_16bit(From x) {
  if constexpr (std::is_same_v<From, bool>) return x ? 1.0f : 0.0f;
  else if constexpr (is_16bit_v<From>) return static_cast<float>(x);
  else if constexpr (std::is_same_v<From, float>) return x;
  else if constexpr (std::is_same_v<From, double>) return double_to_float_odd(x);
  else return int64_to_float_odd(static_cast<std::int64_t>(x));
}

// A floating value as an integer: truncated toward zero, saturated at the type's range,
// NaN to 0 (what CUDA's saturating conversions do), so that no input is undefined.
template <class To>
constexpr To float_to_integer(double x) {
  constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
  if (x != x) return To{0};
  if (x <= lo) return std::numeric_limits<To>::min();
  if (x >= hi) return std::numeric_limits<To>::max();
  return static_cast<To>(x);
}

template <class To, class From>
constexpr To convert_value(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_16bit_v<From>) return static_cast<float>(x) != 0.0f;  // NaN -> true, as for float
    else return x != From{0};
  } else if constexpr (is_16bit_v<To>) {
    return To(to_float_for_16bit(x));
  } else if constexpr (std::is_floating_point_v<To>) {
    if constexpr (is_16bit_v<From>) return static_cast<To>(static_cast<float>(x));  // exact
    else return static_cast<To>(x);  // one hardware rounding (to nearest even)
  } else {  // an integer type
    if constexpr (std::is_same_v<From, bool>) return x ? To{1} : To{0};
    else if constexpr (is_16bit_v<From>) return float_to_integer<To>(static_cast<float>(x));
    else if constexpr (std::is_floating_point_v<From>) return float_to_integer<To>(static_cast<double>(x));
    else {  // integer to integer, saturated
      if (x < static_cast<From>(0) && static_cast<std::int64_t>(x) < static_cast<std::int64_t>(std::numeric_limits<To>::min()))
        return std::numeric_limits<To>::min();
      if (static_cast<std::int64_t>(x) > static_cast<std::int64_t>(std::numeric_limits<To>::max()))
        return std::numeric_limits<To>::max();
      return static_cast<To>(x);
    }
  }
}

// Calls f.template operator()<T>() for every stored type, the 16-bit ones included (the
// few paths that handle them: construction, convert, I/O, sparse x dense mxm).
template <class F>
decltype(auto) visit_storage_type(TypeId t, F&& f) {
  switch (t) {
    case TypeId::boolean: return f.template operator()<bool>();
    case TypeId::int32: return f.template operator()<std::int32_t>();
    case TypeId::int64: return f.template operator()<std::int64_t>();
    case TypeId::float32: return f.template operator()<float>();
    case TypeId::float16: return f.template operator()<half>();
    case TypeId::bfloat16: return f.template operator()<bfloat16>();
    case TypeId::float64: break;
  }
  return f.template operator()<double>();
}

}  // namespace geblas::detail
