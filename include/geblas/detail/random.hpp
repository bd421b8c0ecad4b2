// A small, portable random generator (splitmix64) so that random matrices are the same
// on every platform and standard library for a given seed.
#pragma once

#include <cstdint>
#include <type_traits>

#include "geblas/half.hpp"

namespace geblas::detail {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n).
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }

  // A value for test and benchmark data: floating point in [0, 1), integers in
  // [0, 10), bool true with probability 1/2. The 16-bit types take a float in [0, 1)
  // rounded once (which may give 1.0).
  template <class T>
  T value() {
    if constexpr (std::is_same_v<T, bool>) return (next() >> 63) != 0;
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(below(10));
    else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) return T(static_cast<float>(uniform()));
    else return static_cast<T>(uniform());
  }

 private:
  std::uint64_t state_;
};

}  // namespace geblas::detail
