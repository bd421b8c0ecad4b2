// Reading a mask one output row at a time on the host: fill() expands row i of the mask
// into ncols flags (1 where the operation may write), with the value / structural rule
// and the complement applied. A Vector mask is read as a single row.
#pragma once

#include <cstdint>

#include "geblas/mask.hpp"

namespace geblas::detail::cpu {

class MaskRows {
 public:
  explicit MaskRows(const Mask& mask) : mask_(mask) {}
  bool empty() const { return mask_.empty(); }
  void fill(Index i, std::uint8_t* flags, Index ncols) const;

 private:
  const Mask& mask_;
};

}  // namespace geblas::detail::cpu
