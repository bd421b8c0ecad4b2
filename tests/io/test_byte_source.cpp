// Inputs that are streams (pipes, FIFOs, sockets, standard input): read_graph opens its
// input once and detects the format on a peeked prefix, so a stream gives exactly the
// entries the same bytes give from a file, a FIFO never waits twice, and the stream
// limit bounds what is read. Also the text readers' messages for bytes that are not
// text (NUL, binary, CR-only line ends) and the UTF-8 byte-order mark.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "geblas/geblas.hpp"
#include "geblas/io_process.hpp"
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

// A stream that a thread fills with `bytes` and then closes; `name()` reads it.
class Feeder {
 public:
  explicit Feeder(std::string bytes, bool socket = false) : bytes_(std::move(bytes)) {
    int fds[2];
    if (socket) REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    else REQUIRE(::pipe(fds) == 0);
    read_fd_ = fds[0];
    const int w = fds[1];
    writer_ = std::thread([this, w] {
      for (std::size_t done = 0; done < bytes_.size();) {
        const ssize_t k = ::write(w, bytes_.data() + done, bytes_.size() - done);
        if (k <= 0) break;  // the reader stopped early (a limit, an error)
        done += static_cast<std::size_t>(k);
      }
      ::close(w);
    });
  }
  ~Feeder() {
    ::close(read_fd_);  // unblocks a writer whose reader gave up
    writer_.join();
  }
  std::string name() const { return "/dev/fd/" + std::to_string(read_fd_); }
  int fd() const { return read_fd_; }

 private:
  std::string bytes_;
  int read_fd_ = -1;
  std::thread writer_;
};

// Runs f with standard input taken from `fd`.
template <class F>
auto with_stdin_fd(int fd, F&& f) {
  const int saved = ::dup(STDIN_FILENO);
  ::dup2(fd, STDIN_FILENO);
  struct Restore {
    int saved;
    ~Restore() {
      ::dup2(saved, STDIN_FILENO);
      ::close(saved);
    }
  } restore{saved};
  return f();
}

// A test that hangs fails instead: SIGALRM ends the program.
struct Deadline {
  explicit Deadline(unsigned seconds) { ::alarm(seconds); }
  ~Deadline() { ::alarm(0); }
};

// An edge list well over the 64 KiB that detection peeks at.
std::string big_edge_list(Index n, Entries& want) {
  std::string s = "# a graph larger than the detection prefix\n";
  for (Index i = 0; i < n; ++i) {
    const Index j = (i * 7919 + 13) % n;
    s += std::to_string(i) + " " + std::to_string(j) + " " + std::to_string(i % 97) + ".5\n";
    want[{i, j}] = static_cast<double>(i % 97) + 0.5;
  }
  return s;
}

std::string reason_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a pipe gives every entry, past the detection prefix, in every format", "[io][streams]") {
  Deadline d(60);
  test::TempDir dir;
  Entries want;
  const std::string text = big_edge_list(20000, want);
  REQUIRE(text.size() > 4 * 64 * 1024);
  {
    Feeder f(text);
    CHECK(entries_of(io::read_graph<double>(f.name())) == want);
  }
  {
    Feeder f(text);
    CHECK(entries_of(with_stdin_fd(f.fd(), [] { return io::read_graph<double>("-"); })) == want);
  }
  {
    Feeder f(text, /*socket=*/true);
    CHECK(entries_of(with_stdin_fd(f.fd(), [] { return io::read_graph<double>("-"); })) == want);
  }
  // Matrix Market (plain and gzip), binary and CSV bytes through a pipe.
  const auto A = io::read_edge_list<double>(dir.write("a.txt", text));
  io::write_matrix_market(dir.file("a.mtx"), A);
  io::write_matrix_market(dir.file("a.mtx.gz"), A);
  io::write_binary(dir.file("a.geb"), A);
  std::string csv = "source,target,weight\n";
  for (const auto& [ij, v] : want) csv += std::to_string(ij.first) + "," + std::to_string(ij.second) + "," + std::to_string(v) + "\n";
  for (const std::string& bytes : {test::read_bytes(dir.file("a.mtx")), test::read_bytes(dir.file("a.mtx.gz")),
                                   test::read_bytes(dir.file("a.geb")), csv}) {
    Feeder f(bytes);
    CHECK(entries_of(io::read_graph<double>(f.name())) == want);
  }
}

TEST_CASE("a FIFO is opened once: a small file through it does not hang", "[io][streams]") {
  Deadline d(30);
  test::TempDir dir;
  const std::string fifo = dir.file("graph.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string mtx = "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 0.5\n3 1 2\n";
  std::thread writer([&] {
    const int w = ::open(fifo.c_str(), O_WRONLY);
    if (w >= 0) {
      (void)!::write(w, mtx.data(), mtx.size());
      ::close(w);
    }
  });
  const auto A = io::read_graph<double>(fifo);
  writer.join();
  CHECK(entries_of(A) == Entries{{{0, 1}, 0.5}, {{2, 0}, 2.0}});
}

TEST_CASE("a stream longer than the stream limit is refused, naming the limit", "[io][streams][limits]") {
  Deadline d(30);
  Entries want;
  const std::string text = big_edge_list(2000, want);
  io::set_max_stream_bytes(1000);
  struct Restore {
    ~Restore() { io::set_max_stream_bytes(0); }
  } restore;
  CHECK(io::max_stream_bytes() == 1000);
  {
    Feeder f(text);
    const std::string why = reason_of([&] { (void)io::read_graph<double>(f.name()); });
    CHECK(why.find("limit of 1000 bytes") != std::string::npos);
    CHECK(why.find("set_max_stream_bytes") != std::string::npos);
  }
  // A stream within the limit reads; a file is never limited.
  io::set_max_stream_bytes(text.size());
  {
    Feeder f(text);
    CHECK(entries_of(io::read_graph<double>(f.name())) == want);
  }
  io::set_max_stream_bytes(1000);
  test::TempDir dir;
  CHECK(entries_of(io::read_graph<double>(dir.write("a.txt", text))) == want);
  io::set_max_stream_bytes(0);
  CHECK(io::max_stream_bytes() == io::default_max_stream_bytes);
}

TEST_CASE("streams: empty, duplicates and errors are told as for a file", "[io][streams]") {
  Deadline d(30);
  {
    Feeder f("");
    const std::string why = reason_of([&] { (void)io::read_graph<double>(f.name()); });
    CHECK(why.find("it is empty") != std::string::npos);
  }
  {
    // Not empty: the banner is there, the size line is not.
    Feeder f("%%MatrixMarket matrix coordinate real general\n");
    const std::string why = reason_of([&] { (void)io::read_graph<double>(f.name()); });
    CHECK(why.find("empty") == std::string::npos);
    CHECK(why.find("missing size line") != std::string::npos);
  }
  {
    // A stream cannot be read again to name the lines of a duplicate: the entry is named.
    Feeder f("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n1 2 5\n");
    const std::string why = reason_of([&] { (void)io::read_graph<double>(f.name()); });
    CHECK(why.find("duplicate entry (1, 2)") != std::string::npos);
    CHECK(why.find("stream cannot be read again") != std::string::npos);
  }
  {
    Feeder f("0 1\n2 3\n0 1\n");
    const std::string why = reason_of([&] { (void)io::read_graph<double>(f.name()); });
    CHECK(why.find("duplicate edge (0, 1)") != std::string::npos);
  }
  {
    Feeder f("0 1\n1 2\n1 x\n");
    try {
      (void)io::read_graph<double>(f.name());
      FAIL("no error");
    } catch (const ParseError& e) {
      CHECK(e.line() == 3);
      CHECK(e.file() == f.name());
    }
  }
  // A file still names both lines of a duplicate.
  test::TempDir dir;
  const std::string why = reason_of([&] { (void)io::read_graph<double>(dir.write("d.txt", "0 1\n2 3\n0 1\n")); });
  CHECK(why.find("already given on line 1") != std::string::npos);
}

TEST_CASE("a UTF-8 byte-order mark is skipped; CR-only line ends are named", "[io][text]") {
  test::TempDir dir;
  const std::string bom = "\xEF\xBB\xBF";
  const auto mtx = dir.write("bom.dat", bom + "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 3\n");
  CHECK(io::detect_format(mtx) == io::Format::matrix_market);
  CHECK(entries_of(io::read_graph<double>(mtx)) == Entries{{{0, 1}, 3.0}});
  CHECK(entries_of(io::read_matrix_market<double>(mtx)) == Entries{{{0, 1}, 3.0}});
  CHECK(entries_of(io::read_graph<double>(dir.write("bom.txt", bom + "0 1 2\n1 0 4\n"))) ==
        Entries{{{0, 1}, 2.0}, {{1, 0}, 4.0}});
  CHECK(entries_of(io::read_graph<double>(dir.write("bomh.csv", bom + "from,to\n0,1\n"))) == Entries{{{0, 1}, 1.0}});
  for (const std::string& text : {std::string("%%MatrixMarket matrix coordinate real general\r2 2 1\r1 2 3\r"),
                                  std::string("0 1\r1 0\r")}) {
    const auto p = dir.write(text[0] == '%' ? "cr.mtx" : "cr.txt", text);
    try {
      (void)io::read_graph<double>(p);
      FAIL("no error for CR-only line ends");
    } catch (const ParseError& e) {
      CHECK(e.line() == 1);
      CHECK(e.reason().find("CR alone") != std::string::npos);
    }
  }
}

TEST_CASE("messages show NUL and binary bytes escaped, never raw", "[io][text]") {
  test::TempDir dir;
  const std::vector<std::string> inputs = {std::string("0 1\n1 \0x\n", 9),
                                           std::string("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 \x01\x9b\n"),
                                           std::string("%%MatrixMarket\0 matrix\n", 23)};
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    INFO("input " << k);
    const auto p = dir.write("m" + std::to_string(k) + ".txt", inputs[k]);
    const std::string why = reason_of([&] { (void)io::read_graph<double>(p, {}, k == 0 ? io::Format::edge_list : io::Format::matrix_market); });
    CHECK(why.find("\\x") != std::string::npos);
    for (const char c : why) CHECK(((static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) || c == '\n'));
  }
  // Well-formed UTF-8 is shown as it is.
  const auto p = dir.write("u.txt", "\xEF\xBC\x91 2\n");  // a full-width digit one
  const std::string why = reason_of([&] { (void)io::read_graph<double>(p); });
  CHECK(why.find("'\xEF\xBC\x91'") != std::string::npos);
}
