// Reading Matrix Market files: every shared real graph against an independent
// reference parser and MANIFEST.md, then small hand-written files for each case the
// reader handles (mirroring, skew, array, duplicates, zeros, type conversion, gzip).
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "io/reference_mm.hpp"
#include "io/temp_dir.hpp"
#include "support/catch.hpp"
#include "support/data.hpp"

using namespace geblas;

namespace {

struct ManifestRow {
  std::int64_t rows = 0, cols = 0, nnz = 0, stored = 0;
};

// The "| name | `file` | kind | stored as | as given? | rows | cols | nnz | stored |" rows.
std::map<std::string, ManifestRow> read_manifest() {
  std::map<std::string, ManifestRow> out;
  std::ifstream in(test::data_dir() / "MANIFEST.md");
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '|')) cells.push_back(cell);
    if (cells.size() < 10) continue;
    const auto a = cells[2].find('`'), b = cells[2].rfind('`');
    if (a == std::string::npos || b <= a) continue;
    const std::string file = cells[2].substr(a + 1, b - a - 1);
    if (!file.ends_with(".mtx.gz")) continue;
    try {
      out[file] = {std::stoll(cells[6]), std::stoll(cells[7]), std::stoll(cells[8]), std::stoll(cells[9])};
    } catch (...) {
    }
  }
  return out;
}

std::vector<std::string> all_mtx_files() {
  std::vector<std::string> out;
  if (!std::filesystem::is_directory(test::data_dir())) return out;
  for (const auto& e : std::filesystem::directory_iterator(test::data_dir()))
    if (e.path().filename().string().ends_with(".mtx.gz")) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

using RefCsr = Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>;

// Every entry of A (CSR arrays and values) against the reference matrix.
template <class T>
std::string compare_csr(const SparseMatrix<T>& A, const RefCsr& E) {
  std::ostringstream msg;
  if (A.nrows() != E.rows() || A.ncols() != E.cols() || A.nvals() != E.nonZeros()) {
    msg << "shape/nnz " << A.nrows() << "x" << A.ncols() << "/" << A.nvals() << " != " << E.rows() << "x" << E.cols()
        << "/" << E.nonZeros();
    return msg.str();
  }
  const auto ro = A.row_offsets();
  const auto ci = A.col_indices();
  const auto v = A.values();
  Index bad = 0;
  for (Index i = 0; i < E.rows(); ++i) {
    if (ro[i + 1] - ro[i] != E.outerIndexPtr()[i + 1] - E.outerIndexPtr()[i]) {
      if (bad++ < 5) msg << " row " << i << " has " << ro[i + 1] - ro[i] << " entries;";
      continue;
    }
    Index k = ro[i];
    for (RefCsr::InnerIterator it(E, i); it; ++it, ++k) {
      const T want = static_cast<T>(it.value());
      const bool same_value = (want == v[k]) || (std::is_floating_point_v<T> && want != want && v[k] != v[k]);
      if (ci[k] != it.col() || !same_value) {
        if (bad++ < 5) msg << " (" << i << "," << it.col() << "): got col " << ci[k] << " value " << +v[k] << ";";
      }
    }
  }
  if (bad) msg << " " << bad << " mismatches";
  return msg.str();
}

RefCsr to_eigen(const test::RefMatrix& m) {
  RefCsr E(m.nrows, m.ncols);
  E.setFromTriplets(m.triplets.begin(), m.triplets.end());
  return E;
}

}  // namespace

TEST_CASE("every shared graph reads as the reference parser and MANIFEST.md say", "[io][data]") {
  const auto files = all_mtx_files();
  if (files.empty()) {
    WARN("SKIPPED: no .mtx.gz files in " << test::data_dir() << " (set GEBLAS_DATA_DIR)");
    return;
  }
  const auto manifest = read_manifest();
  if (manifest.empty()) WARN("MANIFEST.md not found in " << test::data_dir() << ": its counts are not checked");
  for (const auto& name : files) {
    const std::string path = (test::data_dir() / name).string();
    INFO("graph " << name);
    const auto ref = test::reference_read(path);
    const RefCsr E = to_eigen(ref);
    // The shared files have no duplicate entries: otherwise setFromTriplets would have summed some.
    REQUIRE(E.nonZeros() == static_cast<Eigen::Index>(ref.triplets.size()));

    const auto h = io::read_matrix_market_header(path);
    CHECK(h.format == "coordinate");
    CHECK(h.field == ref.field);
    CHECK(h.symmetry == ref.symmetry);
    CHECK(h.nrows == ref.nrows);
    CHECK(h.ncols == ref.ncols);
    CHECK(h.stored_entries == ref.stored);

    const auto A = io::read_matrix_market<double>(path);
    CHECK(compare_csr(A, E) == "");
    // Expanded count: symmetric files mirror every off-diagonal entry, the diagonal once.
    std::int64_t diagonal = 0;
    for (const auto& t : ref.triplets) diagonal += t.row() == t.col();
    if (ref.symmetry == "symmetric") CHECK(A.nvals() == 2 * ref.stored - diagonal);
    else CHECK(A.nvals() == ref.stored);
    if (auto it = manifest.find(name); it != manifest.end()) {
      CHECK(A.nrows() == it->second.rows);
      CHECK(A.ncols() == it->second.cols);
      CHECK(A.nvals() == it->second.nnz);
      CHECK(h.stored_entries == it->second.stored);
    } else if (!manifest.empty()) {
      WARN(name << " is not listed in MANIFEST.md");
    }
    // Another value type reads the same pattern with converted values.
    if (ref.field == "pattern") {
      const auto B = io::read_matrix_market<bool>(path);
      CHECK(compare_csr(B, E) == "");
    } else {
      const auto F = io::read_matrix_market<float>(path);
      CHECK(compare_csr(F, E) == "");
    }
  }
}

namespace {

// gzip-compresses `text` into a file with zlib's gz* API (independent of the writer).
std::string write_gz(const test::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string p = dir.file(name);
  gzFile f = gzopen(p.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  return p;
}

template <class T>
std::vector<Tuple<T>> tuples_of(const SparseMatrix<T>& A) {
  return A.extract_tuples();
}

}  // namespace

TEST_CASE("symmetric files are mirrored with the diagonal once; skew-symmetric mirrored negated", "[io]") {
  test::TempDir dir;
  const auto sym = dir.write("s.mtx",
                             "%%MatrixMarket matrix coordinate real symmetric\n"
                             "% a comment\n"
                             "3 3 4\n"
                             "1 1 1.5\n"
                             "2 1 -2\n"
                             "3 2 4e1\n"
                             "3 3 7\n");
  const auto A = io::read_matrix_market<double>(sym);
  const std::vector<Tuple<double>> want = {{0, 0, 1.5}, {0, 1, -2}, {1, 0, -2}, {1, 2, 40}, {2, 1, 40}, {2, 2, 7}};
  CHECK(tuples_of(A) == want);

  const auto skew = dir.write("k.mtx",
                              "%%MatrixMarket matrix coordinate integer skew-symmetric\n"
                              "3 3 2\n"
                              "2 1 5\n"
                              "3 1 -6\n");
  const auto K = io::read_matrix_market<std::int32_t>(skew);
  const std::vector<Tuple<std::int32_t>> wantk = {{0, 1, -5}, {0, 2, 6}, {1, 0, 5}, {2, 0, -6}};
  CHECK(tuples_of(K) == wantk);

  // An entry in the upper triangle is accepted and mirrored like any other.
  const auto upper = dir.write("u.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n1 3\n2 2\n");
  const std::vector<Tuple<float>> wantu = {{0, 2, 1}, {1, 1, 1}, {2, 0, 1}};
  CHECK(tuples_of(io::read_matrix_market<float>(upper)) == wantu);
}

TEST_CASE("entries in any order come out as sorted CSR; comments, blank lines, CRLF and '+' are accepted",
          "[io]") {
  test::TempDir dir;
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\r\n"
      "%\r\n"
      "\r\n"
      "4 5 6\r\n"
      "4 5 +1.25\r\n"
      "1 3 2\r\n"
      "\r\n"
      "% a comment between entries\r\n"
      "1 1 -3\r\n"
      "  2\t4   5.5  \r\n"
      "4 1 1e-2\r\n"
      "1 2 0\r\n";
  const std::vector<Tuple<double>> want = {{0, 0, -3}, {0, 1, 0}, {0, 2, 2}, {1, 3, 5.5}, {3, 0, 1e-2}, {3, 4, 1.25}};
  CHECK(tuples_of(io::read_matrix_market<double>(dir.write("a.mtx", text))) == want);
  CHECK(tuples_of(io::read_matrix_market<double>(write_gz(dir, "a.mtx.gz", text))) == want);
  // The gzip check is by content, not name: a gzip file called .mtx and a plain one called .gz.
  std::filesystem::copy_file(dir.file("a.mtx.gz"), dir.file("gz-named-plain.mtx"));
  CHECK(tuples_of(io::read_matrix_market<double>(dir.file("gz-named-plain.mtx"))) == want);
  CHECK(tuples_of(io::read_matrix_market<double>(dir.write("plain.gz", text))) == want);
  // No trailing newline at the end of the file.
  const auto no_nl = dir.write("n.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 2 9");
  CHECK(tuples_of(io::read_matrix_market<std::int64_t>(no_nl)) == std::vector<Tuple<std::int64_t>>{{1, 1, 9}});
  // drop_zeros removes the stored zero.
  auto dropped = want;
  dropped.erase(dropped.begin() + 1);
  CHECK(tuples_of(io::read_matrix_market<double>(dir.file("a.mtx"), {.drop_zeros = true})) == dropped);
}

TEST_CASE("duplicates: an error naming both lines, or combined in file order", "[io]") {
  test::TempDir dir;
  const auto p = dir.write("d.mtx",
                           "%%MatrixMarket matrix coordinate real general\n"
                           "2 2 4\n"
                           "1 1 1\n"
                           "2 2 10\n"
                           "1 2 5\n"
                           "2 2 3\n");
  try {
    io::read_matrix_market<double>(p);
    FAIL("a duplicate entry was accepted");
  } catch (const ParseError& e) {
    CHECK(e.line() == 6);
    CHECK(std::string(e.what()).find("line 4") != std::string::npos);
    CHECK(std::string(e.what()).find(p + ":6") != std::string::npos);
  }
  using V = std::vector<Tuple<double>>;
  CHECK(tuples_of(io::read_matrix_market<double>(p, {.duplicates = binop::plus<double>{}})) ==
        V{{0, 0, 1}, {0, 1, 5}, {1, 1, 13}});
  CHECK(tuples_of(io::read_matrix_market<double>(p, {.duplicates = binop::first<double>{}})) ==
        V{{0, 0, 1}, {0, 1, 5}, {1, 1, 10}});
  CHECK(tuples_of(io::read_matrix_market<double>(p, {.duplicates = binop::second<double>{}})) ==
        V{{0, 0, 1}, {0, 1, 5}, {1, 1, 3}});
  CHECK(tuples_of(io::read_matrix_market<double>(p, {.duplicates = binop::minus<double>{}})) ==
        V{{0, 0, 1}, {0, 1, 5}, {1, 1, 7}});
  // A symmetric file that gives both (2, 1) and (1, 2) holds a duplicate after mirroring.
  const auto s = dir.write("s.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 4\n1 2 6\n");
  try {
    io::read_matrix_market<std::int32_t>(s);
    FAIL("a mirrored duplicate was accepted");
  } catch (const ParseError& e) {
    CHECK(e.line() == 4);
    CHECK(std::string(e.what()).find("line 3") != std::string::npos);
  }
  CHECK(tuples_of(io::read_matrix_market<std::int32_t>(s, {.duplicates = binop::max<std::int32_t>{}})) ==
        std::vector<Tuple<std::int32_t>>{{0, 1, 6}, {1, 0, 6}});
  // Combined to zero, then dropped.
  const auto z = dir.write("z.mtx", "%%MatrixMarket matrix coordinate integer general\n1 2 3\n1 1 2\n1 1 -2\n1 2 1\n");
  CHECK(tuples_of(io::read_matrix_market<std::int64_t>(z, {.duplicates = binop::plus<std::int64_t>{}, .drop_zeros = true})) ==
        std::vector<Tuple<std::int64_t>>{{0, 1, 1}});
}

TEST_CASE("array files read as dense and as sparse, mirrored where symmetric", "[io]") {
  test::TempDir dir;
  // Column-major: A = [1 3 5; 2 4 6].
  const auto g = dir.write("g.mtx", "%%MatrixMarket matrix array integer general\n% c\n2 3\n1\n2\n3\n4\n5\n6\n");
  const auto D = io::read_matrix_market_dense<std::int32_t>(g);
  CHECK(D.nrows() == 2);
  CHECK(D.ncols() == 3);
  CHECK(D.to_row_major() == std::vector<std::int32_t>{1, 3, 5, 2, 4, 6});
  const auto S = io::read_matrix_market<double>(g);
  CHECK(S.nvals() == 6);
  CHECK(S.extract_tuples()[1] == Tuple<double>{0, 1, 3});
  // Symmetric: the lower triangle column by column.
  const auto s = dir.write("s.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
  CHECK(io::read_matrix_market_dense<double>(s).to_row_major() == std::vector<double>{1, 2, 3, 2, 4, 5, 3, 5, 6});
  const auto k = dir.write("k.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n0\n");
  CHECK(io::read_matrix_market_dense<float>(k).to_row_major() == std::vector<float>{0, -1, -2, 1, 0, -0.f, 2, 0, 0});
  // drop_zeros on an array file keeps only the non-zero entries.
  CHECK(io::read_matrix_market<float>(k, {.drop_zeros = true}).nvals() == 4);
  // A coordinate file read as dense: absent entries are zero.
  const auto c = dir.write("c.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n");
  CHECK(io::read_matrix_market_dense<float>(c).to_row_major() == std::vector<float>{0, 1, 1, 0});
}

TEST_CASE("values convert to the requested type when it can hold them", "[io]") {
  test::TempDir dir;
  auto one = [&](const std::string& field, const std::string& value) {
    return dir.write("v.mtx", "%%MatrixMarket matrix coordinate " + field + " general\n1 1 1\n1 1 " + value + "\n");
  };
  auto value_of = [](const auto& A) { return A.extract_tuples().at(0).value; };
  CHECK(value_of(io::read_matrix_market<std::int32_t>(one("real", "2.0"))) == 2);
  CHECK(value_of(io::read_matrix_market<std::int32_t>(one("real", "-2147483648"))) == INT32_MIN);
  CHECK(value_of(io::read_matrix_market<std::int64_t>(one("integer", "9223372036854775807"))) == INT64_MAX);
  CHECK(value_of(io::read_matrix_market<std::int64_t>(one("real", "9007199254740993"))) == 9007199254740993LL);
  CHECK(value_of(io::read_matrix_market<std::int64_t>(one("real", "1e18"))) == 1000000000000000000LL);
  CHECK(value_of(io::read_matrix_market<bool>(one("integer", "1"))) == true);
  CHECK(value_of(io::read_matrix_market<bool>(one("real", "0.0"))) == false);
  CHECK(value_of(io::read_matrix_market<float>(one("real", "0.1"))) == 0.1f);
  CHECK(value_of(io::read_matrix_market<float>(one("integer", "16777217"))) == 16777216.f);
  CHECK(value_of(io::read_matrix_market<double>(one("real", "0.1"))) == 0.1);
  CHECK(value_of(io::read_matrix_market<double>(one("real", "1e-400"))) == 0.0);  // below the smallest subnormal
  CHECK(value_of(io::read_matrix_market<float>(one("real", "1e-50"))) == 0.0f);
  CHECK(std::isnan(value_of(io::read_matrix_market<double>(one("real", "nan")))));
  CHECK(value_of(io::read_matrix_market<float>(one("real", "-Inf"))) == -INFINITY);
  CHECK(value_of(io::read_matrix_market<double>(one("real", "infinity"))) == INFINITY);
  CHECK(value_of(io::read_matrix_market<double>(one("real", "1.7976931348623157e308"))) == 1.7976931348623157e308);
  // And refuse what they cannot.
  struct Bad {
    const char* field;
    const char* value;
    TypeId type;
  };
  for (const Bad& b : {Bad{"real", "2.5", TypeId::int32}, Bad{"real", "1e300", TypeId::float32},
                       Bad{"integer", "2147483648", TypeId::int32}, Bad{"integer", "-2147483649", TypeId::int32},
                       Bad{"integer", "9223372036854775808", TypeId::int64}, Bad{"real", "9.3e18", TypeId::int64},
                       Bad{"integer", "2", TypeId::boolean}, Bad{"real", "0.5", TypeId::boolean},
                       Bad{"real", "nan", TypeId::int64}, Bad{"real", "inf", TypeId::int32},
                       Bad{"integer", "nan", TypeId::float64}, Bad{"integer", "1.0", TypeId::float64},
                       Bad{"real", "1e309", TypeId::float64}, Bad{"real", "-1e39", TypeId::float32}}) {
    INFO(b.field << " " << b.value << " as " << to_string(b.type));
    const auto p = one(b.field, b.value);
    try {
      (void)io::detail::read_matrix_market(p, b.type, {});
      FAIL("accepted");
    } catch (const ParseError& e) {
      CHECK(e.line() == 3);
      CHECK(std::string(e.what()).find(b.value) != std::string::npos);
    }
  }
}

TEST_CASE("read_matrix_market_header reads only the header", "[io]") {
  test::TempDir dir;
  // The entries are garbage: the header reader never looks at them.
  const auto p = dir.write("h.mtx", "%%MatrixMarket Matrix Coordinate Real Symmetric\n%c\n  10 10 7 \nnot an entry\n");
  const auto h = io::read_matrix_market_header(p);
  CHECK(h.format == "coordinate");
  CHECK(h.field == "real");
  CHECK(h.symmetry == "symmetric");
  CHECK(h.nrows == 10);
  CHECK(h.ncols == 10);
  CHECK(h.stored_entries == 7);
  const auto a = dir.write("a.mtx", "%%MatrixMarket matrix array real skew-symmetric\n4 4\n");
  CHECK(io::read_matrix_market_header(a).stored_entries == 6);
}
