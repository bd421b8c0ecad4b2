// Fuzz target: io::read_graph on a stream. The same bytes are read twice, from a regular
// file and from a pipe that a thread writes (read through /dev/fd/N, so the reader opens
// it by name as it would a FIFO or <(...)), with format detection or a named format,
// small dimension limits and a small stream limit. The differential property: the pipe
// gives exactly the file's matrix (shape, pattern and every value's bits) or an error of
// the file's category (its Info code, a ParseError for a ParseError), and a stream beyond
// io::max_stream_bytes() is an IoError saying so. The line and reason may differ: a file's
// size is checked up front (a declared count the file cannot hold), a stream's only when
// it ends, and a duplicate is named by line only in a file, which can be read again.
//
// The first byte picks the options: format (automatic, Matrix Market, binary, edge
// list, CSV), base, undirected, duplicates summed; the second the stream limit; the rest
// is the input.
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <variant>

#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "geblas/io.hpp"
#include "geblas/io_process.hpp"

using namespace geblas;

namespace {

// What one read gave: the matrix, or the error's class and where it was.
struct Outcome {
  bool ok = false;
  SparseMatrix<double> matrix;
  Info info = Info::panic;
  bool is_parse = false;
  std::string what;
};

Outcome read_once(const std::string& path, const io::ReadOptions& o, io::Format f) {
  Outcome r;
  try {
    r.matrix = io::read_graph<double>(path, o, f);
    r.ok = true;
  } catch (const ParseError& e) {
    r.info = e.info();
    r.is_parse = true;
    r.what = e.what();
  } catch (const Error& e) {
    r.info = e.info();
    r.what = e.what();
  }
  return r;
}

bool same_matrix(const SparseMatrix<double>& x, const SparseMatrix<double>& y) {
  if (x.nrows() != y.nrows() || x.ncols() != y.ncols() || x.nvals() != y.nvals()) return false;
  const auto xr = x.row_offsets(), yr = y.row_offsets();
  const auto xc = x.col_indices(), yc = y.col_indices();
  const auto xv = x.values(), yv = y.values();
  if (!std::equal(xr.begin(), xr.end(), yr.begin())) return false;
  if (!std::equal(xc.begin(), xc.end(), yc.begin())) return false;
  // Bits, so that NaN payloads and signed zeros count.
  return xv.size() == yv.size() && (xv.empty() || std::memcmp(xv.data(), yv.data(), xv.size() * sizeof(double)) == 0);
}

Outcome read_through_pipe(const std::string& bytes, const io::ReadOptions& o, io::Format f) {
  int fds[2];
  GEBLAS_FUZZ_CHECK(::pipe(fds) == 0, "pipe() failed: %s", std::strerror(errno));
  // The writer stops at EPIPE once every read end is closed (the reader may stop early).
  std::thread writer([fd = fds[1], &bytes] {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t k = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) break;
      done += static_cast<std::size_t>(k);
    }
    ::close(fd);
  });
  Outcome r = read_once("/dev/fd/" + std::to_string(fds[0]), o, f);
  ::close(fds[0]);
  writer.join();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool sigpipe_ignored = std::signal(SIGPIPE, SIG_IGN) != SIG_ERR;
  (void)sigpipe_ignored;
  fuzz::Input in(data, size);
  const std::uint8_t opts = in.byte();
  const std::uint8_t limit_choice = in.byte();
  const std::string bytes = in.rest();

  static const io::Format formats[] = {io::Format::automatic, io::Format::matrix_market, io::Format::binary,
                                       io::Format::edge_list, io::Format::csv};
  const io::Format format = formats[(opts & 7) % 5];
  io::ReadOptions o;
  o.base = (opts >> 3) & 1;
  o.undirected = (opts >> 4) & 1;
  if ((opts >> 5) & 1) o.duplicates = binop::plus<double>{};
  // A tight dimension limit keeps every read small, whatever sizes the input declares.
  o.max_dimension = 1000;
  // Stream limits below, at and above the usual input sizes (libFuzzer's inputs are a
  // few KiB), so both sides of the limit are reached.
  static const std::uint64_t limits[] = {16, 100, 1000, 4096, std::uint64_t{1} << 20};
  const std::uint64_t limit = limits[limit_choice % 5];
  io::set_max_stream_bytes(limit);

  // No extension: detection by name must not see one on either side (/dev/fd/N has none).
  static const std::string path = "/tmp/geblas-fuzz-graph-pipe-" + std::to_string(getpid());
  if (FILE* fp = std::fopen(path.c_str(), "wb")) {
    if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), fp);
    std::fclose(fp);
  } else {
    return 0;
  }
  const Outcome file = read_once(path, o, format);
  const Outcome pipe = read_through_pipe(bytes, o, format);
  std::remove(path.c_str());
  io::set_max_stream_bytes(0);

  const bool gzip = bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
                    static_cast<unsigned char>(bytes[1]) == 0x8b;
  const bool pipe_hit_limit = !pipe.ok && pipe.info == Info::io_error &&
                              pipe.what.find("longer than the limit") != std::string::npos;
  if (pipe_hit_limit) {
    // Only an input longer than the limit may hit it (a gzip input's decompressed size
    // is not known here).
    GEBLAS_FUZZ_CHECK(gzip || bytes.size() > limit, "a %zu-byte stream hit the limit of %llu bytes: %s", bytes.size(),
                      static_cast<unsigned long long>(limit), pipe.what.c_str());
    return 0;
  }
  // A plain stream longer than the limit must not be read in full.
  GEBLAS_FUZZ_CHECK(gzip || bytes.size() <= limit || !pipe.ok,
                    "a %zu-byte stream was read although the limit is %llu bytes", bytes.size(),
                    static_cast<unsigned long long>(limit));
  if (file.ok) {
    GEBLAS_FUZZ_CHECK(pipe.ok, "the file reads, the pipe fails: %s", pipe.what.c_str());
    GEBLAS_FUZZ_CHECK(same_matrix(file.matrix, pipe.matrix), "the pipe gives another matrix (%lld x %lld, %lld vs %lld x %lld, %lld)",
                      static_cast<long long>(file.matrix.nrows()), static_cast<long long>(file.matrix.ncols()),
                      static_cast<long long>(file.matrix.nvals()), static_cast<long long>(pipe.matrix.nrows()),
                      static_cast<long long>(pipe.matrix.ncols()), static_cast<long long>(pipe.matrix.nvals()));
    return 0;
  }
  GEBLAS_FUZZ_CHECK(!pipe.ok, "the file fails (%s), the pipe reads", file.what.c_str());
  GEBLAS_FUZZ_CHECK(file.info == pipe.info && file.is_parse == pipe.is_parse, "different errors: file '%s', pipe '%s'",
                    file.what.c_str(), pipe.what.c_str());
  return 0;
}
