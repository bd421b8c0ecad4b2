// Splitting a ByteSource into lines over large buffered blocks, counting line numbers
// for error messages. Lines are handed out as views into the buffer (no copy, no
// allocation per line); a view is valid until the next call.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "geblas/error.hpp"
#include "io/byte_source.hpp"

namespace geblas::io::detail {

class LineReader {
 public:
  // 4 MiB blocks: large enough that refills are rare, small enough to stay in L2/L3.
  static constexpr std::size_t kBlock = std::size_t{4} << 20;
  // A longer line is certainly not Matrix Market; refusing it bounds memory.
  static constexpr std::size_t kMaxLine = std::size_t{64} << 20;

  // The buffer is not zeroed and is no larger than the file can need, so a small file
  // costs no 4 MiB of page faults.
  explicit LineReader(ByteSource& src)
      : src_(src), cap_(static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, src.max_content_bytes() + 1))),
        buf_(new char[cap_]) {}

  // The next line without its '\n' (and without a trailing '\r'); false at the end.
  // A UTF-8 byte-order mark at the start of the first line is dropped.
  bool next(std::string_view& line) {
    if (!next_raw(line)) return false;
    if (line_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
    return true;
  }

 private:
  bool next_raw(std::string_view& line) {
    for (;;) {
      const char* p = buf_.get() + pos_;
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end_ - pos_));
      if (nl) {
        std::size_t len = static_cast<std::size_t>(nl - p);
        pos_ += len + 1;
        ++line_;
        if (len && p[len - 1] == '\r') --len;
        line = std::string_view(p, len);
        return true;
      }
      if (eof_) {
        if (pos_ == end_) return false;
        std::size_t len = end_ - pos_;
        pos_ = end_;
        ++line_;
        if (len && p[len - 1] == '\r') --len;
        line = std::string_view(p, len);
        return true;
      }
      refill();
    }
  }


 public:
  // The next run of whole lines (ending with '\n', or at the end of the input), about a
  // buffer's worth, for parsers that split it among threads; false at the end. Lines
  // handed out so far are counted, so line_number() stays the last line of the block.
  bool next_block(std::string_view& block) {
    for (;;) {
      if (!eof_ && !(pos_ == 0 && end_ == cap_)) refill();
      if (pos_ == end_) {
        if (eof_) return false;
        continue;
      }
      const char* b = buf_.get() + pos_;
      std::size_t len = end_ - pos_;
      if (!eof_) {
        const void* nl = memrchr(b, '\n', len);
        if (!nl) {
          if (pos_ == 0 && end_ == cap_) grow();
          continue;
        }
        len = static_cast<std::size_t>(static_cast<const char*>(nl) - b) + 1;
      }
      block = std::string_view(b, len);
      pos_ += len;
      line_ += std::count(b, b + len, '\n') + (b[len - 1] != '\n' ? 1 : 0);
      return true;
    }
  }

  // 1-based number of the line last returned by next() (0 before the first).
  long long line_number() const { return line_; }
  ByteSource& source() { return src_; }

 private:
  void refill() {
    const std::size_t rest = end_ - pos_;
    if (pos_ > 0) {
      std::memmove(buf_.get(), buf_.get() + pos_, rest);
      pos_ = 0;
      end_ = rest;
    }
    if (end_ == cap_) grow();
    src_.line_hint = line_ + 1;
    const std::size_t got = src_.read(buf_.get() + end_, cap_ - end_);
    if (got == 0) eof_ = true;
    end_ += got;
  }

  // Doubles the buffer when one line fills it.
  void grow() {
    if (cap_ >= kMaxLine)
      throw ParseError(src_.path(), line_ + 1, "line longer than " + std::to_string(kMaxLine >> 20) + " MiB");
    std::unique_ptr<char[]> bigger(new char[cap_ * 2]);
    std::memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    cap_ *= 2;
  }

  ByteSource& src_;
  std::size_t cap_;
  std::unique_ptr<char[]> buf_;
  std::size_t pos_ = 0, end_ = 0;
  long long line_ = 0;
  bool eof_ = false;
};

}  // namespace geblas::io::detail
