// Argument checks every algorithm shares: a square adjacency matrix and vertex ids in
// range, reported with the algorithm's name so that a user sees which call was wrong.
#pragma once

#include <string>

#include "geblas/error.hpp"
#include "geblas/types.hpp"

namespace geblas::algo::detail {

inline void require_square(const char* algo, Index nrows, Index ncols) {
  if (nrows != ncols)
    throw DimensionMismatch(std::string("geblas::algo::") + algo + ": the adjacency matrix must be square, got " +
                            std::to_string(nrows) + " x " + std::to_string(ncols));
}

inline void check_vertex(const char* algo, const char* what, Index v, Index n) {
  if (v < 0 || v >= n)
    throw IndexOutOfBounds(std::string("geblas::algo::") + algo + ": " + what + " " + std::to_string(v) +
                           " is outside the graph's vertices [0, " + std::to_string(n) + ")");
}

}  // namespace geblas::algo::detail
