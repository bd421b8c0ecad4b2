// half / bfloat16 through Matrix Market and the binary format: written matrices read
// back bit for bit (every class of value: subnormals, -0, infinities, NaN), decimal text
// is rounded once to nearest even (checked against the long-double oracle of
// tests/reference/rounding_oracle.hpp), values beyond the range are a ParseError, and the
// binary type codes 5 / 6 are read while unknown codes stay refused.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "reference/rounding_oracle.hpp"
#include "geblas/geblas.hpp"
#include "io/temp_dir.hpp"
#include "support/catch.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

template <class H>
constexpr Format format_of() {
  return std::is_same_v<H, half> ? half_format : bfloat16_format;
}

template <class H>
bool same_value(H a, H b) {
  const float x = static_cast<float>(a), y = static_cast<float>(b);
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return a.bits == b.bits;
}

// A matrix whose values cover every class of 16-bit value, at random positions.
template <class H>
SparseMatrix<H> varied_matrix(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Tuple<H>> t;
  const std::vector<std::uint16_t> specials = std::is_same_v<H, half>
      ? std::vector<std::uint16_t>{0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x3555}
      : std::vector<std::uint16_t>{0x0000, 0x8000, 0x0001, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x3eab};
  for (Index i = 0; i < 40; ++i)
    for (Index j = 0; j < 30; ++j) {
      if (rng() % 3) continue;
      const std::uint16_t b = t.size() < specials.size() ? specials[t.size()] : static_cast<std::uint16_t>(rng());
      t.push_back({i, j, H::from_bits(b)});
    }
  return SparseMatrix<H>::from_tuples(40, 30, t);
}

template <class H>
void check_same(const SparseMatrix<H>& got, const SparseMatrix<H>& want) {
  REQUIRE(got.row_offsets() == want.row_offsets());
  REQUIRE(got.col_indices() == want.col_indices());
  const auto a = got.values(), b = want.values();
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!same_value(a[k], b[k])) FAIL_CHECK("value " << k << ": bits 0x" << std::hex << a[k].bits << " vs 0x" << b[k].bits);
}

template <class E, class F>
void expect_error(F&& f, const std::vector<std::string>& pieces) {
  try {
    f();
    FAIL("no exception; expected one mentioning " << pieces.front());
  } catch (const E& e) {
    const std::string what = e.what();
    INFO("message: " << what);
    for (const auto& p : pieces) CHECK(what.find(p) != std::string::npos);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("16-bit matrices round-trip through Matrix Market and binary", "[io][16bit]", half, bfloat16) {
  using H = TestType;
  TempDir dir;
  const auto A = varied_matrix<H>(11);
  for (const char* name : {"a.mtx", "a.mtx.gz"}) {
    io::write_matrix_market(dir.file(name), A);
    check_same(io::read_matrix_market<H>(dir.file(name)), A);
    // Read as float, the widened values exactly.
    const auto F = io::read_matrix_market<float>(dir.file(name));
    const auto fv = F.values();
    const auto av = A.values();
    REQUIRE(fv.size() == av.size());
    for (std::size_t k = 0; k < fv.size(); ++k) {
      const float w = static_cast<float>(av[k]);
      CHECK((std::isnan(w) ? std::isnan(fv[k]) : std::memcmp(&w, &fv[k], 4) == 0));
    }
  }
  CHECK(read_bytes(dir.file("a.mtx")).find(std::string("(") + std::string(type_traits<H>::name) + ")") != std::string::npos);
  io::write_binary(dir.file("a.bin"), A);
  check_same(io::read_binary<H>(dir.file("a.bin")), A);
  const auto Fb = io::read_binary<double>(dir.file("a.bin")).values();
  const auto av = A.values();
  for (std::size_t k = 0; k < av.size(); ++k)
    CHECK((std::isnan(Fb[k]) ? std::isnan(static_cast<float>(av[k])) : Fb[k] == static_cast<double>(static_cast<float>(av[k]))));

  // Dense, both layouts.
  std::mt19937_64 rng(3);
  std::vector<H> v(6 * 5);
  for (auto& x : v) x = H::from_bits(static_cast<std::uint16_t>(rng()));
  for (auto D : {DenseMatrix<H>::from_row_major(6, 5, v), DenseMatrix<H>::from_col_major(6, 5, v)}) {
    io::write_matrix_market(dir.file("d.mtx"), D);
    const auto R = io::read_matrix_market_dense<H>(dir.file("d.mtx"));
    for (Index i = 0; i < 6; ++i)
      for (Index j = 0; j < 5; ++j) CHECK(same_value(R.at(i, j), D.at(i, j)));
  }
}

TEMPLATE_TEST_CASE("decimal text is rounded once into 16 bits; overflow is a ParseError", "[io][16bit]", half, bfloat16) {
  using H = TestType;
  TempDir dir;
  // Values next to rounding boundaries of both types, written in decimal.
  const std::vector<std::string> text = {"0.1",       "1.0009765625", "1.00048828125", "1.000488281250001", "0.333333333333",
                                         "-2.5e-8",   "6e-8",         "2.98023223876953125e-8", "1e-45", "65504",
                                         "65519.999", "1.00390625",   "1.005859375",  "-0", "3.3e38"};
  std::string file = "%%MatrixMarket matrix coordinate real general\n1 " + std::to_string(text.size()) + " " +
                     std::to_string(text.size()) + "\n";
  for (std::size_t k = 0; k < text.size(); ++k) file += "1 " + std::to_string(k + 1) + " " + text[k] + "\n";
  const bool half_overflows = std::is_same_v<H, half>;  // 3.3e38 is finite in bfloat16 only
  if (half_overflows) {
    expect_error<ParseError>([&] { io::read_matrix_market<H>(dir.write("o.mtx", file)); }, {"o.mtx", "(1, 15)", "float16"});
    file = file.substr(0, file.rfind("1 15 "));
    file.replace(file.find(" 15 15"), 6, " 15 14");
  }
  const auto A = io::read_matrix_market<H>(dir.write("r.mtx", file));
  const auto vals = A.values();
  REQUIRE(vals.size() == text.size() - (half_overflows ? 1 : 0));
  for (std::size_t k = 0; k < vals.size(); ++k) {
    const long double expect = round_to_format(std::strtold(text[k].c_str(), nullptr), format_of<H>());
    const long double got = decode(vals[k].bits, format_of<H>());
    INFO("text " << text[k]);
    CHECK(got == expect);
    CHECK(std::signbit(got) == std::signbit(expect));
  }
  // Overflow in a dense (array) file, with its position.
  const std::string dense = "%%MatrixMarket matrix array real general\n2 1\n1.5\n" +
                            std::string(std::is_same_v<H, half> ? "70000" : "1e39") + "\n";
  expect_error<ParseError>([&] { io::read_matrix_market_dense<H>(dir.write("d.mtx", dense)); }, {"(2, 1)", "beyond the range"});
  // Infinity written as such is kept.
  const auto I = io::read_matrix_market<H>(dir.write("i.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 inf\n"));
  CHECK(std::isinf(static_cast<float>(I.values()[0])));
}

TEST_CASE("binary files convert to and from 16-bit types and refuse unknown type codes", "[io][16bit]") {
  TempDir dir;
  const auto F = SparseMatrix<float>::from_tuples(2, 3, std::vector<Tuple<float>>{{0, 1, 0.1f}, {1, 2, 65520.0f}, {1, 0, 3.0f}});
  io::write_binary(dir.file("f.bin"), F);
  expect_error<ParseError>([&] { io::read_binary<half>(dir.file("f.bin")); }, {"65520", "float16"});
  const auto B = io::read_binary<bfloat16>(dir.file("f.bin")).values();
  const auto fv = F.values();
  for (std::size_t k = 0; k < fv.size(); ++k)
    CHECK(decode(B[k].bits, bfloat16_format) == round_to_format(fv[k], bfloat16_format));
  const auto H = SparseMatrix<half>::from_tuples(1, 2, std::vector<Tuple<half>>{{0, 0, half(2.0f)}, {0, 1, half(2.5f)}});
  io::write_binary(dir.file("h.bin"), H);
  expect_error<ParseError>([&] { io::read_binary<std::int32_t>(dir.file("h.bin")); }, {"2.5", "int32"});
  const auto Hb = io::read_binary<bfloat16>(dir.file("h.bin")).values();
  CHECK(Hb[1].bits == bfloat16(2.5f).bits);
  // Type code 7 is nobody's: still refused (the checksum is not reached first).
  std::string bytes = read_bytes(dir.file("h.bin"));
  bytes[16] = 7;
  expect_error<ParseError>([&] { io::read_binary<half>(dir.write("bad.bin", bytes)); }, {"unknown value type code 7"});
}
