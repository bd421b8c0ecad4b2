// Index lists for extract() and assign(): either every index of a dimension
// (IndexList::all(), GraphBLAS's GrB_ALL) or an explicit list, which may repeat and
// need not be sorted for extract(); assign() rejects repeated indices.
#pragma once

#include <initializer_list>
#include <vector>

#include "geblas/types.hpp"

namespace geblas {

class IndexList {
 public:
  IndexList() = default;  // all
  IndexList(std::vector<Index> indices) : all_(false), indices_(std::move(indices)) {}  // NOLINT
  IndexList(std::initializer_list<Index> indices) : all_(false), indices_(indices) {}
  static IndexList all() { return {}; }

  bool is_all() const { return all_; }
  const std::vector<Index>& indices() const { return indices_; }
  // Length of the list over a dimension of size n.
  Index size(Index n) const { return all_ ? n : static_cast<Index>(indices_.size()); }

 private:
  bool all_ = true;
  std::vector<Index> indices_;
};

}  // namespace geblas
