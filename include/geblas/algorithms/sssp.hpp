// Single-source shortest paths by Bellman-Ford over the min_plus semiring, with an
// early exit as soon as a round changes nothing: one vxm per round for one source, one
// min_plus SpMM (N = k) per round for k sources. A(i, j) is an edge from i to j of
// weight A(i, j). Unreachable vertices hold +inf (the largest value for integers).
//
// Negative weights are an InvalidValue error unless allow_negative is set; then a
// negative cycle reachable from a source is reported as an InvalidValue error after n
// rounds, never as a wrong answer.
#pragma once

#include <vector>

#include "geblas/algorithms/common.hpp"
#include "geblas/dense_matrix.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas::algo {

struct SsspOptions {
  bool allow_negative = false;
  IterationCallback on_iteration{};
};

template <class T>
struct SsspResult {
  Vector<T> distances;      // dense, n entries, on A's device
  int rounds = 0;           // relaxation rounds run (the last changed nothing)
  double edges_relaxed = 0; // entries of A scanned by the relaxations (nnz(A) per full round)
};

template <class T>
struct MultiSsspResult {
  DenseMatrix<T> distances; // n x k, column j from sources[j], on A's device
  int rounds = 0;
};

// Throws DimensionMismatch (A not square), IndexOutOfBounds (a source outside [0, n)),
// InvalidValue (negative weight without allow_negative; negative cycle; no sources).
GEBLAS_API SsspResult<float> sssp(const SparseMatrix<float>& A, Index source, const SsspOptions& options = {});
GEBLAS_API SsspResult<double> sssp(const SparseMatrix<double>& A, Index source, const SsspOptions& options = {});
GEBLAS_API MultiSsspResult<float> sssp(const SparseMatrix<float>& A, const std::vector<Index>& sources,
                                       const SsspOptions& options = {});
GEBLAS_API MultiSsspResult<double> sssp(const SparseMatrix<double>& A, const std::vector<Index>& sources,
                                        const SsspOptions& options = {});

}  // namespace geblas::algo
