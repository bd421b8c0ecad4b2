// Safe output of the library's writers (io::OutputFile under write_matrix_market and
// write_binary): a write that fails part-way (file-size limit, the portable stand-in for a
// full disk), a folder that cannot take files, and an output that is the input must all
// raise IoError / InvalidValue and leave the previous file byte for byte as it was, with
// no temporary file left behind; "-" writes to standard output.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
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
