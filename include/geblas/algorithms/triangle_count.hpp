// Triangle counting on the undirected graph underlying A (pattern of A + A', self-loops
// ignored): with L its strictly lower triangle, the count is the sum of C<L> = L plus.pair
// L (the "Sandia LL" method: every triangle i > j > k is counted once, at L(i, k)).
// The masked sparse x sparse product runs wherever A lives.
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
