// The row-range binary reader (io::detail::read_binary_rows, the reader of
// dist::DistSparseMatrix::read_binary): every range of every shape gives exactly the rows
// of a full read and the file's per-row counts; damage anywhere fails the checksum pass;
// without that pass, a damaged header, size or part of the file that the range reads
// (its offsets, columns, values) is still refused by the structure checks.
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "geblas/geblas.hpp"
#include "io/temp_dir.hpp"
#include "support/catch.hpp"
#include "support/random.hpp"

using namespace geblas;

namespace {

template <class T>
std::vector<Tuple<T>> rows_of(const SparseMatrix<T>& A, Index begin, Index end) {
  std::vector<Tuple<T>> out;
  for (const auto& t : A.extract_tuples())
    if (t.row >= begin && t.row < end) out.push_back({t.row - begin, t.col, t.value});
  return out;
}

template <class T>
SparseMatrix<T> part(const std::string& path, Index begin, Index end, std::vector<Index>* counts = nullptr,
                     bool verify_checksum = true) {
  return SparseMatrix<T>(io::detail::read_binary_rows(path, type_id<T>, begin, end, counts, verify_checksum));
}

}  // namespace

TEMPLATE_TEST_CASE("row-range binary reader: each range equals the rows of a full read", "[io][binary]", bool,
                   std::int32_t, std::int64_t, float, double) {
  using T = TestType;
  test::TempDir dir;
  // empty rows, a heavy row and a matrix without entries among the shapes
  for (auto shape : {test::Shape::empty_rows, test::Shape::heavy_row, test::Shape::uniform, test::Shape::empty}) {
    const auto r = test::random_sparse<T>(97, 61, 0.1, shape, 5 + static_cast<int>(shape), /*real=*/true);
    const auto A = SparseMatrix<T>::from_tuples(97, 61, r.tuples);
    const std::string path = dir.file("a.bin");
    io::write_binary(path, A);
    const Index n = A.nrows();
    std::vector<Index> counts;
    const auto none = part<T>(path, 0, 0, &counts);
    CHECK(none.nrows() == 0);
    CHECK(none.ncols() == A.ncols());
    REQUIRE(counts.size() == static_cast<std::size_t>(n));
    const auto off = A.row_offsets();
    for (Index i = 0; i < n; ++i) CHECK(counts[static_cast<std::size_t>(i)] == off[i + 1] - off[i]);
    for (auto [b, e] : std::vector<std::pair<Index, Index>>{
             {0, n}, {0, 1}, {n / 3, 2 * n / 3}, {n - 1, n}, {n / 2, n / 2}, {5, -1}, {n, n}}) {
      INFO("rows [" << b << ", " << e << ")");
      const Index end = e < 0 ? n : e;
      const auto p = part<T>(path, b, e);
      CHECK(p.nrows() == end - b);
      CHECK(p.ncols() == A.ncols());
      CHECK(p.extract_tuples() == rows_of(A, b, end));
      // the counts come with any range
      std::vector<Index> again;
      CHECK(part<T>(path, b, e, &again).extract_tuples() == p.extract_tuples());
      CHECK(again == counts);
    }
    const auto header = io::read_binary_header(path);
    CHECK(header.type == type_id<T>);
    CHECK(header.nrows == n);
    CHECK(header.ncols == A.ncols());
    CHECK(header.nvals == A.nvals());
  }
  const std::string empty = dir.file("empty.bin");
  io::write_binary(empty, SparseMatrix<T>(0, 4));
  CHECK(part<T>(empty, 0, -1).ncols() == 4);
}

TEST_CASE("row-range binary reader: values convert as the full reader converts them", "[io][binary]") {
  test::TempDir dir;
  const auto D = SparseMatrix<double>::from_tuples(4, 4, {{0, 0, 1.0}, {1, 1, 2.0}, {2, 2, 2.5}, {3, 3, 3.0}});
  const std::string path = dir.file("d.bin");
  io::write_binary(path, D);
  // rows 0-1 hold whole numbers: read as int32; row 2 holds 2.5, which names its entry
  const auto ints = part<std::int32_t>(path, 0, 2);
  CHECK(ints.extract_tuples() == std::vector<Tuple<std::int32_t>>{{0, 0, 1}, {1, 1, 2}});
  CHECK(part<std::int32_t>(path, 3, 4).extract_tuples() == std::vector<Tuple<std::int32_t>>{{0, 3, 3}});
  try {
    (void)part<std::int32_t>(path, 1, 4);
    FAIL("2.5 read as int32");
  } catch (const ParseError& e) {
    CHECK(std::string(e.what()).find("entry 2") != std::string::npos);
  }
  CHECK(part<float>(path, 2, 3).extract_tuples() == std::vector<Tuple<float>>{{0, 2, 2.5f}});
}

TEST_CASE("row-range binary reader: bad ranges and damaged files are errors", "[io][binary][errors]") {
  test::TempDir dir;
  const auto A = SparseMatrix<float>::from_tuples(
      5, 5, {{0, 1, 1.0f}, {1, 0, 2.0f}, {1, 4, 3.0f}, {3, 3, 4.0f}, {4, 0, 5.0f}, {4, 2, 6.0f}});
  const std::string path = dir.file("a.bin");
  io::write_binary(path, A);
  CHECK_THROWS_AS(part<float>(path, 0, 6), InvalidValue);
  CHECK_THROWS_AS(part<float>(path, -1, 2), InvalidValue);
  CHECK_THROWS_AS(part<float>(path, 3, 2), InvalidValue);
  CHECK_THROWS_AS(part<float>(dir.file("missing.bin"), 0, 1), IoError);
  CHECK_THROWS_AS(io::read_binary_header(dir.file("missing.bin")), IoError);

  const std::string good = test::read_bytes(path);
  const std::size_t offsets_at = 64, cols_at = offsets_at + 6 * 8;
  auto damaged = [&](std::size_t at, const void* bytes, std::size_t n) {
    std::string b = good;
    std::memcpy(&b[at], bytes, n);
    return dir.write("bad.bin", b);
  };
  // Without the checksum pass, so that the structure checks are what is tested.
  auto refused = [&](const std::string& p, Index begin, Index end, const char* reason) {
    try {
      (void)part<float>(p, begin, end, nullptr, /*verify_checksum=*/false);
      FAIL("accepted rows [" << begin << ", " << end << ")");
    } catch (const ParseError& e) {
      CHECK(std::string(e.what()).find(p) != std::string::npos);
      CHECK(std::string(e.what()).find(reason) != std::string::npos);
    }
  };
  auto refused_checksum = [&](const std::string& p) {
    try {
      (void)part<float>(p, 0, 1);
      FAIL("accepted with the checksum pass");
    } catch (const ParseError& e) {
      CHECK(std::string(e.what()).find("checksum") != std::string::npos);
    }
  };
  // a header or size fault is refused whatever the range
  refused(dir.write("cut.bin", good.substr(0, good.size() - 3)), 0, 1, "truncated");
  refused(dir.write("magic.bin", "XXXXXXXX" + good.substr(8)), 0, 1, "magic");
  // an offset out of order inside the range
  const std::int64_t backwards = 0;
  refused(damaged(offsets_at + 3 * 8, &backwards, 8), 1, 4, "out of order");
  // offsets that do not end at the entry count (every range checks both ends)
  const std::int64_t short_end = 5;
  refused(damaged(offsets_at + 5 * 8, &short_end, 8), 0, 1, "not from 0");
  // a column out of range, or out of order, in the range's part
  const std::int32_t far = 9;
  refused(damaged(cols_at + 2 * 4, &far, 4), 1, 2, "invalid CSR structure");
  const std::int32_t back = 0;  // row 4 becomes {0, 0}: a repeated column
  refused(damaged(cols_at + 5 * 4, &back, 4), 4, 5, "invalid CSR structure");
  // outside the range the structure checks do not look (the part read is whole and
  // correct); the checksum pass sees damage anywhere, a changed value included
  const std::string elsewhere = damaged(cols_at + 5 * 4, &back, 4);
  CHECK(part<float>(elsewhere, 0, 4, nullptr, false).extract_tuples() == rows_of(A, 0, 4));
  refused_checksum(elsewhere);
  const float other = 7.0f;
  const std::string value = damaged(cols_at + 6 * 4 + 2 * 4, &other, 4);  // entry 2's value
  CHECK(part<float>(value, 1, 2, nullptr, false).extract_tuples() ==
        std::vector<Tuple<float>>{{0, 0, 2.0f}, {0, 4, 7.0f}});
  refused_checksum(value);
}
