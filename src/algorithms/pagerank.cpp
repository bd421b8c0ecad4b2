// PageRank and personalized PageRank (Page, Brin et al. 1999; personalized as in
// Haveliwala 2002) for k teleport distributions at once, as the columns of n x k dense
// matrices. With dangling vertices sending their rank along the teleport distribution v
// (the standard definition), the PageRank vector is the solution of
//   (I - d P') x = (1 - d) v,   normalised to sum 1
// (Langville & Meyer, "Deeper inside PageRank", 2004, section 5; P = D_out^-1 W with the
// dangling rows left empty). geblas iterates x <- d P' x + (1 - d) v, which converges at
// rate d like the power method, and normalises each column once at the end. So an
// iteration needs no rank sum on the host: one SpMM with d P' (built once on the host,
// transposed and scaled), the teleport term (a scalar add for the uniform v, else an
// SpMM with the sparse v), and the L1 change (difference, abs, one reduction: the one
// value copied to the host per iteration). On a CUDA device plain PageRank runs each
// iteration as one fused pass instead (algorithms/pagerank_step.hpp).
#include "geblas/algorithms/pagerank.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "algorithms/dense_steps.hpp"
#include "algorithms/host_graph.hpp"
#include "algorithms/pagerank_step.hpp"
#include "geblas/operations/apply.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/semiring.hpp"

namespace geblas::algo {
namespace {

void check_options(const char* name, const PageRankOptions& o) {
  if (!(o.damping >= 0 && o.damping < 1))
    throw InvalidValue(std::string("geblas::algo::") + name + ": damping " + std::to_string(o.damping) +
                       " is outside [0, 1)");
  if (!(o.tolerance >= 0))
    throw InvalidValue(std::string("geblas::algo::") + name + ": tolerance must be >= 0, got " +
                       std::to_string(o.tolerance));
  if (o.max_iterations < 1)
    throw InvalidValue(std::string("geblas::algo::") + name + ": max_iterations must be >= 1, got " +
                       std::to_string(o.max_iterations));
}

// d * P' on A's device: entry (j, i) = d * w(i, j) / sum_j w(i, j); dangling rows of P
// (no out-weight) are dropped, their mass is restored by the teleport term.
template <class T>
SparseMatrix<T> damped_transition_transposed(const char* name, const SparseMatrix<T>& A, const PageRankOptions& o) {
  detail::HostCsr<T> h = detail::host_csr(A, /*with_values=*/true);
  for (Index i = 0; i < h.n; ++i) {
    double out = 0;
    for (Index k = h.offsets[i]; k < h.offsets[i + 1]; ++k) {
      const double w = o.weighted ? static_cast<double>(h.values[k]) : 1.0;
      if (o.weighted && !(w >= 0))
        throw InvalidValue(std::string("geblas::algo::") + name + ": weight A(" + std::to_string(i) + ", " +
                           std::to_string(h.cols[k]) + ") = " + std::to_string(w) +
                           " is negative or NaN; weighted PageRank needs weights >= 0");
      out += w;
    }
    for (Index k = h.offsets[i]; k < h.offsets[i + 1]; ++k) {
      const double w = o.weighted ? static_cast<double>(h.values[k]) : 1.0;
      h.values[k] = out > 0 ? static_cast<T>(o.damping * w / out) : T{0};
    }
  }
  return detail::to_matrix(detail::transpose(h), A.device());
}

// The k columns of the result as distributions: each divided by its sum.
template <class T>
DenseMatrix<T> normalise_columns(const DenseMatrix<T>& X) {
  const Index n = X.nrows(), k = X.ncols();
  const Device dev = X.device();
  const std::vector<double> sums = detail::ColumnSums<T>(n, k, dev)(X);
  DenseMatrix<T> R(n, k, dev);
  if (k == 1) {
    apply(R, X, binop::times<T>{}, static_cast<T>(1.0 / sums[0]));
    return R;
  }
  // Broadcast the k factors to n x k with one SpMM (a column of ones times a 1 x k row).
  std::vector<T> inv(static_cast<std::size_t>(k));
  for (Index j = 0; j < k; ++j) inv[static_cast<std::size_t>(j)] = static_cast<T>(1.0 / sums[j]);
  const auto row = DenseMatrix<T>::from_row_major(1, k, inv, dev);
  std::vector<Index> r(static_cast<std::size_t>(n)), c(static_cast<std::size_t>(n), 0);
  for (Index i = 0; i < n; ++i) r[static_cast<std::size_t>(i)] = i;
  const std::vector<T> one(static_cast<std::size_t>(n), T{1});
  const auto ones = SparseMatrix<T>::from_tuples(n, 1, r, c, one, {}, dev);
  DenseMatrix<T> factors(n, k, dev);
  mxm(factors, ones, row, semiring::plus_times<T>{});
  ewise_mult(R, X, factors, binop::times<T>{});
  return R;
}

// E: the k teleport distributions (n x k, sparse); `uniform`: E is the single uniform
// column, whose term is then a scalar add.
template <class T>
PersonalizedPageRankResult<T> iterate(const char* name, const SparseMatrix<T>& A, const SparseMatrix<T>& E,
                                      bool uniform, const PageRankOptions& o) {
  const Index n = A.nrows(), k = E.ncols();
  const Device dev = A.device();
  const SparseMatrix<T> PT = damped_transition_transposed(name, A, o);
  // (1 - d) I_k: E times it adds (1 - d) v to every column.
  std::vector<T> scaled(static_cast<std::size_t>(k * k), T{0});
  for (Index j = 0; j < k; ++j) scaled[static_cast<std::size_t>(j * k + j)] = static_cast<T>(1.0 - o.damping);
  const auto teleport = DenseMatrix<T>::from_row_major(k, k, scaled, dev);
  const T uniform_term = static_cast<T>((1.0 - o.damping) / static_cast<double>(n));
  // Start from the teleport distributions: X = E I_k on the device (building the n x k
  // start on the host and copying it over cost more than the iterations themselves).
  DenseMatrix<T> X(n, k, dev);
  {
    std::vector<T> identity(static_cast<std::size_t>(k * k), T{0});
    for (Index j = 0; j < k; ++j) identity[static_cast<std::size_t>(j * k + j)] = T{1};
    mxm(X, E, DenseMatrix<T>::from_row_major(k, k, identity, dev), semiring::plus_times<T>{});
  }
  PersonalizedPageRankResult<T> res;
  // Separate input and output buffers throughout: an operation whose output is also
  // its input goes through a copy. On dense operands ewise_mult (the intersection) is
  // every entry, like ewise_add, without the union's bookkeeping.
  DenseMatrix<T> Y(n, k, dev), next(n, k, dev), diff(n, k, dev), absdiff(n, k, dev);
  detail::ColumnSums<T> column_sums(n, k, dev);
  // Plain PageRank on a backend with the fused step: one pass per iteration, which
  // writes next and returns the L1 change (the same step as the operations below).
  const detail::PageRankStep fused = uniform && dev.is_cuda() ? detail::cuda_pagerank_step() : nullptr;
  for (int it = 1; it <= o.max_iterations; ++it) {
    if (fused) {
      res.delta = fused(PT.storage(), X.storage().data.data(), next.storage().data.data(),
                        static_cast<double>(uniform_term));
      std::swap(X, next);
      res.iterations = it;
      if (o.on_iteration) o.on_iteration(it, res.delta);
      if (res.delta < o.tolerance) {
        res.converged = true;
        break;
      }
      continue;
    }
    mxm(Y, PT, X, semiring::plus_times<T>{});
    if (uniform) {
      apply(next, Y, binop::plus<T>{}, uniform_term);
    } else {
      mxm(Y, E, teleport, semiring::plus_times<T>{}, {.accum = binop::plus<T>{}});
      std::swap(next, Y);
    }
    ewise_mult(diff, next, X, binop::minus<T>{});
    apply(absdiff, diff, unop::abs<T>{});
    const std::vector<double> change = column_sums(absdiff);
    res.delta = *std::max_element(change.begin(), change.end());
    std::swap(X, next);
    res.iterations = it;
    if (o.on_iteration) o.on_iteration(it, res.delta);
    if (res.delta < o.tolerance) {
      res.converged = true;
      break;
    }
  }
  res.ranks = normalise_columns(X);
  return res;
}

template <class T>
PageRankResult<T> pagerank_impl(const SparseMatrix<T>& A, const PageRankOptions& o) {
  detail::require_square("pagerank", A.nrows(), A.ncols());
  check_options("pagerank", o);
  const Index n = A.nrows();
  PageRankResult<T> out;
  if (n == 0) {
    out.ranks = Vector<T>::dense(0, T{0}, A.device());
    out.converged = true;
    return out;
  }
  std::vector<Index> rows(static_cast<std::size_t>(n)), cols(static_cast<std::size_t>(n), 0);
  for (Index i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
  const std::vector<T> vals(static_cast<std::size_t>(n), static_cast<T>(1.0 / static_cast<double>(n)));
  const auto E = SparseMatrix<T>::from_tuples(n, 1, rows, cols, vals, {}, A.device());
  auto r = iterate("pagerank", A, E, /*uniform=*/true, o);
  out.iterations = r.iterations;
  out.converged = r.converged;
  out.delta = r.delta;
  out.ranks = detail::column_as_vector(std::move(r.ranks));
  return out;
}

template <class T>
PersonalizedPageRankResult<T> ppr_impl(const SparseMatrix<T>& A, const std::vector<std::vector<Index>>& seed_sets,
                                       const PageRankOptions& o) {
  detail::require_square("personalized_pagerank", A.nrows(), A.ncols());
  check_options("personalized_pagerank", o);
  if (seed_sets.empty()) throw InvalidValue("geblas::algo::personalized_pagerank: no seed sets given");
  const Index n = A.nrows(), k = static_cast<Index>(seed_sets.size());
  std::vector<Index> rows, cols;
  std::vector<T> vals;
  for (Index j = 0; j < k; ++j) {
    const auto& set = seed_sets[static_cast<std::size_t>(j)];
    if (set.empty())
      throw InvalidValue("geblas::algo::personalized_pagerank: seed set " + std::to_string(j) + " is empty");
    for (Index s : set) {
      detail::check_vertex("personalized_pagerank", "seed", s, n);
      rows.push_back(s);
      cols.push_back(j);
      vals.push_back(static_cast<T>(1.0 / static_cast<double>(set.size())));
    }
  }
  const auto E = SparseMatrix<T>::from_tuples(n, k, rows, cols, vals, binop::plus<T>{}, A.device());
  return iterate("personalized_pagerank", A, E, /*uniform=*/false, o);
}

}  // namespace

detail::PageRankStep& detail::cuda_pagerank_step() {
  static PageRankStep step = nullptr;
  return step;
}

PageRankResult<float> pagerank(const SparseMatrix<float>& A, const PageRankOptions& o) { return pagerank_impl(A, o); }
PageRankResult<double> pagerank(const SparseMatrix<double>& A, const PageRankOptions& o) { return pagerank_impl(A, o); }
PersonalizedPageRankResult<float> personalized_pagerank(const SparseMatrix<float>& A,
                                                        const std::vector<std::vector<Index>>& s,
                                                        const PageRankOptions& o) {
  return ppr_impl(A, s, o);
}
PersonalizedPageRankResult<double> personalized_pagerank(const SparseMatrix<double>& A,
                                                         const std::vector<std::vector<Index>>& s,
                                                         const PageRankOptions& o) {
  return ppr_impl(A, s, o);
}

}  // namespace geblas::algo
