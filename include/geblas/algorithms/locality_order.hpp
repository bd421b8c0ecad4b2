// A vertex order that improves the memory locality of products by a graph's adjacency
// matrix: reverse Cuthill-McKee on the pattern of A + A'. Neighbours get nearby ids, so
// the rows of B that one row of A (or a few consecutive rows) gathers lie close together
// and stay in cache between rows. The caller applies it by renaming the vertices:
//
//   const std::vector<Index> order = algo::locality_order(A);  // order[new] = old
//   SparseMatrix<T> P(n, n, A.device());
//   extract(P, A, order, order);  // P(i, j) = A(order[i], order[j])
//
// and reads row order[i] of B where row i is meant (P * B' with B'(i, :) = B(order[i], :)
// gives the rows of A * B in the new order). It pays where B does not fit in cache and
// the graph has locality to find (meshes, road networks, graphs whose ids were assigned
// at random); a graph whose ids already follow its structure gains little, and an
// expander (uniform random graph) has none to find. docs/PERFORMANCE.md gives its cost
// and what it gained on the bench's graphs.
//
// Runs on the host over A's structure (copied there when A lives on a GPU): O(nnz) time
// and memory beside the sorting of each vertex's newly reached neighbours by degree.
// Components are taken smallest starting degree first, each from a pseudo-peripheral
// vertex (George and Liu's search); ties go to the smaller id, so the order is
// deterministic. Self-loops and the values are ignored. Throws DimensionMismatch when A
// is not square.
#pragma once

#include <cstdint>
#include <vector>

#include "geblas/sparse_matrix.hpp"

namespace geblas::algo {

#define GEBLAS_ALGO_LOCALITY(T) GEBLAS_API std::vector<Index> locality_order(const SparseMatrix<T>& A);
GEBLAS_ALGO_LOCALITY(bool)
GEBLAS_ALGO_LOCALITY(std::int32_t)
GEBLAS_ALGO_LOCALITY(std::int64_t)
GEBLAS_ALGO_LOCALITY(float)
GEBLAS_ALGO_LOCALITY(double)
#undef GEBLAS_ALGO_LOCALITY

}  // namespace geblas::algo
