// A reader of fuzzer bytes for the fuzz targets: takes integers, choices and the rest of
// the input off the front, and returns zeros once the bytes run out, so every input is
// a valid program whatever its length. Written here (not clang's FuzzedDataProvider) so
// that the same targets also build with gcc as replay programs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace geblas::fuzz {

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}

  std::size_t remaining() const { return n_; }

  template <class T>
  T take() {
    T v{};
    const std::size_t k = n_ < sizeof(T) ? n_ : sizeof(T);
    if (k) std::memcpy(&v, p_, k);  // p_ may be null for an empty input
    p_ += k;
    n_ -= k;
    return v;
  }
  std::uint8_t byte() { return take<std::uint8_t>(); }
  // A value in [0, n) (0 when n == 0).
  std::uint64_t below(std::uint64_t n) { return n ? take<std::uint32_t>() % n : 0; }
  bool flag() { return byte() & 1; }
  std::string rest() {
    std::string s(reinterpret_cast<const char*>(p_), n_);
    p_ += n_;
    n_ = 0;
    return s;
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
};

}  // namespace geblas::fuzz
