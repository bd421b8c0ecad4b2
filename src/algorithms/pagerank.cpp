// PageRank and personalized PageRank (Page, Brin et al. 1999; personalized as in
// Haveliwala 2002) for k teleport distributions at once, as the columns of n x k dense
// matrices. With dangling vertices sending their rank along the teleport distribution v
// (the standard definition), the PageRank vector is the solution of
//   (I - d P') x = (1 - d) v,   normalised to sum 1
// (Langville & Meyer, "Deeper inside PageRank", 2004, section 5; P = D_out^-1 W with the
// dangling rows left empty). geblas iterates x <- d P' x + (1 - d) v, which converges at
// rate d like the power method, and normalises each column once at the end.
//
// Everything runs on A's device. The set-up is A' (the cached transpose, or A itself for
// an unweighted PageRank on a pattern known to be symmetric) and 1 / out(j)
// (a row reduction), both kept in A's derived cache, so a second call on the same
// matrix pays none of it. One teleport distribution (plain PageRank, or one seed set)
// iterates with the backend's fused step (graph_kernels.hpp), which never builds the
// scaled matrix: it pulls x .* d/out over A' and writes the next x and its scaled copy
// in one pass, and queues iterations in batches so that the host waits once per batch.
// k > 1 seed sets iterate one SpMM per iteration with d P' (A' with its columns scaled,
// built on the device and cached per damping factor).
#include "geblas/algorithms/pagerank.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "algorithms/checks.hpp"
#include "algorithms/dense_steps.hpp"
#include "algorithms/pagerank_loop.hpp"
#include "core/derived_cache.hpp"
#include "core/graph_ops.hpp"
#include "geblas/operations/apply.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/operations/reduce.hpp"
#include "geblas/operations/select.hpp"
#include "geblas/operations/transpose.hpp"
#include "geblas/semiring.hpp"

namespace geblas::algo {
namespace {

using geblas::detail::SparseStorage;
using geblas::detail::VectorStorage;

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

// Weighted PageRank needs finite weights >= 0: the first entry that is negative, NaN or
// infinite is named (this reads entries back to the host only to build the message).
template <class T>
void check_weights(const char* name, const SparseMatrix<T>& A) {
  SparseMatrix<T> nonnegative(A.nrows(), A.ncols(), A.device()), good(A.nrows(), A.ncols(), A.device());
  select(nonnegative, A, selectop::value_ge<T>{T(0)});
  select(good, nonnegative, selectop::value_le<T>{std::numeric_limits<T>::max()});
  if (good.nvals() == A.nvals()) return;
  for (const auto& t : A.extract_tuples())
    if (!(t.value >= T(0) && t.value <= std::numeric_limits<T>::max()))
      throw InvalidValue(std::string("geblas::algo::") + name + ": weight A(" + std::to_string(t.row) + ", " +
                         std::to_string(t.col) + ") = " + std::to_string(static_cast<double>(t.value)) +
                         " is negative, NaN or infinite; weighted PageRank needs finite weights >= 0");
}

// A row whose finite weights sum past the type's largest value has no usable transition
// probabilities (1 / out would be 0 and the row would count as dangling): an error naming
// the row, never a silently different ranking.
template <class T>
void check_out_weights(const char* name, const Vector<T>& out) {
  if (out.nvals() == 0 || reduce(out, monoid::max<T>{}) <= std::numeric_limits<T>::max()) return;
  for (const auto& [row, sum] : out.extract_tuples())
    if (!(sum <= std::numeric_limits<T>::max()))
      throw InvalidValue(std::string("geblas::algo::") + name + ": the out-weights of row " + std::to_string(row) +
                         " sum past the largest " + std::string(to_string(type_id<T>)) +
                         " value (each weight is finite, their sum is not); divide the weights by a common factor");
}

// 1 / out(j) for every vertex, 0 where j has no out-weight: a dense vector on A's
// device, kept in A's derived cache (per weighting).
template <class T>
std::shared_ptr<const VectorStorage> inverse_out_weights(const char* name, const SparseMatrix<T>& A, bool weighted) {
  const std::string key = weighted ? "algo:pagerank:inverse_out_weight" : "algo:pagerank:inverse_out_degree";
  return geblas::detail::derived<VectorStorage>(A.storage(), key, [&] {
    Vector<T> out(A.nrows(), A.device());
    if (weighted) {
      check_weights(name, A);
      reduce(out, A, monoid::plus<T>{});
      check_out_weights(name, out);
    } else {
      SparseMatrix<T> ones(A.nrows(), A.ncols(), A.device());
      apply(ones, A, unop::one<T>{});
      reduce(out, ones, monoid::plus<T>{});
    }
    Vector<T> positive(A.nrows(), A.device()), inverse(A.nrows(), A.device());
    select(positive, out, selectop::value_gt<T>{T(0)});  // rows with out-weight 0 stay absent
    apply(inverse, positive, unop::minv<T>{});
    return inverse.densified(T(0)).storage();
  });
}

// The matrix PageRank pulls through: A' when it is cached with A; else A itself when the
// values are not read (unweighted) and A's pattern is symmetric (known from the reader
// or an earlier test, or tested now where A's backend has the test: about two reads per
// entry, against a transpose's scatter of every entry, and a directed pattern usually
// fails its first probes), since A' then has A's pattern; else A', built and cached. The
// result does not own A; it lives within the call.
template <class T>
std::shared_ptr<const SparseStorage> pull_matrix(const SparseMatrix<T>& A, bool weighted) {
  if (auto At = geblas::detail::cached_transpose_if_any(A.storage())) return At;
  if (!weighted && geblas::detail::pattern_symmetric_tested(A.storage()).value_or(false))
    return std::shared_ptr<const SparseStorage>(std::shared_ptr<const SparseStorage>{}, &A.storage());
  return geblas::detail::cached_transpose(A.storage());
}

// d P' = A' with column j scaled by d / out(j), for the SpMM of k seed sets; cached per
// weighting and damping factor.
template <class T>
std::shared_ptr<const SparseStorage> damped_transition_transposed(const SparseMatrix<T>& A, const VectorStorage& scale,
                                                                  const PageRankOptions& o) {
  const std::string key = std::string("algo:pagerank:transition:") + (o.weighted ? "w:" : "u:") + std::to_string(o.damping);
  return geblas::detail::derived<SparseStorage>(A.storage(), key, [&] {
    const auto At = pull_matrix(A, o.weighted);
    return geblas::detail::diagonal_scaled(*At, type_id<T>, nullptr, &scale, !o.weighted, /*unit_diagonal=*/false);
  });
}

template <class T>
Vector<T> filled(Index n, T value, Device dev) {
  return Vector<T>(n, dev).densified(value);
}

// d / out(j), cached with A per weighting and damping factor.
template <class T>
std::shared_ptr<const VectorStorage> damped_scale(const char* name, const SparseMatrix<T>& A, const PageRankOptions& o) {
  const std::string key = std::string("algo:pagerank:scale:") + (o.weighted ? "w:" : "u:") + std::to_string(o.damping);
  return geblas::detail::derived<VectorStorage>(A.storage(), key, [&] {
    const Vector<T> inv_out(VectorStorage(*inverse_out_weights(name, A, o.weighted)));
    Vector<T> scale = filled<T>(A.nrows(), T(0), A.device());
    apply(scale, inv_out, binop::times<T>{}, static_cast<T>(o.damping));
    return scale.storage();
  });
}

// A dense vector of n values of T on `dev`, contents unspecified (every entry is written
// before it is read).
template <class T>
VectorStorage dense_buffer(Index n, Device dev) {
  return geblas::detail::make_dense_vector(n, type_id<T>, dev);
}

// The ranks are >= 0 and their sum is what normalises them: a sum that is not finite and
// positive means the iteration left the arithmetic's range, which the weight checks rule
// out; it is reported rather than returned as NaN ranks.
inline void check_rank_sum(const char* name, double sum) {
  if (!(std::isfinite(sum) && sum > 0))
    throw Error(Info::panic, std::string("geblas::algo::") + name + ": the ranks sum to " + std::to_string(sum) +
                             " instead of a finite positive value");
}

// The k columns of the result as distributions: each divided by its sum.
template <class T>
DenseMatrix<T> normalise_columns(const DenseMatrix<T>& X, detail::ColumnSums<T>& column_sums) {
  const Index n = X.nrows(), k = X.ncols();
  const Device dev = X.device();
  const std::vector<double> sums = column_sums(X);
  DenseMatrix<T> R(n, k, dev);
  // Broadcast the k factors with one SpMM: the n x 1 column of ones times a 1 x k row.
  std::vector<T> inv(static_cast<std::size_t>(k));
  for (Index j = 0; j < k; ++j) {
    check_rank_sum("personalized_pagerank", sums[static_cast<std::size_t>(j)]);
    inv[static_cast<std::size_t>(j)] = static_cast<T>(1.0 / sums[static_cast<std::size_t>(j)]);
  }
  const auto row = DenseMatrix<T>::from_row_major(1, k, inv, dev);
  DenseMatrix<T> factors(n, k, dev);
  mxm(factors, column_sums.ones_column(), row, semiring::plus_times<T>{});
  ewise_mult(R, X, factors, binop::times<T>{});
  return R;
}

// One teleport distribution through the backend's fused iterations. `teleport` is the
// dense distribution v, or null for the uniform one. Everything a second call on the
// same A and options can reuse (A', d / out) comes from A's cache; the iterates are
// device buffers of the iterations (core/graph_ops.hpp), which the backend initialises
// with its first batch, so a call costs a handful of operations besides its iterations.
template <class T>
Vector<T> iterate_one(const char* name, const SparseMatrix<T>& A, const Vector<T>* teleport, const PageRankOptions& o,
                      int& iterations, bool& converged, double& delta) {
  const Index n = A.nrows();
  const Device dev = A.device();
  const auto At = pull_matrix(A, o.weighted);
  const auto scale = damped_scale(name, A, o);
  Vector<T> tele_term;
  if (teleport) {
    tele_term = filled<T>(n, T(0), dev);
    apply(tele_term, *teleport, binop::times<T>{}, static_cast<T>(1.0 - o.damping));
  }
  // The first batch starts from v: x0 = v, xs0 = v .* scale.
  geblas::detail::PageRankIterations iterate(*At, o.weighted, *scale, teleport ? &tele_term.storage() : nullptr,
                                             (1.0 - o.damping) / static_cast<double>(n),
                                             teleport ? &teleport->storage() : nullptr, 1.0 / static_cast<double>(n),
                                             o.tolerance);
  const detail::PageRankLoop loop = detail::pagerank_loop(
      [&](int from, int count) { return iterate.run(from, count); }, 0, o.max_iterations, o.tolerance,
      o.on_iteration);
  iterations = loop.iterations;
  converged = loop.converged;
  delta = loop.delta;
  const int current = loop.current;
  // The ranks as a distribution.
  const Vector<T> last(iterate.take_iterate(current));
  const double sum = static_cast<double>(reduce(last, monoid::plus<T>{}));
  check_rank_sum(name, sum);
  Vector<T> ranks(dense_buffer<T>(n, dev));
  apply(ranks, last, binop::times<T>{}, static_cast<T>(1.0 / sum));
  return ranks;
}

// k seed sets at once: one SpMM with d P' per iteration. E is the n x k sparse matrix of
// the teleport distributions.
template <class T>
PersonalizedPageRankResult<T> iterate_many(const char* name, const SparseMatrix<T>& A, const SparseMatrix<T>& E,
                                           const PageRankOptions& o) {
  const Index n = A.nrows(), k = E.ncols();
  const Device dev = A.device();
  const SparseMatrix<T> PT(SparseStorage(*damped_transition_transposed(A, *damped_scale(name, A, o), o)));
  // (1 - d) I_k: E times it adds (1 - d) v to every column.
  std::vector<T> scaled(static_cast<std::size_t>(k * k), T{0}), identity(static_cast<std::size_t>(k * k), T{0});
  for (Index j = 0; j < k; ++j) {
    scaled[static_cast<std::size_t>(j * k + j)] = static_cast<T>(1.0 - o.damping);
    identity[static_cast<std::size_t>(j * k + j)] = T{1};
  }
  const auto teleport = DenseMatrix<T>::from_row_major(k, k, scaled, dev);
  // Start from the teleport distributions: X = E I_k on the device.
  DenseMatrix<T> X(n, k, dev);
  mxm(X, E, DenseMatrix<T>::from_row_major(k, k, identity, dev), semiring::plus_times<T>{});
  PersonalizedPageRankResult<T> res;
  // Separate input and output buffers throughout: an operation whose output is also
  // its input goes through a copy. On dense operands ewise_mult (the intersection) is
  // every entry, like ewise_add, without the union's bookkeeping.
  DenseMatrix<T> Y(n, k, dev), diff(n, k, dev), absdiff(n, k, dev);
  detail::ColumnSums<T> column_sums(n, k, dev);
  // The change is measured (three passes and one read back) on iterations 1, 2, 4, then
  // every 4th and the last: like the single-set batches, the host waits a few times per
  // run, and a run stops at most 3 iterations after the first that met the tolerance
  // (closer to the fixed point, never further).
  int next_check = 1, step = 1;
  for (int it = 1; it <= o.max_iterations; ++it) {
    mxm(Y, PT, X, semiring::plus_times<T>{});
    mxm(Y, E, teleport, semiring::plus_times<T>{}, {.accum = binop::plus<T>{}});
    const bool check = it == next_check || it == o.max_iterations;
    if (check) {
      ewise_mult(diff, Y, X, binop::minus<T>{});
      apply(absdiff, diff, unop::abs<T>{});
      const std::vector<double> change = column_sums(absdiff);
      res.delta = *std::max_element(change.begin(), change.end());
      next_check += step;
      step = std::min(step * 2, 4);
    }
    std::swap(X, Y);
    res.iterations = it;
    if (check && o.on_iteration) o.on_iteration(it, res.delta);
    if (check && res.delta < o.tolerance) {
      res.converged = true;
      break;
    }
  }
  res.ranks = normalise_columns(X, column_sums);
  return res;
}

template <class T>
PageRankResult<T> pagerank_impl(const SparseMatrix<T>& A, const PageRankOptions& o) {
  detail::require_square("pagerank", A.nrows(), A.ncols());
  check_options("pagerank", o);
  PageRankResult<T> out;
  if (A.nrows() == 0) {
    out.ranks = Vector<T>::dense(0, T{0}, A.device());
    out.converged = true;
    return out;
  }
  out.ranks = iterate_one<T>("pagerank", A, nullptr, o, out.iterations, out.converged, out.delta);
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
  if (k == 1) {
    // One seed set runs the fused iterations, with v built from its few entries.
    std::vector<Index> idx = rows;
    const Vector<T> v =
        Vector<T>::from_tuples(n, idx, vals, binop::plus<T>{}, A.device()).densified(T(0));
    PersonalizedPageRankResult<T> res;
    Vector<T> r = iterate_one<T>("personalized_pagerank", A, &v, o, res.iterations, res.converged, res.delta);
    res.ranks = detail::vector_as_column(std::move(r));
    return res;
  }
  // E (n x k) as the transpose of its k x n twin: built on the host that one has k + 1
  // row offsets instead of n + 1, and the transpose runs on A's device.
  const auto Et = SparseMatrix<T>::from_tuples(k, n, cols, rows, vals, binop::plus<T>{}, A.device());
  SparseMatrix<T> E(n, k, A.device());
  transpose(E, Et);
  return iterate_many("personalized_pagerank", A, E, o);
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
