// Malformed Matrix Market input: for each bad file, the exception type and the line it
// must name. Every error must be a geblas exception carrying the path and line, never a
// crash, a hang, an absurd allocation or a silently wrong matrix.
#include <zlib.h>

#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "io/temp_dir.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

enum class Expect { parse, io, not_implemented };

struct BadCase {
  const char* name;
  std::string text;
  Expect expect;
  long long line;      // for ParseError: the line the error must name
  const char* reason;  // a word the message must contain
};

const std::string coo = "%%MatrixMarket matrix coordinate real general\n";

std::vector<BadCase> bad_cases() {
  return {
      {"empty file", "", Expect::parse, 1, "banner"},
      {"no banner", "3 3 1\n1 1 1\n", Expect::parse, 1, "banner"},
      {"banner typo", "%%MatrixMarkt matrix coordinate real general\n1 1 0\n", Expect::parse, 1, "banner"},
      {"incomplete banner", "%%MatrixMarket matrix coordinate real\n1 1 0\n", Expect::parse, 1, "banner"},
      {"banner trailing text", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", Expect::parse, 1, "extra"},
      {"unknown object", "%%MatrixMarket vector coordinate real general\n1 1 0\n", Expect::parse, 1, "object"},
      {"unknown format", "%%MatrixMarket matrix sparse real general\n1 1 0\n", Expect::parse, 1, "format"},
      {"unknown field", "%%MatrixMarket matrix coordinate float general\n1 1 0\n", Expect::parse, 1, "field"},
      {"unknown symmetry", "%%MatrixMarket matrix coordinate real upper\n1 1 0\n", Expect::parse, 1, "symmetry"},
      {"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", Expect::not_implemented, 1, "complex"},
      {"hermitian real", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", Expect::parse, 1, "hermitian"},
      {"array pattern", "%%MatrixMarket matrix array pattern general\n1 1\n", Expect::parse, 1, "pattern"},
      {"skew pattern", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 0\n", Expect::parse, 1, "skew"},
      {"no size line", coo + "% only comments\n", Expect::parse, 3, "size line"},
      {"size line short", coo + "3 3\n", Expect::parse, 2, "entries"},
      {"size line text", coo + "3 x 1\n1 1 1\n", Expect::parse, 2, "not an integer"},
      {"size line trailing", coo + "3 3 1 4\n1 1 1\n", Expect::parse, 2, "unexpected"},
      {"negative rows", coo + "-3 3 1\n1 1 1\n", Expect::parse, 2, "negative"},
      {"negative entries", coo + "3 3 -1\n", Expect::parse, 2, "negative"},
      {"huge rows", coo + "3000000000 3 1\n1 1 1\n", Expect::parse, 2, "limit"},
      {"rows beyond int64", coo + "99999999999999999999 3 1\n", Expect::parse, 2, "too large"},
      {"entries beyond rows*cols", coo + "2 3 7\n", Expect::parse, 2, "cannot fit"},
      {"entries beyond a triangle", "%%MatrixMarket matrix coordinate real symmetric\n3 3 7\n", Expect::parse, 2, "cannot fit"},
      {"lying header, tiny file", coo + "2000000000 2000000000 4000000000000000000\n1 1 1\n", Expect::parse, 4, "end of file"},
      {"non-square symmetric", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", Expect::parse, 2, "square"},
      {"row index 0", coo + "3 3 2\n1 1 1\n0 2 1\n", Expect::parse, 4, "row index 0"},
      {"row index too big", coo + "3 3 2\n1 1 1\n4 2 1\n", Expect::parse, 4, "row index 4"},
      {"column index too big", coo + "3 3 1\n% c\n1 9 1\n", Expect::parse, 4, "column index 9"},
      {"negative index", coo + "3 3 1\n-1 1 1\n", Expect::parse, 3, "row index"},
      {"index not a number", coo + "3 3 1\n1 a 1\n", Expect::parse, 3, "column index"},
      {"index with a fraction", coo + "3 3 1\n1.5 1 1\n", Expect::parse, 3, "not an integer"},
      {"missing column", coo + "3 3 1\n1\n", Expect::parse, 3, "missing column"},
      {"missing value", coo + "3 3 1\n1 1\n", Expect::parse, 3, "missing value"},
      {"value not numeric", coo + "3 3 2\n1 1 1\n2 2 abc\n", Expect::parse, 4, "not a number"},
      {"value half numeric", coo + "3 3 1\n1 1 1.5x\n", Expect::parse, 3, "not a number"},
      {"Fortran exponent", coo + "3 3 1\n1 1 1.5D+03\n", Expect::parse, 3, "not a number"},
      {"trailing garbage", coo + "3 3 1\n1 1 1 7\n", Expect::parse, 3, "unexpected text"},
      {"pattern with a value", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", Expect::parse, 3, "unexpected text"},
      {"integer field, real text", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 2.5\n", Expect::parse, 3, "integer"},
      {"integer field, nan", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 nan\n", Expect::parse, 3, "integer"},
      {"integer beyond int64", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 99999999999999999999\n", Expect::parse, 3, "int64"},
      {"too few entries", coo + "3 3 3\n1 1 1\n2 2 2\n", Expect::parse, 5, "end of file"},
      {"too many entries", coo + "3 3 1\n1 1 1\n2 2 2\n", Expect::parse, 4, "too many"},
      {"skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", Expect::parse, 3, "diagonal"},
      {"duplicate", coo + "3 3 2\n2 1 1\n2 1 1\n", Expect::parse, 4, "duplicate"},
      {"array too few", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", Expect::parse, 6, "end of file"},
      {"array too many", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", Expect::parse, 6, "too many"},
      {"array two per line", "%%MatrixMarket matrix array real general\n2 1\n1 2\n", Expect::parse, 3, "one value per line"},
      {"array non-square symmetric", "%%MatrixMarket matrix array real symmetric\n2 3\n", Expect::parse, 2, "square"},
      {"array huge", "%%MatrixMarket matrix array real general\n2000000000 2000000000\n1\n", Expect::parse, 4, "end of file"},
      {"binary junk", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10), Expect::parse, 1, "banner"},
  };
}

// Runs `read` on the file and checks the exception against the case.
template <class Read>
void expect_failure(const BadCase& c, const std::string& path, Read read) {
  INFO("case '" << c.name << "' file " << path);
  try {
    read();
    FAIL("no exception");
  } catch (const ParseError& e) {
    CHECK(c.expect == Expect::parse);
    CHECK(e.line() == c.line);
    CHECK(e.file() == path);
    const std::string what = e.what();
    CHECK(what.find(path + ":" + std::to_string(c.line) + ":") != std::string::npos);
    CHECK(what.find(c.reason) != std::string::npos);
    INFO(what);
  } catch (const NotImplemented& e) {
    CHECK(c.expect == Expect::not_implemented);
    CHECK(std::string(e.what()).find(c.reason) != std::string::npos);
    CHECK(std::string(e.what()).find(path + ":" + std::to_string(c.line)) != std::string::npos);
  } catch (const IoError& e) {
    CHECK(c.expect == Expect::io);
  }
}

}  // namespace

TEST_CASE("malformed Matrix Market files raise the right error at the right line", "[io][errors]") {
  test::TempDir dir;
  int k = 0;
  for (const auto& c : bad_cases()) {
    const std::string plain = dir.write("bad" + std::to_string(k++) + ".mtx", c.text);
    expect_failure(c, plain, [&] { (void)io::read_matrix_market<double>(plain); });
    // The same through gzip: the line numbers are the same.
    const std::string gz = dir.file("bad" + std::to_string(k++) + ".mtx.gz");
    gzFile f = gzopen(gz.c_str(), "wb");
    gzwrite(f, c.text.data(), static_cast<unsigned>(c.text.size()));
    gzclose(f);
    expect_failure(c, gz, [&] { (void)io::read_matrix_market<float>(gz); });
    // The dense reader reports the same errors (duplicates aside, it reads the same way).
    expect_failure(c, plain, [&] { (void)io::read_matrix_market_dense<double>(plain); });
  }
}

TEST_CASE("unreadable files raise IoError naming the path", "[io][errors]") {
  test::TempDir dir;
  const std::string missing = dir.file("does-not-exist.mtx");
  try {
    (void)io::read_matrix_market<float>(missing);
    FAIL("no exception");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find(missing) != std::string::npos);
  }
  try {
    (void)io::read_matrix_market_header(dir.file(""));
    FAIL("no exception");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("directory") != std::string::npos);
  }
}

TEST_CASE("truncated or corrupt gzip streams raise ParseError", "[io][errors]") {
  test::TempDir dir;
  std::string text = "%%MatrixMarket matrix coordinate integer general\n300 300 20000\n";
  for (int i = 0; i < 20000; ++i) text += std::to_string(i % 300 + 1) + " " + std::to_string(i / 300 + 1) + " " + std::to_string(i) + "\n";
  const std::string gz = dir.file("full.mtx.gz");
  gzFile f = gzopen(gz.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  REQUIRE(io::read_matrix_market<std::int32_t>(gz).nvals() == 20000);
  std::string bytes = test::read_bytes(gz);
  for (std::size_t cut : {bytes.size() - 4, bytes.size() - 9, bytes.size() / 2, std::size_t{12}}) {
    INFO("cut at " << cut << " of " << bytes.size());
    const std::string p = dir.write("cut.mtx.gz", bytes.substr(0, cut));
    try {
      (void)io::read_matrix_market<std::int32_t>(p);
      FAIL("a truncated stream was accepted");
    } catch (const ParseError& e) {
      CHECK(std::string(e.what()).find("truncated gzip") != std::string::npos);
      CHECK(e.line() >= 1);
    }
  }
  std::string corrupt = bytes;
  for (std::size_t i = 40; i < 80; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  const std::string p = dir.write("corrupt.mtx.gz", corrupt);
  try {
    (void)io::read_matrix_market<std::int32_t>(p);
    FAIL("a corrupt stream was accepted");
  } catch (const ParseError& e) {
    CHECK(std::string(e.what()).find("gzip") != std::string::npos);
  }
}

TEST_CASE("errors deep in large files name the exact line (blocks split among threads)", "[io][errors]") {
  test::TempDir dir;
  // ~6 MB of text: several read blocks, each split into many parts; comments and blank
  // lines sprinkled in so that line numbers and entry numbers differ.
  const long long n_entries = 500000;
  std::string body;
  std::vector<long long> entry_line;  // 1-based file line of each entry
  long long line = 2;
  for (long long k = 0; k < n_entries; ++k) {
    if (k % 1000 == 17) {
      body += "% comment\n\n";
      line += 2;
    }
    body += std::to_string(k % 1000 + 1) + " " + std::to_string(k / 1000 + 1) + " " + std::to_string(k) + "\n";
    entry_line.push_back(++line);
  }
  const std::string banner = "%%MatrixMarket matrix coordinate integer general\n";
  const std::string size = "1000 600 " + std::to_string(n_entries) + "\n";
  const std::string good = dir.write("good.mtx", banner + size + body);
  {
    const auto A = io::read_matrix_market<std::int64_t>(good);
    REQUIRE(A.nvals() == n_entries);
    const auto t = A.extract_tuples();
    bool all = true;
    for (const auto& x : t) all = all && x.value == x.col * 1000 + x.row;
    CHECK(all);
  }
  for (long long bad_entry : {0LL, 262143LL, 262144LL, 400000LL, n_entries - 1}) {
    INFO("bad entry " << bad_entry << " at line " << entry_line[bad_entry]);
    // Replace that entry's value with text.
    std::string text = body;
    std::size_t pos = 0;
    for (long long l = 3; l < entry_line[bad_entry]; ++l) pos = text.find('\n', pos) + 1;
    const std::size_t eol = text.find('\n', pos);
    text.replace(pos, eol - pos, "1 1 oops");
    const std::string p = dir.write("bad.mtx", banner + size + text);
    try {
      (void)io::read_matrix_market<std::int64_t>(p);
      FAIL("accepted");
    } catch (const ParseError& e) {
      CHECK(e.line() == entry_line[bad_entry]);
      CHECK(std::string(e.what()).find("oops") != std::string::npos);
    }
    // Two errors: the earlier one in file order is reported.
    std::string two = text;
    two.replace(two.rfind('\n', two.size() - 2) + 1, std::string::npos, "9999 1 1\n");
    const std::string p2 = dir.write("bad2.mtx.gz", "");
    gzFile f = gzopen(p2.c_str(), "wb");
    const std::string all = banner + size + two;
    gzwrite(f, all.data(), static_cast<unsigned>(all.size()));
    gzclose(f);
    try {
      (void)io::read_matrix_market<std::int64_t>(p2);
      FAIL("accepted");
    } catch (const ParseError& e) {
      CHECK(e.line() == entry_line[bad_entry]);
    }
  }
  // The size line announces one entry too few: the error is at the last entry.
  const std::string fewer = dir.write("fewer.mtx", banner + "1000 600 " + std::to_string(n_entries - 1) + "\n" + body);
  try {
    (void)io::read_matrix_market<std::int64_t>(fewer);
    FAIL("accepted");
  } catch (const ParseError& e) {
    CHECK(e.line() == entry_line.back());
    CHECK(std::string(e.what()).find("too many") != std::string::npos);
  }
  // And one too many: the error is after the last line.
  const std::string more = dir.write("more.mtx", banner + "1000 600 " + std::to_string(n_entries + 1) + "\n" + body);
  try {
    (void)io::read_matrix_market<std::int64_t>(more);
    FAIL("accepted");
  } catch (const ParseError& e) {
    CHECK(e.line() == entry_line.back() + 1);
  }
}
