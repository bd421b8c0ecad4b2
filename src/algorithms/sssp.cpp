// Shortest paths on A's device.
//
// One source, weights >= 0: the backend's bucketed frontier relaxation
// (core/graph_kernels.hpp): delta-stepping on the host, its two-bucket near-far form
// (Davidson, Baxter, Garland & Owens, IPDPS 2014) on the GPU. Each edge is relaxed about
// once on a road graph instead of once per hop of the longest path. The bucket width
// comes from the mean weight (one reduce).
//
// Negative weights (allow_negative) and many sources: synchronous Bellman-Ford over
// min_plus (Bellman 1958; LAGraph's formulation). A round relaxes every edge at once:
//   one source:  t = d' min.+ A (vxm), d_new = min(d, t)
//   k sources:   D_new = min(D, A' min.+ D), one SpMM with min as the fused accumulator
// and the loop stops at the first round that changes nothing (at most n - 1 rounds
// change without a negative cycle, so a change in round n proves one). The k columns
// share each pass over A, which is what makes k sources cheaper than k runs.
//
// Every start vector and matrix is built on the device (a constant fill by apply, the
// source entries by assign / a masked apply); only scalars and O(k) lists cross.
#include "geblas/algorithms/sssp.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "algorithms/bellman_ford_loop.hpp"
#include "core/derived_cache.hpp"
#include "core/graph_ops.hpp"
#include "geblas/operations/apply.hpp"
#include "geblas/operations/assign.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/operations/mxv.hpp"
#include "geblas/operations/reduce.hpp"
#include "geblas/operations/select.hpp"
#include "geblas/operations/transpose.hpp"
#include "geblas/semiring.hpp"

namespace geblas::algo {
namespace {

// The bucket width is width x mean weight / mean out-degree, Davidson et al.'s
// rule (their width is the warp size): a bucket then holds about `width` edges' worth of
// distance per vertex. Measured on the host (random weights in [1, 100)),
// edges relaxed / nnz for width 1, 2, 4, 8, 16: luxembourg_osm 1.00, 1.00, 1.01, 1.01,
// 1.02 (4,600 down to 1,650 rounds); email-Enron 1.02, 1.08-1.19, 1.36-1.41, 1.74-2.05,
// 1.34-2.12; soc-Slashdot0902 1.02, 1.11, 1.20-1.24, 1.83-2.03, 2.34-2.52. The host
// takes 2 (rounds are cheap there, re-relaxations are not; with the host's delta-stepping
// and integer weights in [1, 255], ego-Twitter relaxes 1.00, 1.01, 1.04, 1.12, 1.56 nnz
// for width 0.5, 1, 2, 4, 8, in one-thread times equal within noise up to 4 and 15%
// slower at 8; luxembourg_osm is flat from 2 to 32); the GPU takes 4, whose
// rounds cost a loop step or a launch: half the rounds of 2 for at most 1.4 nnz.
struct SsspPolicy {
  static constexpr double cpu_width = 2;
  static constexpr double gpu_width = 4;
};

template <class T>
constexpr T unreachable() {
  return geblas::detail::upper_bound_value<T>();
}

void require_square(Index nrows, Index ncols) {
  if (nrows != ncols)
    throw DimensionMismatch("geblas::algo::sssp: the adjacency matrix must be square, got " + std::to_string(nrows) +
                            " x " + std::to_string(ncols));
}

void check_source(Index v, Index n) {
  if (v < 0 || v >= n)
    throw IndexOutOfBounds("geblas::algo::sssp: source " + std::to_string(v) +
                           " is outside the graph's vertices [0, " + std::to_string(n) + ")");
}

// The smallest weight and the sum from which the mean weight comes (of |w| when some
// weight is negative), kept with A as its transpose is: two reductions over A's values on
// its device and no copy of A, paid once per matrix rather than once per call (on a
// social graph they cost a fifth of a traversal). With weights >= 0 the plain sum is the
// sum of |w|, and NaN exactly when a weight is NaN.
template <class T>
struct WeightSummary {
  T lowest{};
  double total = 0;
};

template <class T>
WeightSummary<T> weight_summary(const SparseMatrix<T>& A) {
  return *geblas::detail::derived<WeightSummary<T>>(A.storage(), "algo:sssp:weights", [&] {
    WeightSummary<T> w;
    w.lowest = reduce(A, monoid::min<T>{});
    w.total = static_cast<double>(reduce(A, monoid::plus<T>{}));
    if (std::isnan(w.total) && w.lowest < T{0}) {
      // +inf and -inf together also sum to NaN: decide on the magnitudes.
      SparseMatrix<T> magnitude(A.nrows(), A.ncols(), A.device());
      apply(magnitude, A, unop::abs<T>{});
      w.total = static_cast<double>(reduce(magnitude, monoid::plus<T>{}));
    }
    return w;
  });
}

// Throws for a NaN weight, and for a negative one unless allowed; returns the sum of
// the weights (of |w| when negatives are allowed).
template <class T>
double check_weights(const SparseMatrix<T>& A, const SsspOptions& o) {
  if (A.nvals() == 0) return 0;
  const WeightSummary<T> w = weight_summary(A);
  if (!o.allow_negative && w.lowest < T{0})
    throw InvalidValue("geblas::algo::sssp: the graph has a negative edge weight (" + std::to_string(w.lowest) +
                       "); set allow_negative to run Bellman-Ford with negative-cycle detection");
  if (std::isnan(w.total)) throw InvalidValue("geblas::algo::sssp: the graph has a NaN edge weight");
  return w.total;
}

// n entries of `value` on the device: a zeroed vector overwritten by apply.
template <class T>
Vector<T> filled(Index n, T value, Device dev) {
  Vector<T> v(geblas::detail::make_dense_vector(n, type_id<T>, dev));
  apply(v, v, binop::second<T>{}, value);
  return v;
}

// A reachable vertex is never reported unreached. With finite weights d(u) + w can still
// pass the type's largest value and round to +inf, which would read as "no path"; so when
// a vertex is unreached and the largest distance plus the largest weight is not finite,
// the finite-weight edges from reached vertices are relaxed once more: a candidate at an
// unreached vertex is an overflowed distance, reported with the source and the vertex.
// (An edge of weight +inf is no path, and stays out of the check.)
// The largest weight of A (an O(nnz) pass, kept with A as the transpose is).
template <class T>
T heaviest_weight(const SparseMatrix<T>& A) {
  return *geblas::detail::derived<T>(A.storage(), "algo:sssp:heaviest", [&] { return reduce(A, monoid::max<T>{}); });
}

// A shortest path has fewer than n edges, so below this bound no sum of weights can
// overflow and the check needs no pass over the distances.
template <class T>
bool overflow_impossible(const SparseMatrix<T>& A) {
  return heaviest_weight(A) * static_cast<T>(A.nrows()) < unreachable<T>();
}

template <class T>
void check_no_overflow(const SparseMatrix<T>& A, Index source, const Vector<T>& d) {
  if (overflow_impossible(A)) return;
  const Index n = A.nrows();
  const Device dev = A.device();
  Vector<T> reached(n, dev);
  select(reached, d, selectop::value_lt<T>{unreachable<T>()});
  if (reached.nvals() == n) return;
  const T farthest = reduce(reached, monoid::max<T>{});
  if (farthest + heaviest_weight(A) < unreachable<T>()) return;  // rounding is monotone: no sum can overflow
  SparseMatrix<T> finite(n, n, dev);
  select(finite, A, selectop::value_lt<T>{unreachable<T>()});
  Vector<T> candidate(n, dev), unreached(n, dev), lost(n, dev);
  vxm(candidate, reached, finite, semiring::min_plus<T>{});
  select(unreached, d, selectop::value_eq<T>{unreachable<T>()});
  ewise_mult(lost, unreached, candidate, binop::first<T>{});
  if (lost.nvals() == 0) return;
  const Index v = lost.extract_tuples().front().first;
  throw InvalidValue("geblas::algo::sssp: the distance from source " + std::to_string(source) + " to vertex " +
                     std::to_string(v) + " passes the largest " + std::string(to_string(type_id<T>)) +
                     " value: vertex " + std::to_string(v) +
                     " is reachable, but a sum of finite weights on the way overflowed; scale the weights down");
}

template <class T>
SsspResult<T> bellman_ford(const SparseMatrix<T>& A, Index source, const SsspOptions& o) {
  const Index n = A.nrows();
  const Device dev = A.device();
  SsspResult<T> res;
  res.distances = filled<T>(n, unreachable<T>(), dev);
  assign(res.distances, T{0}, IndexList{source});
  Vector<T> t = filled<T>(n, unreachable<T>(), dev);
  Vector<T> next = filled<T>(n, unreachable<T>(), dev);
  Vector<T> changed = filled<T>(n, T{0}, dev);
  res.rounds = detail::bellman_ford_loop(
      [&] {
        vxm(t, res.distances, A, semiring::min_plus<T>{});
        ewise_mult(next, res.distances, t, binop::min<T>{});  // both dense: every entry
        ewise_mult(changed, next, res.distances, binop::ne<T>{});
        const T count = reduce(changed, monoid::plus<T>{});
        std::swap(res.distances, next);
        res.edges_relaxed += static_cast<double>(A.nvals());
        return static_cast<double>(count);
      },
      n, o.on_iteration, "geblas::algo::sssp");
  check_no_overflow(A, source, res.distances);
  return res;
}

template <class T>
SsspResult<T> single(const SparseMatrix<T>& A, Index source, const SsspOptions& o) {
  require_square(A.nrows(), A.ncols());
  const Index n = A.nrows();
  check_source(source, n);
  const double total = check_weights(A, o);
  if (o.allow_negative) return bellman_ford(A, source, o);
  const Device dev = A.device();
  geblas::detail::VectorStorage d = geblas::detail::make_dense_vector(n, type_id<T>, dev);
  const double nnz = static_cast<double>(A.nvals());
  const double mean = nnz > 0 ? total / nnz : 0;
  const double width = dev.is_cpu() ? SsspPolicy::cpu_width : SsspPolicy::gpu_width;
  const double delta = nnz > 0 ? width * mean * static_cast<double>(n) / nnz : 0;
  // Any positive width gives the right distances; all-zero weights (delta 0) take 1 and
  // an overflowing sum (infinite weights) the type's largest value.
  const geblas::detail::SsspStats run = geblas::detail::sssp_distances(
      A.storage(), source,
      delta > 0 ? (std::isfinite(delta) ? delta : static_cast<double>(std::numeric_limits<T>::max())) : 1.0, d);
  SsspResult<T> res;
  res.distances = Vector<T>(std::move(d));
  res.rounds = run.rounds;
  res.edges_relaxed = run.edges_relaxed;
  if (o.on_iteration) o.on_iteration(run.rounds, run.edges_relaxed);
  check_no_overflow(A, source, res.distances);
  return res;
}

template <class T>
MultiSsspResult<T> multi(const SparseMatrix<T>& A, const std::vector<Index>& sources, const SsspOptions& o) {
  require_square(A.nrows(), A.ncols());
  if (sources.empty()) throw InvalidValue("geblas::algo::sssp: no sources given");
  const Index n = A.nrows(), k = static_cast<Index>(sources.size());
  for (Index s : sources) check_source(s, n);
  check_weights(A, o);
  const Device dev = A.device();
  // D0 (0 at (sources[j], j), +inf elsewhere) built on the device: a +inf fill, then
  // 0 written through the structure of S, the n x k sparse matrix of those k entries.
  // S is uploaded as its k x n transpose (k + 1 row offsets, not n + 1) and transposed
  // on the device.
  MultiSsspResult<T> res;
  {
    std::vector<Index> cols(static_cast<std::size_t>(k));
    for (Index j = 0; j < k; ++j) cols[static_cast<std::size_t>(j)] = j;
    const std::vector<T> zeros(static_cast<std::size_t>(k), T{0});
    const auto St = SparseMatrix<T>::from_tuples(k, n, cols, sources, zeros, {}, dev);
    SparseMatrix<T> S(n, k, dev);
    transpose(S, St);
    DenseMatrix<T> D(n, k, dev);  // zeroed on the device
    apply(D, D, binop::second<T>{}, unreachable<T>());
    apply(D, D, binop::second<T>{}, T{0}, {.mask = Mask::structure(S)});
    res.distances = std::move(D);
  }
  DenseMatrix<T> changed(n, k, dev);
  res.rounds = detail::bellman_ford_loop(
      [&] {
        // D_new starts as D, then takes min(D_new, A' min.+ D): the fused accumulator path.
        DenseMatrix<T> next = res.distances;
        mxm(next, A, res.distances, semiring::min_plus<T>{}, {.accum = binop::min<T>{}, .transpose_a = true});
        ewise_mult(changed, next, res.distances, binop::ne<T>{});
        const T count = reduce(changed, monoid::plus<T>{});
        res.distances = std::move(next);
        return static_cast<double>(count);
      },
      n, o.on_iteration, "geblas::algo::sssp");
  // Every column through the one-source check, read back only when some vertex is
  // unreached from some source and the weights are large enough for a sum to overflow.
  if (n > 0 && !overflow_impossible(A) && reduce(res.distances, monoid::max<T>{}) == unreachable<T>()) {
    const std::vector<T> all = res.distances.to(Device::cpu()).to_col_major();
    for (Index j = 0; j < k; ++j) {
      const std::vector<T> column(all.begin() + j * n, all.begin() + (j + 1) * n);
      check_no_overflow(A, sources[static_cast<std::size_t>(j)], Vector<T>::from_dense(column, dev));
    }
  }
  return res;
}

}  // namespace

SsspResult<float> sssp(const SparseMatrix<float>& A, Index s, const SsspOptions& o) { return single(A, s, o); }
SsspResult<double> sssp(const SparseMatrix<double>& A, Index s, const SsspOptions& o) { return single(A, s, o); }
MultiSsspResult<float> sssp(const SparseMatrix<float>& A, const std::vector<Index>& s, const SsspOptions& o) {
  return multi(A, s, o);
}
MultiSsspResult<double> sssp(const SparseMatrix<double>& A, const std::vector<Index>& s, const SsspOptions& o) {
  return multi(A, s, o);
}

}  // namespace geblas::algo
