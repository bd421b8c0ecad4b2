// An independent reference for rounding to a binary floating format (half, bfloat16):
// written from the IEEE 754 definition in long double (64 significant bits, so every
// float, double and int64 input is exact), sharing no code with geblas's conversions.
#pragma once

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace geblas::test {

struct Format {
  int precision;  // significant bits, the hidden one included
  int emin;       // exponent of the smallest normal number
  int emax;       // exponent of the largest finite number
};
inline constexpr Format half_format{11, -14, 15};
inline constexpr Format bfloat16_format{8, -126, 127};

inline long double largest_finite(Format f) {
  return std::ldexp(2.0L - std::ldexp(1.0L, 1 - f.precision), f.emax);
}

// x rounded to the format, to nearest with ties to even; overflow to infinity.
inline long double round_to_format(long double x, Format f) {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  const long double a = std::fabs(x);
  int e = 0;
  std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1): the leading bit has exponent e - 1
  const int quantum = std::max(e - 1, f.emin) - (f.precision - 1);
  const int old_mode = std::fegetround();
  std::fesetround(FE_TONEAREST);
  long double r = std::ldexp(std::nearbyint(std::ldexp(a, -quantum)), quantum);
  std::fesetround(old_mode);
  if (r > largest_finite(f)) r = std::numeric_limits<long double>::infinity();
  return x < 0 ? -r : r;
}

// The value of a 16-bit pattern of the format, decoded from its fields.
inline long double decode(std::uint16_t bits, Format f) {
  const int mant_bits = f.precision - 1;
  const int exp_bits = 15 - mant_bits;
  const bool negative = bits >> 15;
  const int e = (bits >> mant_bits) & ((1 << exp_bits) - 1);
  const int m = bits & ((1 << mant_bits) - 1);
  long double v;
  if (e == (1 << exp_bits) - 1) v = m ? std::numeric_limits<long double>::quiet_NaN() : std::numeric_limits<long double>::infinity();
  else if (e == 0) v = std::ldexp(static_cast<long double>(m), f.emin - mant_bits);
  else v = std::ldexp(static_cast<long double>(m + (1 << mant_bits)), e - 1 + f.emin - mant_bits);
  return negative ? -v : v;
}

}  // namespace geblas::test
