// Reading a mask one output row at a time on the host: fill() expands row i of the mask
// into ncols flags (1 where the operation may write), with the value / structural rule
// and the complement applied. A Vector mask is read as a single row.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "geblas/mask.hpp"

namespace geblas::detail::cpu {

class MaskRows {
 public:
  explicit MaskRows(const Mask& mask) : mask_(mask) {}
  bool empty() const { return mask_.empty(); }
  void fill(Index i, std::uint8_t* flags, Index ncols) const;
  // For a sparse mask (kind() == sparse): the sorted columns of row i that count (every
  // stored one for a structural mask, the nonzero ones otherwise), before any complement.
  // A structural mask's own storage is returned; a value mask's row is copied into buf.
  // Walking these costs the row's length, where fill() costs ncols.
  std::span<const ColIndex> listed(Index i, std::vector<ColIndex>& buf) const;

 private:
  const Mask& mask_;
};

}  // namespace geblas::detail::cpu
