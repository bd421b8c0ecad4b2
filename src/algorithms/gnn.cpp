// GNN neighbourhood aggregation as semiring SpMMs: GCN's symmetric normalisation
// (Kipf & Welling, ICLR 2017), GraphSAGE's mean and max-pool aggregators (Hamilton,
// Ying & Leskovec, NeurIPS 2017). The normalised GCN matrix is built once on the host
// from A's pattern; the aggregations are products on A's device.
#include "geblas/algorithms/gnn.hpp"

#include <cmath>
#include <string>

#include "algorithms/host_graph.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/semiring.hpp"

namespace geblas::algo {
namespace {

template <class T>
SparseMatrix<T> gcn_normalize_impl(const SparseMatrix<T>& A) {
  detail::require_square("gcn_normalize", A.nrows(), A.ncols());
  const auto h = detail::host_csr(A, false);
  // A + I over the pattern: every row gains its diagonal entry (kept once if present).
  detail::HostCsr<T> s;
  s.n = h.n;
  s.offsets.assign(static_cast<std::size_t>(h.n + 1), 0);
  for (Index i = 0; i < h.n; ++i) {
    bool diagonal_done = false;
    for (Index k = h.offsets[i]; k <= h.offsets[i + 1]; ++k) {
      const bool end = k == h.offsets[i + 1];
      if (!diagonal_done && (end || h.cols[k] >= i)) {
        s.cols.push_back(static_cast<ColIndex>(i));
        diagonal_done = true;
        if (!end && h.cols[k] == i) continue;
      }
      if (!end) s.cols.push_back(h.cols[k]);
    }
    s.offsets[i + 1] = static_cast<Index>(s.cols.size());
  }
  std::vector<double> inv_sqrt(static_cast<std::size_t>(h.n));
  for (Index i = 0; i < h.n; ++i)
    inv_sqrt[static_cast<std::size_t>(i)] = 1.0 / std::sqrt(static_cast<double>(s.offsets[i + 1] - s.offsets[i]));
  s.values.resize(s.cols.size());
  for (Index i = 0; i < h.n; ++i)
    for (Index k = s.offsets[i]; k < s.offsets[i + 1]; ++k)
      s.values[k] = static_cast<T>(inv_sqrt[static_cast<std::size_t>(i)] * inv_sqrt[static_cast<std::size_t>(s.cols[k])]);
  return detail::to_matrix(s, A.device());
}

void check_shapes(const char* name, Index an, Index am, Index yr, Index yc, Index xr, Index xc) {
  if (am != xr || an != yr || xc != yc)
    throw DimensionMismatch(std::string("geblas::algo::") + name + ": A is " + std::to_string(an) + " x " +
                            std::to_string(am) + ", X is " + std::to_string(xr) + " x " + std::to_string(xc) +
                            ", Y is " + std::to_string(yr) + " x " + std::to_string(yc) +
                            "; need Y (n x f) = A (n x n) X (n x f)");
}

template <class T>
void sage_mean_impl(DenseMatrix<T>& Y, const SparseMatrix<T>& A, const DenseMatrix<T>& X) {
  check_shapes("sage_mean_aggregate", A.nrows(), A.ncols(), Y.nrows(), Y.ncols(), X.nrows(), X.ncols());
  DenseMatrix<T> sums(Y.nrows(), Y.ncols(), Y.device());
  mxm(sums, A, X, semiring::plus_second<T>{});
  // 1 / out-degree on the diagonal; an isolated vertex's row stays empty, giving 0.
  const std::vector<Index> offsets = A.row_offsets();
  std::vector<Tuple<T>> diag;
  for (Index i = 0; i < A.nrows(); ++i)
    if (const Index d = offsets[i + 1] - offsets[i]; d > 0)
      diag.push_back({i, i, static_cast<T>(1.0 / static_cast<double>(d))});
  const auto scale = SparseMatrix<T>::from_tuples(A.nrows(), A.nrows(), diag, {}, A.device());
  mxm(Y, scale, sums, semiring::plus_times<T>{});
}

}  // namespace

#define GEBLAS_ALGO_GNN_DEF(T)                                                                     \
  SparseMatrix<T> gcn_normalize(const SparseMatrix<T>& A) { return gcn_normalize_impl(A); }       \
  void gcn_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A_hat, const DenseMatrix<T>& X) {  \
    check_shapes("gcn_aggregate", A_hat.nrows(), A_hat.ncols(), Y.nrows(), Y.ncols(), X.nrows(), X.ncols()); \
    mxm(Y, A_hat, X, semiring::plus_times<T>{});                                                  \
  }                                                                                              \
  void sage_mean_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A, const DenseMatrix<T>& X) { \
    sage_mean_impl(Y, A, X);                                                                      \
  }                                                                                              \
  void sage_max_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A, const DenseMatrix<T>& X) { \
    check_shapes("sage_max_aggregate", A.nrows(), A.ncols(), Y.nrows(), Y.ncols(), X.nrows(), X.ncols()); \
    mxm(Y, A, X, semiring::max_times<T>{});                                                       \
  }
GEBLAS_ALGO_GNN_DEF(float)
GEBLAS_ALGO_GNN_DEF(double)
#undef GEBLAS_ALGO_GNN_DEF

}  // namespace geblas::algo
