// Breadth-first search on the pattern of A (A(i, j) an edge from i to j), giving levels
// and parents. One source: a masked product per level, w<!visited> = A' min.second q,
// switching between push (sparse frontier) and pull (dense frontier) as GraphBLAS BFS
// codes do. Many sources: one max_times SpMM per level over a dense n x k frontier.
// The parent chosen for a vertex is the smallest frontier vertex (one source) or the
// largest one (many sources); any parent at the previous level is a correct BFS tree.
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
  IterationCallback on_iteration{};
};

struct BfsResult {
  Vector<VertexId> levels;   // sparse: the reached vertices only; levels(source) = 0
  Vector<VertexId> parents;  // sparse: same pattern; parents(source) = source
  int depth = 0;             // the largest level
  double edges_examined = 0; // entries of A (push) and A' (pull) the traversal read
};

struct MultiBfsResult {
  DenseMatrix<VertexId> levels;   // n x k; -1 where column j's source does not reach
  DenseMatrix<VertexId> parents;  // n x k; -1 where not reached; the source is its own parent
  int depth = 0;
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
