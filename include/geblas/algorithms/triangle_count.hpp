// Triangle counting on the undirected graph underlying A (pattern of A + A', self-loops
// and duplicate entries ignored). Each edge is oriented once, from its lower-ranked end
// to its higher-ranked one (ranks: vertex ids, or (degree, id) when a degree sample is
// skewed, so that no vertex keeps more than about sqrt(2 |E|) out-edges), and each
// triangle a < b < c is counted once, at a -> b, through their common out-neighbour c,
// during sorted-list intersections. Everything runs where A lives, in O(nnz) set-up
// passes plus the intersections; nothing is materialised or kept with A, so a one-shot
// call costs what a repeated one does. last_dispatch() names the ranking used.
#pragma once

#include <cstdint>

#include "geblas/sparse_matrix.hpp"

namespace geblas::algo {

// Throws DimensionMismatch when A is not square.
#define GEBLAS_ALGO_TC(T) GEBLAS_API std::int64_t triangle_count(const SparseMatrix<T>& A);
GEBLAS_ALGO_TC(bool)
GEBLAS_ALGO_TC(std::int32_t)
GEBLAS_ALGO_TC(std::int64_t)
GEBLAS_ALGO_TC(float)
GEBLAS_ALGO_TC(double)
#undef GEBLAS_ALGO_TC

}  // namespace geblas::algo
