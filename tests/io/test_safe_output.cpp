// Safe output of the library's writers (io::OutputFile under write_matrix_market and
// write_binary): a write that fails part-way (file-size limit, the portable stand-in for a
// full disk), a folder that cannot take files, and an output that is the input must all
// raise IoError / InvalidValue and leave the previous file byte for byte as it was, with
// no temporary file left behind; "-" writes to standard output.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "geblas/geblas.hpp"
#include "geblas/io_process.hpp"
#include "io/temp_dir.hpp"
#include "support/catch.hpp"

using namespace geblas;
namespace fs = std::filesystem;

namespace {

SparseMatrix<double> big_matrix(Index n) {
  std::vector<Tuple<double>> t;
  for (Index i = 0; i < n; ++i) t.push_back({i, (i * 7 + 3) % n, 1.0 / static_cast<double>(i + 3)});
  return SparseMatrix<double>::from_tuples(n, n, t);
}

// Lowers this process's file-size limit so that writes past `bytes` fail with EFBIG
// (SIGXFSZ ignored), as a full disk would make them fail; restored on destruction.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit r = old_;
    r.rlim_cur = bytes;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &r) == 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("a write that fails part-way leaves the previous file intact", "[io][safe]") {
  test::TempDir dir;
  const auto A = big_matrix(20000);  // about 600 KB as text, 400 KB binary
  for (const std::string name : {"g.mtx", "g.mtx.gz", "g.geb"}) {
    INFO(name);
    const std::string path = dir.write(name, "previous contents\n");
    const auto before = names_in(dir.file(""));
    {
      FileSizeLimit limit(64 * 1024);
      if (name.ends_with(".geb")) CHECK_THROWS_AS(io::write_binary(path, A), IoError);
      else CHECK_THROWS_AS(io::write_matrix_market(path, A), IoError);
    }
    CHECK(test::read_bytes(path) == "previous contents\n");
    CHECK(names_in(dir.file("")) == before);  // no temporary file left
    // And without the limit the same call succeeds and replaces the file.
    if (name.ends_with(".geb")) {
      io::write_binary(path, A);
      CHECK(io::read_binary<double>(path).nvals() == A.nvals());
    } else {
      io::write_matrix_market(path, A);
      CHECK(io::read_matrix_market<double>(path).nvals() == A.nvals());
    }
    CHECK(names_in(dir.file("")) == before);
  }
}

TEST_CASE("the message of a failed write names the file and says the old one is kept", "[io][safe]") {
  test::TempDir dir;
  const std::string path = dir.write("g.mtx", "old");
  FileSizeLimit limit(4096);
  try {
    io::write_matrix_market(path, big_matrix(5000));
    FAIL("no exception");
  } catch (const IoError& e) {
    const std::string what = e.what();
    CHECK(what.find(path) != std::string::npos);
    CHECK(what.find("left as it was") != std::string::npos);
  }
}

TEST_CASE("an unwritable or missing folder fails before anything is written", "[io][safe]") {
  test::TempDir dir;
  const std::string file = dir.write("plain", "x");
  const auto A = big_matrix(10);
  // A path under a regular file: no process, root included, can create it.
  CHECK_THROWS_AS(io::write_matrix_market(file + "/out.mtx", A), IoError);
  CHECK_THROWS_AS(io::write_binary(file + "/out.geb", A), IoError);
  CHECK_THROWS_AS(io::check_output_path(file + "/out.csv"), IoError);
  // A missing folder, named in the message.
  try {
    io::check_output_path(dir.file("missing/out.csv"));
    FAIL("no exception");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("does not exist") != std::string::npos);
  }
  // A folder as the output.
  CHECK_THROWS_AS(io::check_output_path(dir.file("")), IoError);
  CHECK(test::read_bytes(file) == "x");
}

TEST_CASE("an output that is the input is refused, however it is spelt", "[io][safe]") {
  test::TempDir dir;
  const std::string in = dir.write("g.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n");
  fs::create_directories(dir.file("sub"));
  CHECK_THROWS_AS(io::check_output_path(in, {in}), InvalidValue);
  CHECK_THROWS_AS(io::check_output_path(dir.file("sub/../g.mtx"), {in}), InvalidValue);
  fs::create_hard_link(in, dir.file("hard.mtx"));
  CHECK_THROWS_AS(io::check_output_path(dir.file("hard.mtx"), {in}), InvalidValue);
  fs::create_symlink(in, dir.file("soft.mtx"));
  CHECK_THROWS_AS(io::check_output_path(dir.file("soft.mtx"), {in}), InvalidValue);
  CHECK(io::same_file(in, dir.file("sub/../g.mtx")));
  CHECK_FALSE(io::same_file(in, dir.file("other.mtx")));
  CHECK_NOTHROW(io::check_output_path(dir.file("other.mtx"), {in}));
  CHECK_NOTHROW(io::check_output_path("-", {in}));
  CHECK(!fs::exists(dir.file("other.mtx")));  // the check itself leaves nothing behind
}

TEST_CASE("an existing file keeps its permissions; a new one gets 0666 less the umask", "[io][safe]") {
  test::TempDir dir;
  const std::string path = dir.write("g.mtx", "old");
  ::chmod(path.c_str(), 0640);
  io::write_matrix_market(path, big_matrix(4));
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  const mode_t mask = ::umask(022);
  io::write_binary(dir.file("new.geb"), big_matrix(4));
  ::umask(mask);
  REQUIRE(::stat(dir.file("new.geb").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE("\"-\" writes to standard output", "[io][safe]") {
  test::TempDir dir;
  const std::string captured = dir.file("stdout.txt");
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  io::write_matrix_market("-", big_matrix(3));
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  const auto back = io::read_matrix_market<double>(captured);
  CHECK(back.nvals() == 3);
  CHECK(back.values() == big_matrix(3).values());
  CHECK(!fs::exists("-"));
}

namespace {

bool entries_match(const SparseMatrix<double>& B, const SparseMatrix<double>& A) {
  return B.nrows() == A.nrows() && B.ncols() == A.ncols() && B.extract_tuples() == A.extract_tuples();
}

// The host part of a temporary name, as the writer forms it.
std::string host_tag() {
  char host[65] = {0};
  ::gethostname(host, sizeof host - 1);
  std::string h(host[0] ? host : "host");
  for (char& c : h)
    if (c == '/' || c == '-') c = '_';
  return h.substr(0, 32);
}

std::string temp_names_in(const std::string& dir) {
  std::string out;
  for (const auto& n : names_in(dir))
    if (n.rfind(".geblas-tmp-", 0) == 0) out += n + " ";
  return out;
}

}  // namespace

TEST_CASE("a symbolic link is written through: the file it names is replaced, the link stays", "[io][safe][links]") {
  test::TempDir dir;
  const auto A = big_matrix(50);
  fs::create_directory(dir.file("real"));
  const std::string target = dir.file("real/precious.mtx");
  test::TempDir other;
  { std::ofstream(target) << "old"; }
  fs::create_symlink("real/precious.mtx", dir.file("out.mtx"));  // relative
  fs::create_symlink(dir.file("out.mtx"), dir.file("chain.mtx"));  // a link to a link
  for (const std::string link : {"out.mtx", "chain.mtx"}) {
    INFO(link);
    io::write_matrix_market(dir.file(link), A);
    CHECK(fs::is_symlink(dir.file(link)));
    CHECK(fs::is_regular_file(fs::symlink_status(target)));
    CHECK(entries_match(io::read_matrix_market<double>(target), A));
  }
  // A dangling link: the file it names is created.
  fs::create_symlink("real/new.mtx", dir.file("dangling.mtx"));
  io::write_matrix_market(dir.file("dangling.mtx"), A);
  CHECK(fs::is_symlink(dir.file("dangling.mtx")));
  CHECK(entries_match(io::read_matrix_market<double>(dir.file("real/new.mtx")), A));
  CHECK(temp_names_in(dir.file("")) + temp_names_in(dir.file("real")) == "");
}

TEST_CASE("targets that are not regular files are written in place, never replaced", "[io][safe][devices]") {
  test::TempDir dir;
  const auto A = big_matrix(50);
  // System devices only through links of our own: a writer that replaced its target
  // would replace the link (checked below), never the machine's /dev/null.
  fs::create_symlink("/dev/null", dir.file("null-link"));
  fs::create_symlink("/dev/full", dir.file("full-link"));
  io::check_output_path(dir.file("null-link"));
  io::write_matrix_market(dir.file("null-link"), A);
  CHECK(fs::is_symlink(dir.file("null-link")));
  CHECK(fs::is_character_file(dir.file("null-link")));
  // A device node of our own (needs root): stays a device.
  if (::mknod(dir.file("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    io::check_output_path(dir.file("null"));
    io::write_binary(dir.file("null"), A);
    CHECK(fs::is_character_file(dir.file("null")));
  }
  // A FIFO with a reader gets every byte; one without a reader is refused at once.
  const std::string fifo = dir.file("out.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] {
    const int r = ::open(fifo.c_str(), O_RDONLY);
    char buf[4096];
    for (ssize_t k; (k = ::read(r, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(k));
    ::close(r);
  });
  // Wait for the reader to open its end (a non-blocking open for writing fails until then).
  int probe = -1;
  for (int tries = 0; tries < 500 && probe < 0; ++tries) {
    probe = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (probe < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(probe >= 0);
  io::check_output_path(fifo);  // must not open and close it: that would end the reader's input
  io::write_matrix_market(fifo, A);
  ::close(probe);
  reader.join();
  io::write_matrix_market(dir.file("same.mtx"), A);
  CHECK(got == test::read_bytes(dir.file("same.mtx")));
  CHECK(fs::is_fifo(fifo));
  const auto start = std::chrono::steady_clock::now();
  try {
    io::write_matrix_market(fifo, A);
    FAIL("wrote to a FIFO without a reader");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("no process is reading") != std::string::npos);
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  // /dev/full: the error is reported, the device stays.
  CHECK_THROWS_AS(io::write_matrix_market(dir.file("full-link"), A), IoError);
  CHECK(fs::is_symlink(dir.file("full-link")));
  CHECK(fs::is_character_file(dir.file("full-link")));
  CHECK(temp_names_in(dir.file("")) == "");
}

TEST_CASE("the temporary name is short: a 255-byte target name can be written", "[io][safe][names]") {
  test::TempDir dir;
  const auto A = big_matrix(20);
  const std::string name = std::string(251, 'y') + ".mtx";  // NAME_MAX
  REQUIRE(name.size() == 255);
  io::check_output_path(dir.file(name));
  io::write_matrix_market(dir.file(name), A);
  CHECK(entries_match(io::read_matrix_market<double>(dir.file(name)), A));
  CHECK(names_in(dir.file("")) == std::vector<std::string>{name});
}

TEST_CASE("temporary files: named after host and process, removed on signals and after kill -9", "[io][safe][signals]") {
  test::TempDir dir;
  const auto A = big_matrix(20);
  // A process that dies with a temporary file open: SIGKILL (nothing can clean up), and
  // SIGTERM / SIGINT / SIGHUP with the handlers installed (they remove it, then the
  // process dies of the signal as it would have).
  for (const int sig : {SIGKILL, SIGTERM, SIGINT, SIGHUP}) {
    INFO("signal " << sig);
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      for (const int s : {SIGTERM, SIGINT, SIGHUP}) std::signal(s, SIG_DFL);
      io::remove_temporary_files_on_signals();
      io::OutputFile f(dir.file("out.mtx"));
      (void)!::write(ready[1], "x", 1);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    char c;
    REQUIRE(::read(ready[0], &c, 1) == 1);
    ::close(ready[0]);
    const std::string during = temp_names_in(dir.file(""));
    CHECK(during.find(".geblas-tmp-") == 0);
    CHECK(during.find("-" + std::to_string(child) + "-") != std::string::npos);
    ::kill(child, sig);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    if (sig == SIGKILL) {
      CHECK(temp_names_in(dir.file("")) == during);  // left behind ...
      // ... and removed by the next write into the folder, which is not the dead one's.
      io::write_matrix_market(dir.file("next.mtx"), A);
    }
    CHECK(temp_names_in(dir.file("")) == "");
    CHECK(!fs::exists(dir.file("out.mtx")));
  }
  // Never removed: the temporary file of a live process, nor one of another host.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  const std::string live = dir.file(".geblas-tmp-" + host_tag() + "-" + std::to_string(::getpid()) + "-abcdef");
  const std::string remote = dir.file(".geblas-tmp-otherhost-" + std::to_string(gone) + "-abcdef");
  const std::string dead = dir.file(".geblas-tmp-" + host_tag() + "-" + std::to_string(gone) + "-abcdef");
  for (const auto& p : {live, remote, dead}) std::ofstream(p) << "x";
  io::write_matrix_market(dir.file("again.mtx"), A);
  CHECK(fs::exists(live));
  CHECK(fs::exists(remote));
  CHECK(!fs::exists(dead));
}
