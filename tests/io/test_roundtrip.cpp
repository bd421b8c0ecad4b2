// Writing then reading: Matrix Market (plain and gzip, sparse and dense, both layouts)
// and the binary format, for every value type, must give back every entry bit for bit;
// the binary reader must refuse truncated, corrupted and foreign files.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "io/temp_dir.hpp"
#include "support/catch.hpp"
#include "support/data.hpp"
#include "support/random.hpp"

using namespace geblas;

namespace {

// Equal as stored bits for floating point (so NaN == NaN and -0 != +0), == otherwise.
template <class T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return std::memcmp(&a, &b, sizeof(T)) == 0 || (a != a && b != b);
  else return a == b;
}

template <class T>
std::string diff(const SparseMatrix<T>& got, const SparseMatrix<T>& want) {
  if (got.nrows() != want.nrows() || got.ncols() != want.ncols() || got.nvals() != want.nvals())
    return "shape " + std::to_string(got.nrows()) + "x" + std::to_string(got.ncols()) + "/" + std::to_string(got.nvals()) +
           " != " + std::to_string(want.nrows()) + "x" + std::to_string(want.ncols()) + "/" + std::to_string(want.nvals());
  if (got.row_offsets() != want.row_offsets()) return "row offsets differ";
  if (got.col_indices() != want.col_indices()) return "column indices differ";
  const auto a = got.values(), b = want.values();
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!same(a[k], b[k])) return "value " + std::to_string(k) + " differs: " + std::to_string(+a[k]) + " vs " + std::to_string(+b[k]);
  return "";
}

// Values that test the printing: extremes, subnormals, negative zero, NaN and infinities.
template <class T>
std::vector<T> special_values() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) return {true, false};
  else if constexpr (std::is_integral_v<T>) return {L::min(), L::max(), 0, -1, 1};
  else return {L::max(), L::lowest(), L::min(), L::denorm_min(), T(-0.0), T(0.1), T(1) / T(3), L::quiet_NaN(), L::infinity(), -L::infinity(), T(1e-30)};
}

template <class T>
SparseMatrix<T> random_matrix(Index m, Index n, std::uint64_t seed) {
  auto r = test::random_sparse<T>(m, n, 0.2, test::Shape::empty_rows, seed, /*real=*/true);
  const auto sv = special_values<T>();
  for (std::size_t k = 0; k < r.tuples.size() && k < sv.size(); ++k) r.tuples[k * 3 % r.tuples.size()].value = sv[k];
  return SparseMatrix<T>::from_tuples(m, n, r.tuples);
}

template <class T>
void sparse_round_trip(const test::TempDir& dir, Index m, Index n, std::uint64_t seed) {
  const auto A = random_matrix<T>(m, n, seed);
  INFO(type_traits<T>::name << " " << m << "x" << n << " seed " << seed << " nvals " << A.nvals());
  for (const char* name : {"a.mtx", "a.mtx.gz"}) {
    INFO(name);
    io::write_matrix_market(dir.file(name), A);
    CHECK(diff(io::read_matrix_market<T>(dir.file(name)), A) == "");
  }
  io::write_binary(dir.file("a.bin"), A);
  CHECK(diff(io::read_binary<T>(dir.file("a.bin")), A) == "");
}

template <class T>
void dense_round_trip(const test::TempDir& dir, Index m, Index n, std::uint64_t seed, Layout layout) {
  auto D = DenseMatrix<T>::random(m, n, Device::cpu(), seed, layout);
  const auto sv = special_values<T>();
  for (std::size_t k = 0; k < sv.size() && m * n > 0; ++k) D.data()[(k * 7) % static_cast<std::size_t>(m * n)] = sv[k];
  INFO(type_traits<T>::name << " dense " << m << "x" << n << " seed " << seed << (layout == Layout::row_major ? " row" : " col"));
  for (const char* name : {"d.mtx", "d.mtx.gz"}) {
    INFO(name);
    io::write_matrix_market(dir.file(name), D);
    const auto R = io::read_matrix_market_dense<T>(dir.file(name));
    REQUIRE(R.nrows() == m);
    REQUIRE(R.ncols() == n);
    const auto got = R.to_row_major(), want = D.to_row_major();
    for (std::size_t k = 0; k < want.size(); ++k) {
      if (!same(got[k], want[k])) {
        FAIL_CHECK("entry " << k << " got " << +got[k] << " want " << +want[k]);
        break;
      }
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("sparse matrices round-trip through Matrix Market and binary", "[io][roundtrip]", bool,
                   std::int32_t, std::int64_t, float, double) {
  test::TempDir dir;
  std::uint64_t seed = 500;
  for (auto [m, n] : {std::pair<Index, Index>{0, 0}, {0, 7}, {5, 0}, {1, 1}, {37, 41}, {200, 3}, {3, 300}})
    sparse_round_trip<TestType>(dir, m, n, ++seed);
  // An empty matrix (no entries) with a shape.
  const SparseMatrix<TestType> E(4, 6);
  io::write_matrix_market(dir.file("e.mtx"), E);
  CHECK(diff(io::read_matrix_market<TestType>(dir.file("e.mtx")), E) == "");
  io::write_binary(dir.file("e.bin"), E);
  CHECK(diff(io::read_binary<TestType>(dir.file("e.bin")), E) == "");
}

TEMPLATE_TEST_CASE("dense matrices round-trip through Matrix Market array files", "[io][roundtrip]", bool,
                   std::int32_t, std::int64_t, float, double) {
  test::TempDir dir;
  std::uint64_t seed = 900;
  for (auto [m, n] : {std::pair<Index, Index>{0, 0}, {1, 1}, {13, 7}, {1, 50}, {50, 1}})
    for (Layout layout : {Layout::row_major, Layout::col_major}) dense_round_trip<TestType>(dir, m, n, ++seed, layout);
}

TEST_CASE("the written field follows the type: pattern, integer, real", "[io][roundtrip]") {
  test::TempDir dir;
  const auto T = SparseMatrix<bool>::from_tuples(2, 2, std::vector<Tuple<bool>>{{0, 1, true}, {1, 0, true}});
  io::write_matrix_market(dir.file("t.mtx"), T);
  CHECK(io::read_matrix_market_header(dir.file("t.mtx")).field == "pattern");
  // A stored false cannot be a pattern entry: written as integer 0/1 instead.
  const auto F = SparseMatrix<bool>::from_tuples(2, 2, std::vector<Tuple<bool>>{{0, 1, true}, {1, 0, false}});
  io::write_matrix_market(dir.file("f.mtx"), F);
  CHECK(io::read_matrix_market_header(dir.file("f.mtx")).field == "integer");
  io::write_matrix_market(dir.file("i.mtx"), SparseMatrix<std::int64_t>(2, 2));
  CHECK(io::read_matrix_market_header(dir.file("i.mtx")).field == "integer");
  io::write_matrix_market(dir.file("r.mtx.gz"), SparseMatrix<float>(2, 2));
  CHECK(io::read_matrix_market_header(dir.file("r.mtx.gz")).field == "real");
  CHECK(test::read_bytes(dir.file("r.mtx.gz")).substr(0, 2) == "\x1f\x8b");
  CHECK(test::read_bytes(dir.file("i.mtx")).substr(0, 14) == "%%MatrixMarket");
  io::write_matrix_market(dir.file("d.mtx"), DenseMatrix<bool>(2, 2));
  CHECK(io::read_matrix_market_header(dir.file("d.mtx")).format == "array");
  CHECK(io::read_matrix_market_header(dir.file("d.mtx")).field == "integer");
}

TEST_CASE("shared graphs round-trip through the binary format and Matrix Market", "[io][roundtrip][data]") {
  const auto graphs = test::data_graphs();
  if (graphs.empty()) {
    WARN("SKIPPED: no graphs in " << test::data_dir() << " (set GEBLAS_DATA_DIR)");
    return;
  }
  test::TempDir dir;
  for (const auto& name : graphs) {
    INFO(name);
    const auto A = io::read_matrix_market<float>((test::data_dir() / name).string());
    io::write_binary(dir.file("g.bin"), A);
    CHECK(diff(io::read_binary<float>(dir.file("g.bin")), A) == "");
    if (A.nvals() < 500000) {
      io::write_matrix_market(dir.file("g.mtx.gz"), A);
      CHECK(diff(io::read_matrix_market<float>(dir.file("g.mtx.gz")), A) == "");
    }
  }
}

TEST_CASE("binary files read as another type convert when every value fits", "[io][binary]") {
  test::TempDir dir;
  const auto I = SparseMatrix<std::int32_t>::from_tuples(2, 3, std::vector<Tuple<std::int32_t>>{{0, 1, 7}, {1, 2, -4}});
  io::write_binary(dir.file("i.bin"), I);
  const auto D = io::read_binary<double>(dir.file("i.bin"));
  CHECK(D.extract_tuples() == std::vector<Tuple<double>>{{0, 1, 7.0}, {1, 2, -4.0}});
  CHECK(io::read_binary<std::int64_t>(dir.file("i.bin")).extract_tuples() ==
        std::vector<Tuple<std::int64_t>>{{0, 1, 7}, {1, 2, -4}});
  CHECK_THROWS_AS(io::read_binary<bool>(dir.file("i.bin")), ParseError);
  const auto F = SparseMatrix<double>::from_tuples(1, 2, std::vector<Tuple<double>>{{0, 0, 2.0}, {0, 1, 2.5}});
  io::write_binary(dir.file("f.bin"), F);
  CHECK_THROWS_AS(io::read_binary<std::int32_t>(dir.file("f.bin")), ParseError);
  CHECK(io::read_binary<float>(dir.file("f.bin")).values() == std::vector<float>{2.0f, 2.5f});
  const auto H = SparseMatrix<double>::from_tuples(1, 1, std::vector<Tuple<double>>{{0, 0, 1e300}});
  io::write_binary(dir.file("h.bin"), H);
  CHECK_THROWS_AS(io::read_binary<float>(dir.file("h.bin")), ParseError);
}

TEST_CASE("damaged binary files are refused with a clear error", "[io][binary][errors]") {
  test::TempDir dir;
  const auto A = random_matrix<double>(40, 30, 77);
  io::write_binary(dir.file("a.bin"), A);
  const std::string good = test::read_bytes(dir.file("a.bin"));
  REQUIRE(good.size() == 64 + 41 * 8 + static_cast<std::size_t>(A.nvals()) * 12 + 4);
  struct Damage {
    const char* name;
    std::string bytes;
    const char* reason;
  };
  auto flipped = [&](std::size_t at) {
    std::string b = good;
    b[at] = static_cast<char>(b[at] ^ 0x10);
    return b;
  };
  auto with_u32 = [&](std::size_t at, std::uint32_t v) {
    std::string b = good;
    std::memcpy(&b[at], &v, 4);
    return b;
  };
  auto with_i64 = [&](std::size_t at, std::int64_t v) {
    std::string b = good;
    std::memcpy(&b[at], &v, 8);
    return b;
  };
  const std::vector<Damage> cases = {
      {"empty", "", "shorter than"},
      {"header cut", good.substr(0, 40), "shorter than"},
      {"payload cut", good.substr(0, good.size() / 2), "truncated"},
      {"checksum cut", good.substr(0, good.size() - 2), "truncated"},
      {"extra bytes", good + "xx", "after the end"},
      {"bad magic", flipped(0), "magic"},
      {"future version", with_u32(8, 2), "version 2"},
      {"unknown type", with_u32(16, 9), "type"},
      {"absurd rows", with_i64(24, std::int64_t{1} << 40), "out of range"},
      {"nvals beyond shape", with_i64(40, 40 * 30 + 1), "cannot fit"},
      {"nvals lies", with_i64(40, A.nvals() - 1), "bytes"},
      {"flipped offset", flipped(64 + 8 * 5), "checksum"},
      {"flipped column", flipped(64 + 41 * 8 + 3), "checksum"},
      {"flipped value", flipped(good.size() - 10), "checksum"},
      {"flipped checksum", flipped(good.size() - 1), "checksum"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const std::string p = dir.write("bad.bin", c.bytes);
    try {
      (void)io::read_binary<double>(p);
      FAIL("accepted");
    } catch (const ParseError& e) {
      CHECK(std::string(e.what()).find(p) != std::string::npos);
      CHECK(std::string(e.what()).find(c.reason) != std::string::npos);
    }
  }
  CHECK_THROWS_AS(io::read_binary<double>(dir.file("missing.bin")), IoError);
  // A Matrix Market file is not a binary matrix.
  io::write_matrix_market(dir.file("a.mtx"), A);
  CHECK_THROWS_AS(io::read_binary<double>(dir.file("a.mtx")), ParseError);
}

TEST_CASE("writing to an unwritable path raises IoError naming it", "[io][errors]") {
  test::TempDir dir;
  const std::string p = dir.file("no-such-dir/x.mtx");
  try {
    io::write_matrix_market(p, SparseMatrix<float>(2, 2));
    FAIL("no exception");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find(p) != std::string::npos);
  }
  CHECK_THROWS_AS(io::write_binary(p, SparseMatrix<float>(2, 2)), IoError);
  CHECK_THROWS_AS(io::write_matrix_market(p, DenseMatrix<float>(2, 2)), IoError);
}
