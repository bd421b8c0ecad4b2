// geblas::convert between the stored types on the CPU, checked value by value against
// the long-double rounding oracle (tests/reference/rounding_oracle.hpp) and, for half, GCC's
// _Float16 where the compiler has it: all 65536 patterns of each 16-bit type, random
// float / double bit patterns, the values next to every rounding boundary, subnormals,
// signed zeros, infinities, NaN, 65504 / 65520, and integers to and from 16 bits.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <vector>

#include "reference/rounding_oracle.hpp"
#include "geblas/operations/convert.hpp"
#include "support/catch.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

template <class H>
constexpr Format format_of() {
  return std::is_same_v<H, half> ? half_format : bfloat16_format;
}

template <class H>
std::vector<H> all_patterns() {
  std::vector<H> v(65536);
  for (std::uint32_t b = 0; b < 65536; ++b) v[b] = H::from_bits(static_cast<std::uint16_t>(b));
  return v;
}

// Same value or both NaN; zeros compared with their sign.
bool same(long double a, long double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

template <class H>
long double value_of(H h) {
  return decode(h.bits, format_of<H>());
}

// Checks convert<H>(in) against the oracle, entry by entry.
template <class H, class T>
void check_to_16bit(const std::vector<T>& in, const char* what) {
  const auto out = convert<H>(DenseMatrix<T>::from_row_major(1, static_cast<Index>(in.size()), in)).to_row_major();
  REQUIRE(out.size() == in.size());
  std::size_t bad = 0;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const long double expect = round_to_format(static_cast<long double>(in[k]), format_of<H>());
    const long double got = value_of(out[k]);
    if (!same(expect, got) && bad++ < 10) {
      std::ostringstream s;
      s.precision(21);
      s << what << " -> " << type_traits<H>::name << ": input " << static_cast<long double>(in[k]) << " (entry " << k
        << ") gave " << got << " (bits 0x" << std::hex << out[k].bits << "), expected " << expect;
      FAIL_CHECK(s.str());
    }
  }
  CHECK(bad == 0);
}

// Floats on both sides of every rounding boundary of H: each representable value, the
// midpoints between neighbours (exact in float: float keeps 13 / 16 more bits), and
// one float ulp either side of each.
template <class H>
std::vector<float> boundary_floats() {
  std::vector<float> v;
  for (std::uint32_t b = 0; b < 0x7c00u || (std::is_same_v<H, bfloat16> && b < 0x7f80u); ++b) {
    const float lo = static_cast<float>(H::from_bits(static_cast<std::uint16_t>(b)));
    const float hi = static_cast<float>(H::from_bits(static_cast<std::uint16_t>(b + 1)));
    const float mid = lo + (hi - lo) / 2;  // exact
    for (float x : {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, hi)}) {
      v.push_back(x);
      v.push_back(-x);
    }
  }
  return v;
}

std::vector<float> special_floats() {
  const float inf = std::numeric_limits<float>::infinity();
  return {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
          std::bit_cast<float>(0x7f800001u),  // signalling NaN
          65504.0f, 65519.99f, 65520.0f, -65520.0f, 65536.0f, 1e30f, std::numeric_limits<float>::max(),
          std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(), 5.960464477539063e-8f,
          2.980232238769531e-8f, 2.9802326e-8f, 1.0f, 1.0009765625f, 1.00048828125f, 3.3895314e38f, 3.3961776e38f};
}

}  // namespace

TEMPLATE_TEST_CASE("every 16-bit pattern converts to float and double exactly and back", "[convert][16bit][cpu]", half,
                   bfloat16) {
  using H = TestType;
  const auto patterns = all_patterns<H>();
  const DenseMatrix<H> P = DenseMatrix<H>::from_row_major(256, 256, patterns);
  const auto f = convert<float>(P).to_row_major();
  const auto d = convert<double>(P).to_row_major();
  const auto back = convert<H>(convert<float>(P)).to_row_major();
  const auto back_d = convert<H>(convert<double>(P)).to_row_major();
  std::size_t bad = 0;
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const long double v = decode(static_cast<std::uint16_t>(b), format_of<H>());
    bool ok = same(v, f[b]) && same(v, d[b]);
    if (std::isnan(v)) {
      // NaN stays NaN with its sign; the payload becomes the quiet one.
      ok = ok && std::isnan(static_cast<float>(back[b])) && (back[b].bits >> 15) == (b >> 15) &&
           std::isnan(static_cast<float>(back_d[b]));
    } else {
      ok = ok && back[b].bits == b && back_d[b].bits == b;
    }
    if (!ok && bad++ < 10)
      FAIL_CHECK("pattern 0x" << std::hex << b << std::dec << ": float " << f[b] << ", double " << d[b]
                              << ", expected " << static_cast<double>(v) << "; back 0x" << std::hex << back[b].bits
                              << " / 0x" << back_d[b].bits);
  }
  CHECK(bad == 0);
#if defined(__FLT16_MAX__)
  if constexpr (std::is_same_v<H, half>) {
    // The compiler's own half type agrees on every pattern.
    for (std::uint32_t b = 0; b < 65536; ++b) {
      _Float16 h;
      const std::uint16_t bits = static_cast<std::uint16_t>(b);
      std::memcpy(&h, &bits, 2);
      if (!same(static_cast<float>(h), f[b])) FAIL_CHECK("_Float16 disagrees at 0x" << std::hex << b);
    }
  }
#endif
}

TEMPLATE_TEST_CASE("float and double round to 16 bits to nearest even", "[convert][16bit][cpu]", half, bfloat16) {
  using H = TestType;
  check_to_16bit<H>(boundary_floats<H>(), "boundary float");
  check_to_16bit<H>(special_floats(), "special float");
  std::vector<double> specials_d;
  for (float x : special_floats()) specials_d.push_back(x);
  check_to_16bit<H>(specials_d, "special double");

  const std::uint64_t seed = 20261123;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<float> rf(200000);
  for (auto& x : rf) x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
  check_to_16bit<H>(rf, "random float bits");
  // Floats in H's range, where the rounding is not just overflow or zero.
  for (auto& x : rf) x = std::ldexp(std::uniform_real_distribution<float>(-2, 2)(rng), static_cast<int>(rng() % 44) - 28);
  check_to_16bit<H>(rf, "random float in range");
  std::vector<double> rd(200000);
  for (auto& x : rd) x = std::bit_cast<double>(rng());
  check_to_16bit<H>(rd, "random double bits");
  // Doubles within a float ulp of a 16-bit midpoint: rounding through float first would
  // land on the midpoint and tie the wrong way.
  std::vector<double> near_mid;
  for (float x : boundary_floats<H>()) {
    if (!std::isfinite(x) || x == 0) continue;
    const double ulp = std::ldexp(1.0, std::ilogb(x) - 40);
    near_mid.push_back(static_cast<double>(x) + ulp);
    near_mid.push_back(static_cast<double>(x) - ulp);
  }
  check_to_16bit<H>(near_mid, "double near a boundary");

#if defined(__FLT16_MAX__)
  if constexpr (std::is_same_v<H, half>) {
    // Second oracle: the compiler's _Float16 conversions.
    std::vector<float> all = boundary_floats<H>();
    for (float x : special_floats()) all.push_back(x);
    all.insert(all.end(), rf.begin(), rf.end());
    const auto out = convert<half>(DenseMatrix<float>::from_row_major(1, static_cast<Index>(all.size()), all)).to_row_major();
    std::size_t bad = 0;
    for (std::size_t k = 0; k < all.size(); ++k) {
      const _Float16 h = static_cast<_Float16>(all[k]);
      if (!same(static_cast<float>(h), static_cast<float>(out[k])) && bad++ < 10)
        FAIL_CHECK("_Float16 disagrees on " << all[k]);
    }
    CHECK(bad == 0);
  }
#endif
}

TEMPLATE_TEST_CASE("integers and bool convert to and from 16 bits", "[convert][16bit][cpu]", half, bfloat16) {
  using H = TestType;
  std::vector<std::int64_t> ints = {0, 1, -1, 2047, 2049, 4097, 65504, 65519, 65520, 65536, -65520,
                                    std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(),
                                    (std::int64_t{1} << 53) + 1, (std::int64_t{1} << 62) + (std::int64_t{1} << 54) + 1};
  std::mt19937_64 rng(7);
  for (int k = 0; k < 20000; ++k) ints.push_back(static_cast<std::int64_t>(rng()) >> (rng() % 63));
  check_to_16bit<H>(ints, "int64");
  std::vector<std::int32_t> i32;
  for (auto x : ints) i32.push_back(static_cast<std::int32_t>(x));
  check_to_16bit<H>(i32, "int32");
  const auto b = convert<H>(DenseMatrix<bool>::from_row_major(1, 2, {true, false})).to_row_major();
  CHECK(b[0].bits == H(1.0f).bits);
  CHECK(b[1].bits == 0);

  // 16 bits to integers: truncation toward zero, saturation, NaN -> 0; to bool: x != 0.
  const auto patterns = all_patterns<H>();
  const DenseMatrix<H> P = DenseMatrix<H>::from_row_major(1, 65536, patterns);
  const auto to32 = convert<std::int32_t>(P).to_row_major();
  const auto to64 = convert<std::int64_t>(P).to_row_major();
  const auto tob = convert<bool>(P).to_row_major();
  std::size_t bad = 0;
  for (std::uint32_t k = 0; k < 65536; ++k) {
    const long double v = decode(static_cast<std::uint16_t>(k), format_of<H>());
    auto expect = [&](long double lo, long double hi) -> long double {
      if (std::isnan(v)) return 0;
      return std::max(lo, std::min(hi, std::trunc(v)));
    };
    const bool ok = to32[k] == expect(-2147483648.0L, 2147483647.0L) &&
                    to64[k] == expect(-9223372036854775808.0L, 9223372036854775807.0L) && tob[k] == (v != 0);
    if (!ok && bad++ < 10) FAIL_CHECK("pattern 0x" << std::hex << k << std::dec << " (" << static_cast<double>(v) << "): int32 " << to32[k] << ", int64 " << to64[k] << ", bool " << tob[k]);
  }
  CHECK(bad == 0);
}

TEST_CASE("convert keeps the pattern, shape and layout and converts between half and bfloat16",
          "[convert][16bit][cpu]") {
  const std::vector<Index> rows = {0, 0, 2, 3}, cols = {1, 4, 0, 4};
  const std::vector<float> vals = {1.0f / 3, -70000.0f, 1e-6f, 65504.0f};
  const auto A = SparseMatrix<float>::from_tuples(4, 5, rows, cols, vals);
  const auto H = convert<half>(A);
  CHECK(H.row_offsets() == A.row_offsets());
  CHECK(H.col_indices() == A.col_indices());
  const auto hv = H.values();
  for (std::size_t k = 0; k < vals.size(); ++k) CHECK(same(value_of(hv[k]), round_to_format(vals[k], half_format)));
  // half -> bfloat16 rounds the half value once.
  const auto B = convert<bfloat16>(H).values();
  for (std::size_t k = 0; k < vals.size(); ++k)
    CHECK(same(value_of(B[k]), round_to_format(value_of(hv[k]), bfloat16_format)));

  const auto D = DenseMatrix<double>::random(3, 7, Device::cpu(), 5, Layout::col_major);
  const auto Dh = convert<half>(D);
  CHECK(Dh.layout() == Layout::col_major);
  CHECK(Dh.nrows() == 3);
  CHECK(Dh.ncols() == 7);
  for (Index i = 0; i < 3; ++i)
    for (Index j = 0; j < 7; ++j) CHECK(same(value_of(Dh.at(i, j)), round_to_format(D.at(i, j), half_format)));

  const auto u = Vector<float>::from_tuples(6, std::vector<Index>{1, 5}, std::vector<float>{2.5f, 1e9f});
  const auto uh = convert<bfloat16>(u);
  CHECK(uh.nvals() == 2);
}
