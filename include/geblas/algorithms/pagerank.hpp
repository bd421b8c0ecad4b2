// PageRank and personalized PageRank by power iteration, on the CPU or the GPU
// (wherever A lives). A(i, j) is an edge from i to j. One teleport distribution runs one
// fused pass over A' per iteration; k personalized seed sets cost one SpMM of N = k per
// iteration with the damped transition matrix d * P' (P = D_out^-1 W) instead of k
// runs. A' and the out-degrees are cached with A: a second call on the same matrix
// repeats no set-up.
//
// Dangling vertices (no out-edges, or out-weights summing to 0) follow the standard
// definition: their rank is redistributed along the teleport distribution (uniform for
// plain PageRank, the seed set for personalized PageRank), as networkx does. The ranks
// of each column sum to 1.
#pragma once

#include <vector>

#include "geblas/algorithms/common.hpp"
#include "geblas/dense_matrix.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas::algo {

struct PageRankOptions {
  double damping = 0.85;     // probability of following an edge; in [0, 1)
  double tolerance = 1e-6;   // stop when the L1 change of every column is below this
  int max_iterations = 100;  // stop here even when not converged (result says so)
  bool weighted = false;     // out-edges weighted by A's values (>= 0) instead of equally
  // Called with each iteration's L1 change. One teleport distribution (plain PageRank, or
  // one seed set): after every iteration, in batches (the GPU queues several iterations
  // and reads their changes back at once). k > 1 seed sets: on the iterations whose change
  // is measured (1, 2, 4, then every 4th, and the last), the only ones that can stop the run.
  IterationCallback on_iteration{};
};

template <class T>
struct PageRankResult {
  Vector<T> ranks;          // dense, n entries, on A's device
  int iterations = 0;
  bool converged = false;
  double delta = 0;         // L1 change of the last iteration
};

template <class T>
struct PersonalizedPageRankResult {
  DenseMatrix<T> ranks;     // n x k, column j for seed set j, on A's device
  int iterations = 0;
  bool converged = false;
  double delta = 0;         // largest column L1 change of the last iteration
};

// Throws DimensionMismatch (A not square), InvalidValue (damping, tolerance or
// max_iterations out of range; with `weighted`: a weight that is negative, NaN or
// infinite, naming the entry, or a row whose finite weights sum past the type's largest
// value, naming the row: such a row has no transition probabilities in T, and geblas
// refuses it rather than treating it as dangling). Never returns NaN ranks: a rank sum
// that is not finite and positive raises Error (Info::panic). `converged` is true only
// when an iteration's L1 change fell below `tolerance`.
GEBLAS_API PageRankResult<float> pagerank(const SparseMatrix<float>& A, const PageRankOptions& options = {});
GEBLAS_API PageRankResult<double> pagerank(const SparseMatrix<double>& A, const PageRankOptions& options = {});

// One column per seed set; the teleport distribution of column j is uniform over
// seed_sets[j] (a vertex listed twice counts twice). Throws IndexOutOfBounds for a
// seed outside [0, n) and InvalidValue for an empty seed set or no seed sets.
GEBLAS_API PersonalizedPageRankResult<float> personalized_pagerank(
    const SparseMatrix<float>& A, const std::vector<std::vector<Index>>& seed_sets, const PageRankOptions& options = {});
GEBLAS_API PersonalizedPageRankResult<double> personalized_pagerank(
    const SparseMatrix<double>& A, const std::vector<std::vector<Index>>& seed_sets, const PageRankOptions& options = {});

}  // namespace geblas::algo
