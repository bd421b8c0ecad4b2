// Reading a file's bytes, plain or gzip-compressed (recognised by its magic bytes, not
// its name), in large blocks. Every reader in src/io/ sits on this, so gzip, missing
// files and truncated streams are handled in one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "geblas/io.hpp"

namespace geblas::io::detail {

class ByteSource {
 public:
  // Opens `path`; throws IoError naming the path when it cannot be opened or read.
  explicit ByteSource(const std::string& path);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // Reads up to n (decompressed) bytes into dst and returns how many; 0 only at the end.
  // A corrupt or truncated gzip stream throws ParseError naming `line_hint`, the line
  // the caller had reached.
  std::size_t read(char* dst, std::size_t n);

  const std::string& path() const { return path_; }
  bool compressed() const { return gz_ != nullptr; }
  // Size of the file on disk (compressed size for gzip).
  std::uint64_t file_bytes() const { return file_bytes_; }
  // An upper bound on the decompressed size: deflate expands at most ~1032:1.
  std::uint64_t max_content_bytes() const { return compressed() ? file_bytes_ * 1032 + 4096 : file_bytes_; }

  long long line_hint = 0;

 private:
  struct Gzip;
  std::size_t read_gzip(char* dst, std::size_t n);
  std::size_t read_raw(unsigned char* dst, std::size_t n);

  std::string path_;
  std::FILE* f_ = nullptr;
  std::uint64_t file_bytes_ = 0;
  std::unique_ptr<Gzip> gz_;
  // The first bytes are read to sniff the magic number and handed out before the rest.
  unsigned char head_[2] = {0, 0};
  std::size_t head_len_ = 0, head_pos_ = 0;
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
