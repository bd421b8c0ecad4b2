// The two 16-bit floating types geblas stores: half (IEEE 754 binary16: 5 exponent bits,
// 10 mantissa bits, largest finite 65504) and bfloat16 (the upper half of a float: 8
// exponent bits, 7 mantissa bits, float's range). They are storage types: sparse x dense
// mxm reads them and computes in float (fp32 accumulation, one rounding when the result
// is stored), which is what GNN feature aggregation in mixed precision needs. The other
// operations take float32 or float64; geblas::convert moves values between the types.
//
// Conversions from float round to nearest, ties to even; NaN stays NaN (quiet) and
// values beyond the range become infinities. The host code here is constexpr and needs
// no CUDA headers; on the GPU the kernels reinterpret the same bits as __half and
// __nv_bfloat16.
#pragma once

#include <bit>
#include <cstdint>

namespace geblas {

namespace detail {

constexpr std::uint16_t round_shift_to_even(std::uint32_t m, int shift) {
  // m >> shift, rounded to nearest with ties to even (shift in 1..31).
  const std::uint32_t kept = m >> shift;
  const std::uint32_t rest = m & ((std::uint32_t{1} << shift) - 1);
  const std::uint32_t halfway = std::uint32_t{1} << (shift - 1);
  return static_cast<std::uint16_t>(kept + ((rest > halfway || (rest == halfway && (kept & 1u))) ? 1u : 0u));
}

constexpr std::uint16_t float_to_half_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u);  // NaN (quiet), infinity
  if (a >= 0x477ff000u) return sign | 0x7c00u;  // 65520 and above round to infinity
  const int e = static_cast<int>(a >> 23) - 127;
  const std::uint32_t m = (a & 0x7fffffu) | 0x800000u;  // 24 significant bits
  if (e >= -14) {
    // A normal half: keep 11 significant bits; a carry out of the mantissa bumps the
    // exponent, which the addition below does by itself.
    const std::uint32_t kept = round_shift_to_even(m, 13);
    return sign | static_cast<std::uint16_t>((static_cast<std::uint32_t>(e + 15) << 10) + kept - 0x400u);
  }
  // A subnormal half counts units of 2^-24: the value is m * 2^(e - 23) = m >> -(e + 1)
  // units. Below half a unit (shift above 24) it rounds to zero; float subnormals
  // (e = -127) land there too.
  const int shift = -(e + 1);
  if (shift > 24) return sign;
  return sign | round_shift_to_even(m, shift);
}

constexpr float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu;
  const std::uint32_t m = h & 0x3ffu;
  if (e == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    const float v = static_cast<float>(m) * 5.9604644775390625e-8f;  // m units of 2^-24, exact
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((e + 112u) << 23) | (m << 13));
}

constexpr std::uint16_t float_to_bfloat16_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  // Infinity stays infinity; the largest floats round up to it as they should.
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

constexpr float bfloat16_bits_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

}  // namespace detail

// IEEE 754 half precision.
struct half {
  std::uint16_t bits = 0;

  constexpr half() = default;
  constexpr explicit half(float f) : bits(detail::float_to_half_bits(f)) {}
  constexpr explicit operator float() const { return detail::half_bits_to_float(bits); }
  static constexpr half from_bits(std::uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
  // Numeric comparison (NaN equals nothing, -0 equals +0), as for float.
  friend constexpr bool operator==(half a, half b) { return static_cast<float>(a) == static_cast<float>(b); }
};

// bfloat16: float's exponent range with 8 significant bits.
struct bfloat16 {
  std::uint16_t bits = 0;

  constexpr bfloat16() = default;
  constexpr explicit bfloat16(float f) : bits(detail::float_to_bfloat16_bits(f)) {}
  constexpr explicit operator float() const { return detail::bfloat16_bits_to_float(bits); }
  static constexpr bfloat16 from_bits(std::uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
  friend constexpr bool operator==(bfloat16 a, bfloat16 b) { return static_cast<float>(a) == static_cast<float>(b); }
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2);

}  // namespace geblas
