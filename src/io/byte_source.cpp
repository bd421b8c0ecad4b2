// Plain and gzip byte streams for the readers and writers in src/io/. gzip goes through
// zlib's inflate/deflate directly (not gzread) so that a truncated or corrupt stream is
// told apart from a clean end of file.
#include "io/byte_source.hpp"

#include <zlib.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>

#include "geblas/error.hpp"
#include "geblas/io_process.hpp"

namespace geblas::io::detail {
namespace {
constexpr std::size_t kInBlock = std::size_t{1} << 20;  // compressed bytes per fread

std::string errno_text() { return std::strerror(errno); }

std::atomic<std::uint64_t> g_max_stream_bytes{default_max_stream_bytes};
}  // namespace

}  // namespace geblas::io::detail

namespace geblas::io {
void set_max_stream_bytes(std::uint64_t bytes) { detail::g_max_stream_bytes = bytes ? bytes : default_max_stream_bytes; }
std::uint64_t max_stream_bytes() { return detail::g_max_stream_bytes; }
}  // namespace geblas::io

namespace geblas::io::detail {

struct ByteSource::Gzip {
  z_stream zs{};
  std::unique_ptr<unsigned char[]> in{new unsigned char[kInBlock]};  // not zeroed: no page faults up front
  std::size_t in_size = kInBlock;
  bool input_done = false;   // fread returned 0
  bool stream_end = false;   // the last member ended cleanly and nothing follows
  std::uint64_t produced = 0;
  ~Gzip() { inflateEnd(&zs); }
};

ByteSource::ByteSource(const std::string& path) : path_(path) {
  // A FIFO waits here for its writer, as `cat fifo` does; it is opened once, so a writer
  // that has come and gone is never waited for a second time.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw IoError("cannot open '" + path + "' for reading: " + errno_text());
  f_ = ::fdopen(fd, "rb");
  if (!f_) {
    const std::string e = errno_text();
    ::close(fd);
    throw IoError("cannot open '" + path + "' for reading: " + e);
  }
  open_checked();
}

ByteSource::ByteSource(int fd, const std::string& shown_name) : path_(shown_name) {
  if (fd < 0) throw IoError("cannot read " + shown_name + ": " + errno_text());
  f_ = ::fdopen(fd, "rb");
  if (!f_) {
    const std::string e = errno_text();
    ::close(fd);
    throw IoError("cannot read " + shown_name + ": " + e);
  }
  open_checked();
}

void ByteSource::open_checked() {
  struct stat st{};
  if (fstat(fileno(f_), &st) != 0) {
    const std::string e = errno_text();
    std::fclose(f_);
    f_ = nullptr;
    throw IoError("cannot read '" + path_ + "': " + e);
  }
  if (S_ISDIR(st.st_mode)) {
    std::fclose(f_);
    f_ = nullptr;
    throw IoError("cannot read '" + path_ + "': it is a directory");
  }
  stream_ = !S_ISREG(st.st_mode);
  file_bytes_ = stream_ ? 0 : static_cast<std::uint64_t>(st.st_size);
  try {
    start();
  } catch (...) {
    std::fclose(f_);
    f_ = nullptr;
    throw;
  }
}

// Sniffs the gzip magic at the current (first) byte and sets up decompression.
void ByteSource::start() {
  head_len_ = read_raw(head_, 2);
  head_pos_ = 0;
  if (head_len_ == 2 && head_[0] == 0x1f && head_[1] == 0x8b) {
    gz_ = std::make_unique<Gzip>();
    if (inflateInit2(&gz_->zs, 15 + 16) != Z_OK) throw IoError("cannot start gzip decompression of '" + path_ + "'");
    // Hand the magic bytes to inflate.
    std::memcpy(gz_->in.get(), head_, 2);
    gz_->zs.next_in = gz_->in.get();
    gz_->zs.avail_in = 2;
    head_pos_ = head_len_;
  }
}

ByteSource::~ByteSource() {
  gz_.reset();
  if (f_) std::fclose(f_);
}

std::uint64_t ByteSource::max_content_bytes() const {
  if (stream_) return max_stream_bytes();
  return compressed() ? file_bytes_ * 1032 + 4096 : file_bytes_;
}

bool ByteSource::rewind() {
  if (stream_) return false;
  if (fseeko(f_, 0, SEEK_SET) != 0) return false;
  std::clearerr(f_);
  gz_.reset();
  prefix_.clear();
  prefix_pos_ = 0;
  pending_error_.clear();
  delivered_ = 0;
  start();
  return true;
}

std::size_t ByteSource::read_raw(unsigned char* dst, std::size_t n) {
  std::size_t got = 0;
  for (;;) {
    got += std::fread(dst + got, 1, n - got, f_);
    if (got == n || !std::ferror(f_)) return got;  // complete, or the end of the input
    // A signal whose handler returns interrupts a read from a pipe: go on reading.
    if (errno != EINTR) throw IoError("error reading '" + path_ + "': " + errno_text());
    std::clearerr(f_);
  }
}

std::string_view ByteSource::peek(std::size_t n) {
  if (prefix_pos_ == 0 && prefix_.size() < n && pending_error_.empty()) {
    const std::size_t had = prefix_.size();
    prefix_.resize(n);
    std::size_t got = had;
    try {
      while (got < n) {
        const std::size_t k = read_decoded(prefix_.data() + got, n - got);
        if (k == 0) break;
        got += k;
      }
    } catch (const ParseError& e) {
      pending_error_ = e.reason();
    }
    prefix_.resize(got);
  }
  return std::string_view(prefix_).substr(prefix_pos_, n);
}

std::size_t ByteSource::read(char* dst, std::size_t n) {
  std::size_t done = 0;
  if (prefix_pos_ < prefix_.size()) {
    done = std::min(n, prefix_.size() - prefix_pos_);
    std::memcpy(dst, prefix_.data() + prefix_pos_, done);
    prefix_pos_ += done;
    if (done == n) return done;
  }
  if (!pending_error_.empty()) throw ParseError(path_, line_hint, pending_error_);
  return done + read_decoded(dst + done, n - done);
}

std::size_t ByteSource::read_decoded(char* dst, std::size_t n) {
  std::size_t done = 0;
  if (gz_) {
    done = read_gzip(dst, n);
  } else {
    while (head_pos_ < head_len_ && done < n) dst[done++] = static_cast<char>(head_[head_pos_++]);
    if (done < n) done += read_raw(reinterpret_cast<unsigned char*>(dst) + done, n - done);
  }
  delivered_ += done;
  if (stream_ && delivered_ > max_stream_bytes())
    throw IoError("'" + path_ + "' is a stream (pipe, FIFO, socket or device) longer than the limit of " +
                  std::to_string(max_stream_bytes()) + " bytes" + (gz_ ? " after decompression" : "") +
                  "; raise it with geblas::io::set_max_stream_bytes(), or read the graph from a file");
  return done;
}

std::size_t ByteSource::read_gzip(char* dst, std::size_t n) {
  Gzip& g = *gz_;
  z_stream& zs = g.zs;
  zs.next_out = reinterpret_cast<unsigned char*>(dst);
  zs.avail_out = static_cast<uInt>(n);
  while (zs.avail_out > 0 && !g.stream_end) {
    if (zs.avail_in == 0 && !g.input_done) {
      const std::size_t got = read_raw(g.in.get(), g.in_size);
      if (got == 0) g.input_done = true;
      zs.next_in = g.in.get();
      zs.avail_in = static_cast<uInt>(got);
    }
    const uInt before = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    g.produced += before - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (concatenated .gz files are valid gzip).
      if (zs.avail_in < 2 && !g.input_done) {
        // Keep a lone leftover byte and top up, so a following member's magic is seen whole.
        const std::size_t keep = zs.avail_in;
        if (keep) g.in[0] = zs.next_in[0];
        const std::size_t got = read_raw(g.in.get() + keep, g.in_size - keep);
        if (got == 0) g.input_done = true;
        zs.next_in = g.in.get();
        zs.avail_in = static_cast<uInt>(keep + got);
      }
      if (zs.avail_in == 0) {
        g.stream_end = true;
      } else if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
        inflateReset(&zs);
      } else {
        throw ParseError(path_, line_hint, "unexpected bytes after the end of the gzip stream");
      }
      continue;
    }
    if (rc == Z_MEM_ERROR) throw OutOfMemory("zlib inflate ran out of memory reading '" + path_ + "'", 0);
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR)
      throw ParseError(path_, line_hint,
                       std::string("corrupt gzip data (") + (zs.msg ? zs.msg : "inflate failed") + ") after " +
                           std::to_string(g.produced) + " decompressed bytes");
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && g.input_done)
      throw ParseError(path_, line_hint,
                       "truncated gzip stream: the file ends after " + std::to_string(g.produced) +
                           " decompressed bytes, before the end of the compressed data");
  }
  return n - zs.avail_out;
}

struct ByteSink::Gzip {
  z_stream zs{};
  std::vector<unsigned char> out = std::vector<unsigned char>(kInBlock);
  bool open = false;
  ~Gzip() {
    if (open) deflateEnd(&zs);
  }
};

ByteSink::ByteSink(const std::string& path, bool gzip_by_name) : path_(path) {
  out_ = std::make_unique<OutputFile>(path);
  if (gzip_by_name && path != "-" && path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
    gz_ = std::make_unique<Gzip>();
    // Level 6 (zlib's default): within a few percent of level 9's size at ~3x the speed.
    if (deflateInit2(&gz_->zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw IoError("cannot start gzip compression for '" + path + "'");
    gz_->open = true;
  }
}

ByteSink::~ByteSink() = default;  // an uncommitted OutputFile removes its temporary file

void ByteSink::write_raw(const void* data, std::size_t n) { out_->write(data, n); }

void ByteSink::write(const void* data, std::size_t n) {
  if (!out_) throw IoError("write to '" + path_ + "' after close");
  if (!gz_) return write_raw(data, n);
  z_stream& zs = gz_->zs;
  zs.next_in = static_cast<Bytef*>(const_cast<void*>(data));
  zs.avail_in = static_cast<uInt>(n);
  while (zs.avail_in > 0) {
    zs.next_out = gz_->out.data();
    zs.avail_out = static_cast<uInt>(gz_->out.size());
    if (deflate(&zs, Z_NO_FLUSH) == Z_STREAM_ERROR) throw IoError("gzip compression failed for '" + path_ + "'");
    write_raw(gz_->out.data(), gz_->out.size() - zs.avail_out);
  }
}

void ByteSink::close() {
  if (!out_) return;
  if (gz_) {
    z_stream& zs = gz_->zs;
    zs.next_in = nullptr;
    zs.avail_in = 0;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      zs.next_out = gz_->out.data();
      zs.avail_out = static_cast<uInt>(gz_->out.size());
      rc = deflate(&zs, Z_FINISH);
      if (rc == Z_STREAM_ERROR) throw IoError("gzip compression failed for '" + path_ + "'");
      write_raw(gz_->out.data(), gz_->out.size() - zs.avail_out);
    }
    gz_.reset();
  }
  out_->commit();
  out_.reset();
}

}  // namespace geblas::io::detail
