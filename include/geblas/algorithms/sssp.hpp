// Shortest paths on A's device. A(i, j) is an edge from i to j of weight A(i, j);
// unreachable vertices hold +inf (the largest value for integers).
//
// One source with weights >= 0: frontier relaxation in near-far order (Davidson et al.
// 2014, a two-bucket delta-stepping, the bucket width a multiple of the mean weight),
// run on the device without a host round trip per round; a road graph relaxes each
// edge about once. With allow_negative, and for many sources: Bellman-Ford rounds over
// min_plus (one vxm per round for one source, one min_plus SpMM with N = k per round
// for k sources), stopping at the first round that changes nothing.
//
// Negative weights are an InvalidValue error unless allow_negative is set; then a
// negative cycle reachable from a source is reported as an InvalidValue error after n
// rounds, never as a wrong answer. A NaN weight anywhere in A is an InvalidValue error.
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
  int rounds = 0;           // frontier expansions (near-far) or Bellman-Ford rounds run
  double edges_relaxed = 0; // entries of A scanned by the relaxations (nnz(A) per Bellman-Ford round)
};

template <class T>
struct MultiSsspResult {
  DenseMatrix<T> distances; // n x k, column j from sources[j], on A's device
  int rounds = 0;
};

// Throws DimensionMismatch (A not square), IndexOutOfBounds (a source outside [0, n)),
// InvalidValue (negative weight without allow_negative; NaN weight; negative cycle; no
// sources; a distance that passes the type's largest value: a sum of finite weights that
// overflowed, naming the source and the vertex). +inf in the result therefore always
// means unreachable (an edge of weight +inf is no path), never an overflowed distance.
// on_iteration: once per Bellman-Ford round (entries changed); for the near-far run once
// at the end, with (rounds, edges relaxed).
GEBLAS_API SsspResult<float> sssp(const SparseMatrix<float>& A, Index source, const SsspOptions& options = {});
GEBLAS_API SsspResult<double> sssp(const SparseMatrix<double>& A, Index source, const SsspOptions& options = {});
GEBLAS_API MultiSsspResult<float> sssp(const SparseMatrix<float>& A, const std::vector<Index>& sources,
                                       const SsspOptions& options = {});
GEBLAS_API MultiSsspResult<double> sssp(const SparseMatrix<double>& A, const std::vector<Index>& sources,
                                        const SsspOptions& options = {});

}  // namespace geblas::algo
