// Edge lists (SNAP whitespace and CSV), format detection, standard input and the
// dimension limit: every entry of a read checked against the tuples written, every
// refusal checked for its file, line and reason.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "geblas/geblas.hpp"
#include "io/temp_dir.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

using Entries = std::map<std::pair<Index, Index>, double>;

Entries entries_of(const SparseMatrix<double>& A) {
  Entries e;
  for (const auto& t : A.extract_tuples()) e[{t.row, t.col}] = t.value;
  return e;
}

// Runs f with standard input read from `path`.
template <class F>
auto with_stdin(const std::string& path, F&& f) {
  const int saved = ::dup(STDIN_FILENO);
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  ::dup2(fd, STDIN_FILENO);
  ::close(fd);
  struct Restore {
    int saved;
    ~Restore() {
      ::dup2(saved, STDIN_FILENO);
      ::close(saved);
    }
  } restore{saved};
  return f();
}

void check_error(const std::function<void()>& f, const std::string& file, long long line, const std::string& part) {
  try {
    f();
    FAIL("no error; expected line " << line << ": " << part);
  } catch (const ParseError& e) {
    INFO(e.what());
    CHECK(e.file() == file);
    CHECK(e.line() == line);
    CHECK(e.reason().find(part) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("SNAP edge lists: comments, weights, 0-based ids", "[io][edges]") {
  test::TempDir dir;
  const auto p = dir.write("g.txt", "# Directed graph\n# FromNodeId\tToNodeId\n0\t1\t2.5\n\n1 2 -1\n3   0\t4e1\r\n% other comment\n2 2 7\n");
  const auto A = io::read_edge_list<double>(p);
  CHECK(A.nrows() == 4);
  CHECK(A.ncols() == 4);
  CHECK(entries_of(A) == Entries{{{0, 1}, 2.5}, {{1, 2}, -1}, {{3, 0}, 40}, {{2, 2}, 7}});
  // Without weights every value is 1; undirected stores both directions, a self-loop once.
  io::ReadOptions o;
  o.undirected = true;
  const auto B = io::read_edge_list<double>(dir.write("u.txt", "0 1\n1 2\n2 2\n"), o);
  CHECK(entries_of(B) == Entries{{{0, 1}, 1}, {{1, 0}, 1}, {{1, 2}, 1}, {{2, 1}, 1}, {{2, 2}, 1}});
}

TEST_CASE("CSV edge lists: header, quotes, 1-based ids", "[io][edges]") {
  test::TempDir dir;
  const auto p = dir.write("g.csv", "source,target,weight\n1, 2 ,0.5\n\"3\",\"1\",1.5\n# comment\n2,3,2\n");
  io::ReadOptions o;
  o.base = 1;
  const auto A = io::read_edge_list<double>(p, o, ',');
  CHECK(A.nrows() == 3);
  CHECK(entries_of(A) == Entries{{{0, 1}, 0.5}, {{2, 0}, 1.5}, {{1, 2}, 2}});
  // Read 0-based, the same file has a vertex 0 with no edges.
  CHECK(io::read_edge_list<double>(p, {}, ',').nrows() == 4);
  // As int32 the weights must be integers.
  check_error([&] { (void)io::read_edge_list<std::int32_t>(p, o, ','); }, p, 2, "0.5");
}

TEST_CASE("duplicate edges: an error naming both lines, or combined as asked", "[io][edges]") {
  test::TempDir dir;
  const auto p = dir.write("d.txt", "0 1 3\n1 0 5\n0 1 2\n0 1 4\n");
  check_error([&] { (void)io::read_edge_list<double>(p); }, p, 3, "already given on line 1");
  const std::vector<std::pair<Duplicates, double>> cases = {{binop::plus<double>{}, 9}, {binop::max<double>{}, 4},
                                                            {binop::min<double>{}, 2}, {binop::first<double>{}, 3},
                                                            {binop::second<double>{}, 4}};
  for (const auto& [dup, want] : cases) {
    io::ReadOptions o;
    o.duplicates = dup;
    CHECK(entries_of(io::read_edge_list<double>(p, o)) == Entries{{{0, 1}, want}, {{1, 0}, 5}});
  }
  // Undirected, (1, 0) on line 2 is the mirror of line 1's edge.
  io::ReadOptions u;
  u.undirected = true;
  check_error([&] { (void)io::read_edge_list<double>(p, u); }, p, 2, "already given on line 1");
}

TEST_CASE("malformed edge lists name the file, line and reason", "[io][edges]") {
  test::TempDir dir;
  struct Case {
    std::string text;
    long long line;
    std::string part;
    int base;
  };
  for (const Case& c : std::vector<Case>{
           {"0 1\n0 1 2 3\n", 2, "4 or more fields", 0},
           {"0 1\n5\n", 2, "1 fields", 0},
           {"0 1\n1 x\n", 2, "'x' is not an integer", 0},
           {"0 1 2\n1 2\n", 2, "every line needs a weight, or none", 0},
           {"# c\n0 1\n", 2, "below the first vertex id 1", 1},
           {"0 -1\n", 1, "below the first vertex id 0", 0},
           {"0 99999999999999999999\n", 1, "too large", 0},
           {"0 3000000000\n", 1, "too large", 0},
           {"0 1 abc\n", 1, "abc", 0},
       }) {
    INFO(c.text);
    const auto p = dir.write("bad.txt", c.text);
    io::ReadOptions o;
    o.base = c.base;
    check_error([&] { (void)io::read_edge_list<double>(p, o); }, p, c.line, c.part);
  }
}

TEST_CASE("formats are told by content, then name; unknown content names every format tried", "[io][edges]") {
  test::TempDir dir;
  CHECK(io::detect_format(dir.write("a.dat", "%%MatrixMarket matrix coordinate real general\n1 1 0\n")) ==
        io::Format::matrix_market);
  CHECK(io::detect_format(dir.write("b.dat", "# SNAP\n0 1\n")) == io::Format::edge_list);
  CHECK(io::detect_format(dir.write("c.dat", "from,to\n0,1\n")) == io::Format::csv);
  CHECK(io::detect_format(dir.write("d.csv", "whatever")) == io::Format::csv);
  CHECK(io::detect_format(dir.write("e.mtx", "garbage")) == io::Format::matrix_market);
  const auto A = SparseMatrix<double>::from_tuples(2, 2, std::vector<Tuple<double>>{{0, 1, 1.0}});
  io::write_binary(dir.file("f.dat"), A);
  CHECK(io::detect_format(dir.file("f.dat")) == io::Format::binary);
  for (const std::string& text : std::vector<std::string>{"hello world foo bar baz\n", "", std::string("\x01\x00\x02", 3)}) {
    const auto p = dir.write("g.dat", text);
    try {
      (void)io::detect_format(p);
      FAIL("detected a format in '" << text << "'");
    } catch (const ParseError& e) {
      const std::string why = e.reason();
      CHECK(e.file() == p);
      for (const char* tried : {"geblas binary", "Matrix Market", "edge lists", "geblas::io::Format"})
        CHECK(why.find(tried) != std::string::npos);
    }
  }
  // read_graph picks the reader: the same graph from each format.
  io::write_matrix_market(dir.file("h.mtx.gz"), A);
  for (const std::string& p : std::vector<std::string>{dir.file("f.dat"), dir.file("h.mtx.gz"), dir.write("i.dat", "0 1 1\n1 1 0\n")}) {
    INFO(p);
    io::ReadOptions o;
    o.drop_zeros = true;
    const auto B = io::read_graph<double>(p, o);
    CHECK(entries_of(B) == Entries{{{0, 1}, 1.0}});
  }
}

TEST_CASE("standard input loses no byte to format detection", "[io][edges][stdin]") {
  test::TempDir dir;
  std::vector<Tuple<double>> t;
  for (Index i = 0; i < 3000; ++i) t.push_back({i, (i * 13 + 1) % 3000, 0.25 * static_cast<double>(i)});
  const auto A = SparseMatrix<double>::from_tuples(3000, 3000, t);
  io::write_matrix_market(dir.file("a.mtx.gz"), A);
  io::write_matrix_market(dir.file("a.mtx"), A);
  io::write_binary(dir.file("a.geb"), A);
  for (const std::string name : {"a.mtx.gz", "a.mtx", "a.geb"}) {
    INFO(name);
    const auto B = with_stdin(dir.file(name), [] { return io::read_graph<double>("-"); });
    CHECK(entries_of(B) == entries_of(A));
  }
  const auto E = with_stdin(dir.write("e.txt", "0 1\n1 2\n"), [] { return io::read_graph<double>("-"); });
  CHECK(entries_of(E) == Entries{{{0, 1}, 1}, {{1, 2}, 1}});
  // Errors name "<stdin>".
  const auto bad = dir.write("bad.txt", "0 1\n1 x\n");
  try {
    with_stdin(bad, [] { return io::read_graph<double>("-"); });
    FAIL("no error");
  } catch (const ParseError& e) {
    CHECK(e.file() == "<stdin>");
    CHECK(e.line() == 2);
  }
}

TEST_CASE("a tiny file declaring huge dimensions is refused at once", "[io][limits]") {
  test::TempDir dir;
  // 74 bytes declaring 2e8 rows: would need 1.6 GB of row offsets.
  const auto p = dir.write("huge.mtx", "%%MatrixMarket matrix coordinate real general\n200000000 200000000 1\n1 1 1\n");
  const auto start = std::chrono::steady_clock::now();
  check_error([&] { (void)io::read_matrix_market<double>(p); }, p, 0, "dimension limit");
  check_error([&] { (void)io::read_edge_list<double>(dir.write("huge.txt", "0 199999999\n")); }, dir.file("huge.txt"), 0,
              "max_dimension");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  // The limit is an option: tighter here, and a raised one reads the file.
  io::ReadOptions o;
  o.max_dimension = 3;
  check_error([&] { (void)io::read_edge_list<double>(dir.write("five.txt", "0 4\n"), o); }, dir.file("five.txt"), 0,
              "exceeds the dimension limit 3");
  o.max_dimension = 5;
  CHECK(io::read_edge_list<double>(dir.file("five.txt"), o).nrows() == 5);
  // Up to 2^24 vertices pass whatever the entry count.
  CHECK(io::read_edge_list<double>(dir.write("big.txt", "0 16777215\n")).nrows() == 16777216);
}

TEST_CASE("a first line is a header only when it cannot be data", "[io][edges][header]") {
  test::TempDir dir;
  // Headers: every field has a letter and none is a number.
  for (const std::string& text : {std::string("src dst\n0 1\n1 2\n"), std::string("source target weight\n0 1 1\n1 2 1\n"),
                                  std::string("# comment\nnode1 node2\n0 1\n1 2\n")}) {
    INFO(text);
    CHECK(entries_of(io::read_edge_list<double>(dir.write("h.txt", text))) == Entries{{{0, 1}, 1}, {{1, 2}, 1}});
    CHECK(entries_of(io::read_graph<double>(dir.write("h.dat", text))) == Entries{{{0, 1}, 1}, {{1, 2}, 1}});
  }
  CHECK(entries_of(io::read_edge_list<double>(dir.write("h.csv", "from_id,to_id\n0,1\n1,2\n"), {}, ',')) ==
        Entries{{{0, 1}, 1}, {{1, 2}, 1}});
  // Data-looking first lines are data: an error naming line 1, never a skipped edge.
  struct Case {
    std::string text, part;
    char delimiter;
  };
  for (const Case& c : std::vector<Case>{{"1.5 2\n1 2\n2 0\n", "'1.5' is not an integer", 0},
                                         {"x1 2\n1 2\n2 0\n", "'x1' is not an integer", 0},
                                         {"\xEF\xBC\x91 2\n1 2\n2 0\n", "is not an integer", 0},
                                         {"1e3,2\n1,2\n", "'1e3' is not an integer", ','},
                                         {"inf 2\n1 2\n", "'inf' is not an integer", 0},
                                         {"a 1\n", "'a' is not an integer", 0}}) {
    INFO(c.text);
    const auto p = dir.write(c.delimiter ? "d.csv" : "d.txt", c.text);
    check_error([&] { (void)io::read_edge_list<double>(p, {}, c.delimiter); }, p, 1, c.part);
    check_error([&] { (void)io::read_graph<double>(p); }, p, 1, c.part);
  }
}
