// PageRank and personalized PageRank by power iteration (Page, Brin et al. 1999;
// personalized as in Haveliwala 2002), one code path for k teleport distributions:
//   R <- d P' R  +  E diag(1 - colsum(d P' R))
// where P = D_out^-1 W is the row-stochastic transition matrix (built once on the host,
// already transposed and scaled by d), R is n x k and E holds the k teleport
// distributions. The second term gives every column back the mass that teleporting and
// dangling vertices take out, along its teleport distribution, which is the standard
// definition (dangling rank follows the teleport vector) and keeps each column summing
// to 1. Per iteration: two SpMMs (the second has one entry per teleport vertex), two
// column reductions and one element-wise difference, all on A's device.
#include "geblas/algorithms/pagerank.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "algorithms/dense_steps.hpp"
#include "algorithms/host_graph.hpp"
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

template <class T>
PersonalizedPageRankResult<T> iterate(const char* name, const SparseMatrix<T>& A, const SparseMatrix<T>& E,
                                      const PageRankOptions& o) {
  const Index n = A.nrows(), k = E.ncols();
  const Device dev = A.device();
  const SparseMatrix<T> PT = damped_transition_transposed(name, A, o);
  PersonalizedPageRankResult<T> res;
  // The teleport distributions are also the starting ranks.
  {
    std::vector<T> r0(static_cast<std::size_t>(n * k), T{0});
    for (const auto& t : E.extract_tuples()) r0[static_cast<std::size_t>(t.row * k + t.col)] = t.value;
    res.ranks = DenseMatrix<T>::from_row_major(n, k, r0, dev);
  }
  DenseMatrix<T> Y(n, k, dev), diff(n, k, dev), absdiff(n, k, dev);
  for (int it = 1; it <= o.max_iterations; ++it) {
    mxm(Y, PT, res.ranks, semiring::plus_times<T>{});
    const std::vector<double> kept = detail::column_sums(Y);
    std::vector<T> restore(static_cast<std::size_t>(k * k), T{0});
    for (Index j = 0; j < k; ++j) restore[static_cast<std::size_t>(j * k + j)] = static_cast<T>(1.0 - kept[j]);
    const auto B = DenseMatrix<T>::from_row_major(k, k, restore, dev);
    mxm(Y, E, B, semiring::plus_times<T>{}, {.accum = binop::plus<T>{}});

    ewise_add(diff, Y, res.ranks, binop::minus<T>{});
    apply(absdiff, diff, unop::abs<T>{});
    const std::vector<double> change = detail::column_sums(absdiff);
    res.delta = *std::max_element(change.begin(), change.end());
    std::swap(res.ranks, Y);
    res.iterations = it;
    if (o.on_iteration) o.on_iteration(it, res.delta);
    if (res.delta < o.tolerance) {
      res.converged = true;
      break;
    }
  }
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
  auto r = iterate("pagerank", A, E, o);
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
  return iterate("personalized_pagerank", A, E, o);
}

}  // namespace

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
