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
//   GAT (Velickovic et al., ICLR 2018), fused multi-head attention: with H heads of F
//                          features, per-vertex scores el, er (n x H) and values V
//                          (n x H F, head h in columns h F .. h F + F - 1):
//                            e_ij^h = leaky_relu(el_i^h + er_j^h), alpha_i.^h = softmax
//                            over row i's stored j, Y_i^h = sum_j alpha_ij^h V_j^h,
//                          in one pass over each row of A (A's values are not read). The
//                          forward also returns alpha (nnz x H, in A's CSR order), the one
//                          edge-sized array, which the backward reads. A row of A without
//                          entries gives Y_i = 0; a row whose scores are all -inf gives
//                          alpha = 0 there and Y_i = 0. The backward's sums over a column
//                          (dV, d_er) run in parallel per column on the CPU and with atomic
//                          adds on the GPU (so GPU gradients may differ in rounding from
//                          run to run). float32 and float64.
// Everything runs where A lives; X and Y must be there too.
#pragma once

#include "geblas/dense_matrix.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas::detail {
// The GAT aggregation on storages, for the bindings: every dense array row-major and
// contiguous, of one type (float32 or float64), on A's device (A may hold any type);
// the outputs are given with their shapes (Y n x H F, alpha nnz x H; dV n x H F, d_el and
// d_er n x H) and written in place.
GEBLAS_API void gat_attention(DenseStorage& Y, DenseStorage& alpha, const SparseStorage& A, const DenseStorage& el,
                              const DenseStorage& er, const DenseStorage& V, double negative_slope);
GEBLAS_API void gat_attention_backward(DenseStorage& dV, DenseStorage& d_el, DenseStorage& d_er, const SparseStorage& A,
                                       const DenseStorage& el, const DenseStorage& er, const DenseStorage& V,
                                       const DenseStorage& alpha, const DenseStorage& dY, double negative_slope);
}  // namespace geblas::detail

namespace geblas::algo {

#define GEBLAS_ALGO_GNN(T)                                                                                             \
  GEBLAS_API SparseMatrix<T> gcn_normalize(const SparseMatrix<T>& A);                                                  \
  GEBLAS_API void gcn_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A_hat, const DenseMatrix<T>& X);             \
  GEBLAS_API void sage_mean_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A, const DenseMatrix<T>& X);           \
  GEBLAS_API void sage_max_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A, const DenseMatrix<T>& X);            \
  /* Y (n x H F) and alpha (nnz x H) are replaced; the heads are el's columns. */                                      \
  GEBLAS_API void gat_attention(DenseMatrix<T>& Y, DenseMatrix<T>& alpha, const SparseMatrix<T>& A,                    \
                                const DenseMatrix<T>& el, const DenseMatrix<T>& er, const DenseMatrix<T>& V,           \
                                double negative_slope = 0.2);                                                          \
  /* Given dY (the gradient of Y) and the forward's alpha: dV, d_el and d_er (replaced). */                            \
  GEBLAS_API void gat_attention_backward(DenseMatrix<T>& dV, DenseMatrix<T>& d_el, DenseMatrix<T>& d_er,               \
                                         const SparseMatrix<T>& A, const DenseMatrix<T>& el, const DenseMatrix<T>& er, \
                                         const DenseMatrix<T>& V, const DenseMatrix<T>& alpha,                         \
                                         const DenseMatrix<T>& dY, double negative_slope = 0.2);
GEBLAS_ALGO_GNN(float)
GEBLAS_ALGO_GNN(double)
#undef GEBLAS_ALGO_GNN

}  // namespace geblas::algo
