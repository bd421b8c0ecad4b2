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
#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "core/graph_ops.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
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
}  // namespace geblas::algo

namespace geblas::detail {
namespace {

// Checks one dense operand of the GAT aggregation: type, device, shape and a contiguous
// row-major layout (the kernels index it as a flat array).
void check_gat_dense(const char* op, const char* what, const DenseStorage& X, TypeId type, Device device, Index rows,
                     Index cols) {
  check_type(op, what, X.type, type);
  check_device(op, what, X.device, device);
  if (X.nrows != rows || X.ncols != cols)
    throw DimensionMismatch(std::string(op) + ": " + what + " is " + shape(X.nrows, X.ncols) + ", expected " +
                            shape(rows, cols));
  if (rows > 1 && cols > 0 && (X.layout != Layout::row_major || X.ld != cols))
    throw InvalidValue(std::string(op) + ": " + what + " must be row-major and contiguous (leading dimension " +
                       std::to_string(cols) + "), got " +
                       (X.layout == Layout::row_major ? "row-major" : "column-major") + " with leading dimension " +
                       std::to_string(X.ld));
}

// The common checks of forward and backward; returns the arguments' shared part.
GatAttention gat_args(const char* op, const SparseStorage& A, const DenseStorage& el, const DenseStorage& er,
                      const DenseStorage& V, double negative_slope) {
  algo::detail::require_square(op, A.nrows, A.ncols);
  const TypeId t = V.type;
  if (t != TypeId::float32 && t != TypeId::float64)
    throw DomainMismatch(std::string(op) + ": the values must be float32 or float64, got " + std::string(to_string(t)));
  const Index n = A.nrows, H = el.ncols;
  if (H < 1) throw InvalidValue(std::string(op) + ": el must have at least one column (one per head)");
  if (V.ncols % H != 0)
    throw DimensionMismatch(std::string(op) + ": V has " + std::to_string(V.ncols) +
                            " columns, not a multiple of the head count " + std::to_string(H) + " (el's columns)");
  check_gat_dense(op, "el", el, t, A.device, n, H);
  check_gat_dense(op, "er", er, t, A.device, n, H);
  check_gat_dense(op, "V", V, t, A.device, n, V.ncols);
  if (!(negative_slope == negative_slope)) throw InvalidValue(std::string(op) + ": negative_slope is NaN");
  GatAttention g;
  g.A = &A;
  g.type = t;
  g.heads = H;
  g.features = V.ncols / H;
  g.negative_slope = negative_slope;
  g.el = el.data.data();
  g.er = er.data.data();
  g.V = V.data.data();
  return g;
}

}  // namespace

void gat_attention(DenseStorage& Y, DenseStorage& alpha, const SparseStorage& A, const DenseStorage& el,
                   const DenseStorage& er, const DenseStorage& V, double negative_slope) {
  constexpr const char* op = "gat_attention";
  GatAttention g = gat_args(op, A, el, er, V, negative_slope);
  check_gat_dense(op, "Y", Y, g.type, A.device, A.nrows, V.ncols);
  check_gat_dense(op, "alpha", alpha, g.type, A.device, A.nvals, g.heads);
  const Backend& be = backend_for(A.device);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  rec.variant = "none";  // the entry names the one that runs
  g.Y = Y.data.data();
  g.alpha = alpha.data.data();
  if (A.nrows > 0 && V.ncols > 0) required(be.gat_forward, op, A.device)(g);
  end_dispatch();
}

void gat_attention_backward(DenseStorage& dV, DenseStorage& d_el, DenseStorage& d_er, const SparseStorage& A,
                            const DenseStorage& el, const DenseStorage& er, const DenseStorage& V,
                            const DenseStorage& alpha, const DenseStorage& dY, double negative_slope) {
  constexpr const char* op = "gat_attention_backward";
  GatAttention g = gat_args(op, A, el, er, V, negative_slope);
  check_gat_dense(op, "alpha", alpha, g.type, A.device, A.nvals, g.heads);
  check_gat_dense(op, "dY", dY, g.type, A.device, A.nrows, V.ncols);
  check_gat_dense(op, "dV", dV, g.type, A.device, A.nrows, V.ncols);
  check_gat_dense(op, "d_el", d_el, g.type, A.device, A.nrows, g.heads);
  check_gat_dense(op, "d_er", d_er, g.type, A.device, A.nrows, g.heads);
  const Backend& be = backend_for(A.device);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  rec.variant = "none";  // the entry names the one that runs
  g.alpha = const_cast<void*>(alpha.data.data());
  g.dY = dY.data.data();
  g.dV = dV.data.data();
  g.d_el = d_el.data.data();
  g.d_er = d_er.data.data();
  if (A.nrows > 0 && V.ncols > 0) required(be.gat_backward, op, A.device)(g);
  end_dispatch();
}

}  // namespace geblas::detail

namespace geblas::algo {

#define GEBLAS_ALGO_GNN_DEF(T)                                                                                        \
  SparseMatrix<T> gcn_normalize(const SparseMatrix<T>& A) { return gcn_normalize_impl(A); }                           \
  void gcn_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A_hat, const DenseMatrix<T>& X) {                      \
    check_shapes("gcn_aggregate", A_hat.nrows(), A_hat.ncols(), Y.nrows(), Y.ncols(), X.nrows(), X.ncols());          \
    mxm(Y, A_hat, X, semiring::plus_times<T>{});                                                                      \
  }                                                                                                                   \
  void sage_mean_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A, const DenseMatrix<T>& X) {                    \
    sage_mean_impl(Y, A, X);                                                                                          \
  }                                                                                                                   \
  void sage_max_aggregate(DenseMatrix<T>& Y, const SparseMatrix<T>& A, const DenseMatrix<T>& X) {                     \
    check_shapes("sage_max_aggregate", A.nrows(), A.ncols(), Y.nrows(), Y.ncols(), X.nrows(), X.ncols());             \
    mxm(Y, A, X, semiring::max_times<T>{});                                                                           \
  }                                                                                                                   \
  void gat_attention(DenseMatrix<T>& Y, DenseMatrix<T>& alpha, const SparseMatrix<T>& A, const DenseMatrix<T>& el,    \
                     const DenseMatrix<T>& er, const DenseMatrix<T>& V, double negative_slope) {                      \
    Y = DenseMatrix<T>(A.nrows(), V.ncols(), A.device());                                                             \
    alpha = DenseMatrix<T>(A.nvals(), el.ncols(), A.device());                                                        \
    geblas::detail::gat_attention(Y.storage(), alpha.storage(), A.storage(), el.storage(), er.storage(), V.storage(), \
                                  negative_slope);                                                                    \
  }                                                                                                                   \
  void gat_attention_backward(DenseMatrix<T>& dV, DenseMatrix<T>& d_el, DenseMatrix<T>& d_er,                         \
                              const SparseMatrix<T>& A, const DenseMatrix<T>& el, const DenseMatrix<T>& er,           \
                              const DenseMatrix<T>& V, const DenseMatrix<T>& alpha, const DenseMatrix<T>& dY,         \
                              double negative_slope) {                                                                \
    dV = DenseMatrix<T>(A.nrows(), V.ncols(), A.device());                                                            \
    d_el = DenseMatrix<T>(A.nrows(), el.ncols(), A.device());                                                         \
    d_er = DenseMatrix<T>(A.nrows(), el.ncols(), A.device());                                                         \
    geblas::detail::gat_attention_backward(dV.storage(), d_el.storage(), d_er.storage(), A.storage(), el.storage(),   \
                                           er.storage(), V.storage(), alpha.storage(), dY.storage(), negative_slope); \
  }
GEBLAS_ALGO_GNN_DEF(float)
GEBLAS_ALGO_GNN_DEF(double)
#undef GEBLAS_ALGO_GNN_DEF

}  // namespace geblas::algo
