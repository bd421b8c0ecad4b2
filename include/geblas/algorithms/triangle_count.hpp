// Triangle counting on the undirected graph underlying A (pattern of A + A', self-loops
// and duplicate entries ignored). With L an acyclic orientation of that graph in which
// each edge points to its end of higher (degree, id) -- so no vertex keeps more than
// about sqrt(2|E|) out-edges -- the count is the sum of C<L> = L plus.pair L': each
// triangle a < b < c is counted once, at L(a, b), through their common neighbour c.
// Everything runs where A lives. The oriented pattern L is built with geblas operations
// on A's device and kept in A's derived cache, so a second call on the same matrix pays
// only the masked product; any operation that writes A drops it.
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
