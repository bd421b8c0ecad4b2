// Reading a file's bytes, plain or gzip-compressed (recognised by its magic bytes, not
// its name), in large blocks. Every reader in src/io/ sits on this, so gzip, missing
// files and truncated streams are handled in one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "geblas/io.hpp"

namespace geblas::io::detail {

class ByteSource {
 public:
  // Opens `path` once; every later read, detection included, goes through this one open
  // file, so a pipe, FIFO, socket or /dev/stdin is read exactly as a file is. Throws
  // IoError naming the path when it cannot be opened or is a folder.
  explicit ByteSource(const std::string& path);
  // Reads an open descriptor (owned from now on), named `shown_name` in messages:
  // standard input is ByteSource(dup(0), "<stdin>").
  ByteSource(int fd, const std::string& shown_name);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // Reads up to n (decompressed) bytes into dst and returns how many; 0 only at the end.
  // A corrupt or truncated gzip stream throws ParseError naming `line_hint`, the line
  // the caller had reached; a stream beyond io::max_stream_bytes() throws IoError.
  std::size_t read(char* dst, std::size_t n);
  // The first (up to) n decompressed bytes, without consuming them: read() hands them
  // out first. Format detection looks here, and the reader it picks then sees every
  // byte. A gzip error inside the prefix is kept and raised by the read that reaches it.
  std::string_view peek(std::size_t n);
  // Back to the first byte for a second pass (naming the lines of a duplicate); false
  // for a stream, which cannot be read again.
  bool rewind();

  // The name for messages: the path, or "<stdin>".
  const std::string& path() const { return path_; }
  bool compressed() const { return gz_ != nullptr; }
  // A pipe, FIFO, socket or device: no size is known and it cannot be read twice.
  bool is_stream() const { return stream_; }
  // Size of the file on disk (compressed size for gzip); 0 for a stream.
  std::uint64_t file_bytes() const { return file_bytes_; }
  // An upper bound on the decompressed size: deflate expands at most ~1032:1; a stream
  // is bounded by the stream limit.
  std::uint64_t max_content_bytes() const;

  long long line_hint = 0;

 private:
  struct Gzip;
  void open_checked();
  void start();
  std::size_t read_decoded(char* dst, std::size_t n);
  std::size_t read_gzip(char* dst, std::size_t n);
  std::size_t read_raw(unsigned char* dst, std::size_t n);

  std::string path_;
  std::FILE* f_ = nullptr;
  std::uint64_t file_bytes_ = 0;
  bool stream_ = false;
  std::uint64_t delivered_ = 0;  // decompressed bytes handed out (the stream limit counts these)
  std::unique_ptr<Gzip> gz_;
  // The first bytes are read to sniff the magic number and handed out before the rest.
  unsigned char head_[2] = {0, 0};
  std::size_t head_len_ = 0, head_pos_ = 0;
  // What peek() read ahead, handed out by read() before anything else.
  std::string prefix_;
  std::size_t prefix_pos_ = 0;
  std::string pending_error_;  // a gzip error met while peeking
};

// Writing a file, plain or gzip-compressed (for a path ending in ".gz" when `gzip_by_name`),
// through io::OutputFile: the target is replaced only by close(), after every byte was
// written and synced; destroyed before close(), the target is untouched. Throws IoError
// naming the path on any failure. "-" is standard output (never compressed).
class ByteSink {
 public:
  explicit ByteSink(const std::string& path, bool gzip_by_name = true);
  ~ByteSink();
  ByteSink(const ByteSink&) = delete;
  ByteSink& operator=(const ByteSink&) = delete;
  void write(const void* data, std::size_t n);
  void close();

 private:
  struct Gzip;
  void write_raw(const void* data, std::size_t n);
  std::string path_;
  std::unique_ptr<OutputFile> out_;
  std::unique_ptr<Gzip> gz_;
};

}  // namespace geblas::io::detail
