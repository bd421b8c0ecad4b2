// Breadth-first search on the pattern of A (A(i, j) an edge from i to j; stored zeros
// are edges too), giving levels and parents. The traversal runs on A's device: push
// from a small frontier through A, pull through A' (cached with A) when the frontier is
// large (Beamer's direction optimisation), O(V + E) work in all, with no host round
// trip per level on a GPU. Many sources: one traversal each (one for all on a GPU).
// Every reached vertex's parent is its smallest in-neighbour on the previous level
// (one source and many sources alike), so results do not depend on the direction or
// the thread schedule.
#pragma once

#include <cstdint>
#include <vector>

#include "geblas/algorithms/common.hpp"
#include "geblas/dense_matrix.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas::algo {

enum class BfsDirection : std::uint8_t {
  automatic,  // push while the frontier is small, pull when it is large
  push,
  pull,
};

struct BfsOptions {
  BfsDirection direction = BfsDirection::automatic;
  // Called once per level after the traversal, with the vertices first reached there
  // (summed over the sources for many sources).
  IterationCallback on_iteration{};
};

struct BfsResult {
  Vector<VertexId> levels;   // sparse: the reached vertices only; levels(source) = 0
  Vector<VertexId> parents;  // sparse: same pattern; parents(source) = source
  int depth = 0;             // the largest level
  double edges_examined = 0; // entries of A (push) and A' (pull) the traversal read
};

struct MultiBfsResult {
  DenseMatrix<VertexId> levels;   // n x k (column-major), column j from sources[j]; -1 where column j's source does not reach
  DenseMatrix<VertexId> parents;  // n x k; -1 where not reached; the source is its own parent
  int depth = 0;                  // the largest level over all sources
  double edges_examined = 0;      // summed over the sources
};

// Throws DimensionMismatch (A not square), IndexOutOfBounds (a source outside
// [0, n)), InvalidValue (no sources).
#define GEBLAS_ALGO_BFS(T)                                                                             \
  GEBLAS_API BfsResult bfs(const SparseMatrix<T>& A, Index source, const BfsOptions& options = {}); \
  GEBLAS_API MultiBfsResult bfs(const SparseMatrix<T>& A, const std::vector<Index>& sources,         \
                                const BfsOptions& options = {});
GEBLAS_ALGO_BFS(bool)
GEBLAS_ALGO_BFS(std::int32_t)
GEBLAS_ALGO_BFS(std::int64_t)
GEBLAS_ALGO_BFS(float)
GEBLAS_ALGO_BFS(double)
#undef GEBLAS_ALGO_BFS

}  // namespace geblas::algo
