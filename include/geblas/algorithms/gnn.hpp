// Neighbourhood aggregation of graph neural network layers, as semiring SpMMs over the
// feature matrix X (n x f, one row per vertex). A(i, j) is an edge from i to j and row i
// aggregates over i's out-neighbours (for an undirected graph: its neighbours).
//   GCN (Kipf & Welling):  Y = Â X with Â = D^-1/2 (A + I) D^-1/2 over A's pattern, D the
//                          row sums of A + I; build Â once with gcn_normalize() (on A's
//                          device), then each gcn_aggregate is one plus_times SpMM.
//   GraphSAGE mean:        Y(i,:) = mean of X(j,:) over neighbours j (A's values are not
//                          read); 0 for isolated i. One plus_times SpMM with D^-1 A (A's
//                          pattern scaled by 1 / out-degree), a matrix built on A's device
//                          on the first call and kept in A's derived cache until A changes.
//   GraphSAGE max (pool):  Y(i,:) = max over neighbours j of A(i,j) * X(j,:) (max_times;
//                          a pattern matrix gives the plain max); isolated rows hold -inf,
//                          the identity of max, as every dense output in geblas does.
// Everything runs where A lives; X and Y must be there too.
#pragma once

#include "geblas/dense_matrix.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas::algo {

#define GEBLAS_ALGO_GNN(T)                                                                         \
  GEBLAS_API SparseMatrix<T> gcn_normalize(const SparseMatrix<T>& A);                            \
  GEBLAS_API void gcn_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A_hat, const DenseMatrix<T>& X); \
  GEBLAS_API void sage_mean_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A, const DenseMatrix<T>& X); \
  GEBLAS_API void sage_max_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A, const DenseMatrix<T>& X);
GEBLAS_ALGO_GNN(float)
GEBLAS_ALGO_GNN(double)
#undef GEBLAS_ALGO_GNN

}  // namespace geblas::algo
