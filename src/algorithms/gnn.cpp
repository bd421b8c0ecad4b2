// GNN neighbourhood aggregation as semiring SpMMs: GCN's symmetric normalisation
// (Kipf & Welling, ICLR 2017), GraphSAGE's mean and max-pool aggregators (Hamilton,
// Ying & Leskovec, NeurIPS 2017). The degree scalings are folded into the sparse
// matrix, so each aggregation is one product: Â = D^-1/2 (A + I) D^-1/2 and the mean
// matrix D^-1 A are built on A's device (row lengths by a plus reduce over the pattern,
// the scaling by the scale_sparse entry of core/graph_kernels.hpp); the mean matrix is
// kept in A's derived cache, so repeated layers on one graph pay for it once.
#include "geblas/algorithms/gnn.hpp"

#include <string>

#include "algorithms/checks.hpp"
#include "core/derived_cache.hpp"
#include "core/graph_ops.hpp"
#include "geblas/operations/apply.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/operations/reduce.hpp"
#include "geblas/semiring.hpp"

namespace geblas::algo {
namespace {

using geblas::detail::SparseStorage;

// The key of the GraphSAGE mean matrix in A's derived cache.
constexpr const char* sage_mean_key = "algo:sage_mean";

// A's pattern (with its missing diagonal added when `unit_diagonal`) holding ones.
template <class T>
SparseMatrix<T> ones_pattern(const SparseMatrix<T>& A, bool unit_diagonal) {
  return SparseMatrix<T>(geblas::detail::diagonal_scaled(A.storage(), type_id<T>, nullptr, nullptr,
                                                         /*pattern_only=*/true, unit_diagonal));
}

// f(row length) for every row of the ones matrix P, as a dense vector on P's device.
template <class T, class Op>
Vector<T> row_lengths_then(const SparseMatrix<T>& P, Op) {
  const Device dev = P.device();
  Vector<T> len(geblas::detail::make_dense_vector(P.nrows(), type_id<T>, dev));
  reduce(len, P, monoid::plus<T>{});  // an empty row gives plus's identity, 0
  Vector<T> out(geblas::detail::make_dense_vector(P.nrows(), type_id<T>, dev));
  apply(out, len, Op{});
  return out;
}

template <class T>
SparseMatrix<T> gcn_normalize_impl(const SparseMatrix<T>& A) {
  detail::require_square("gcn_normalize", A.nrows(), A.ncols());
  const SparseMatrix<T> with_self = ones_pattern(A, /*unit_diagonal=*/true);
  // Every row of A + I is non-empty, so each length is >= 1 and its root is finite.
  const Vector<T> root = row_lengths_then(with_self, unop::sqrt<T>{});
  Vector<T> inv_root(geblas::detail::make_dense_vector(A.nrows(), type_id<T>, A.device()));
  apply(inv_root, root, unop::minv<T>{});
  const geblas::detail::VectorStorage& d = inv_root.storage();
  return SparseMatrix<T>(geblas::detail::diagonal_scaled(with_self.storage(), type_id<T>, &d, &d,
                                                         /*pattern_only=*/true, /*unit_diagonal=*/false));
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
  const auto mean = geblas::detail::derived<SparseMatrix<T>>(A.storage(), sage_mean_key, [&] {
    // 1 / out-degree per row; an isolated row's 1/0 is never read, its row being empty.
    const Vector<T> inv_degree = row_lengths_then(ones_pattern(A, false), unop::minv<T>{});
    return SparseMatrix<T>(geblas::detail::diagonal_scaled(A.storage(), type_id<T>, &inv_degree.storage(), nullptr,
                                                           /*pattern_only=*/true, /*unit_diagonal=*/false));
  });
  mxm(Y, *mean, X, semiring::plus_times<T>{});  // an empty row gives plus's identity, 0
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
