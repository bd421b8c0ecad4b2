// Shortest paths by synchronous Bellman-Ford over min_plus (Bellman 1958; the GraphBLAS
// formulation of LAGraph's Bellman-Ford). A round relaxes every edge at once:
//   one source:  t = d' min.+ A (vxm), d_new = min(d, t)
//   k sources:   D_new = min(D, A' min.+ D), one SpMM with min as the fused accumulator
// and the loop stops at the first round that changes nothing (at most n - 1 rounds
// change without a negative cycle, so a change in round n proves one).
#include "geblas/algorithms/sssp.hpp"

#include <limits>
#include <string>
#include <utility>

#include "algorithms/host_graph.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/operations/mxv.hpp"
#include "geblas/operations/reduce.hpp"
#include "geblas/semiring.hpp"

namespace geblas::algo {
namespace {

template <class T>
constexpr T unreachable() {
  return geblas::detail::upper_bound_value<T>();
}

template <class T>
void check_weights(const SparseMatrix<T>& A, const SsspOptions& o) {
  if (o.allow_negative || A.nvals() == 0) return;
  const T lowest = reduce(A, monoid::min<T>{});
  if (lowest < T{0})
    throw InvalidValue("geblas::algo::sssp: the graph has a negative edge weight (" + std::to_string(lowest) +
                       "); set allow_negative to run Bellman-Ford with negative-cycle detection");
}

[[noreturn]] void negative_cycle(Index n) {
  throw InvalidValue("geblas::algo::sssp: a negative cycle is reachable from a source (distances still fell in round " +
                     std::to_string(n) + " of a graph with " + std::to_string(n) + " vertices)");
}

template <class T>
SsspResult<T> single(const SparseMatrix<T>& A, Index source, const SsspOptions& o) {
  detail::require_square("sssp", A.nrows(), A.ncols());
  const Index n = A.nrows();
  detail::check_vertex("sssp", "source", source, n);
  check_weights(A, o);
  const Device dev = A.device();
  std::vector<T> d0(static_cast<std::size_t>(n), unreachable<T>());
  d0[static_cast<std::size_t>(source)] = T{0};
  SsspResult<T> res;
  res.distances = Vector<T>::from_dense(d0, dev);
  Vector<T> t = Vector<T>::dense(n, unreachable<T>(), dev);
  Vector<T> next = Vector<T>::dense(n, unreachable<T>(), dev);
  Vector<T> changed = Vector<T>::dense(n, T{0}, dev);
  for (int round = 1;; ++round) {
    vxm(t, res.distances, A, semiring::min_plus<T>{});
    ewise_mult(next, res.distances, t, binop::min<T>{});  // both dense: every entry
    ewise_mult(changed, next, res.distances, binop::ne<T>{});
    const T count = reduce(changed, monoid::plus<T>{});
    std::swap(res.distances, next);
    res.rounds = round;
    if (o.on_iteration) o.on_iteration(round, static_cast<double>(count));
    if (count == T{0}) break;
    if (round >= n) negative_cycle(n);
  }
  return res;
}

template <class T>
MultiSsspResult<T> multi(const SparseMatrix<T>& A, const std::vector<Index>& sources, const SsspOptions& o) {
  detail::require_square("sssp", A.nrows(), A.ncols());
  if (sources.empty()) throw InvalidValue("geblas::algo::sssp: no sources given");
  const Index n = A.nrows(), k = static_cast<Index>(sources.size());
  for (Index s : sources) detail::check_vertex("sssp", "source", s, n);
  check_weights(A, o);
  const Device dev = A.device();
  // D0 (0 at (sources[j], j), +inf elsewhere) built on the device as S min.+ B, with S
  // the n x k sparse matrix of those zeros and B the k x k matrix with 0 on the diagonal
  // and +inf elsewhere (empty rows of S give min_plus's identity, +inf): an n x k start
  // built on the host and copied over cost more than the rounds themselves.
  MultiSsspResult<T> res;
  {
    std::vector<Index> cols(static_cast<std::size_t>(k));
    for (Index j = 0; j < k; ++j) cols[static_cast<std::size_t>(j)] = j;
    const std::vector<T> zeros(static_cast<std::size_t>(k), T{0});
    const auto S = SparseMatrix<T>::from_tuples(n, k, sources, cols, zeros, {}, dev);
    std::vector<T> b(static_cast<std::size_t>(k * k), unreachable<T>());
    for (Index j = 0; j < k; ++j) b[static_cast<std::size_t>(j * k + j)] = T{0};
    res.distances = DenseMatrix<T>(n, k, dev);
    mxm(res.distances, S, DenseMatrix<T>::from_row_major(k, k, b, dev), semiring::min_plus<T>{});
  }
  DenseMatrix<T> changed(n, k, dev);
  for (int round = 1;; ++round) {
    // D_new starts as D, then takes min(D_new, A' min.+ D): the fused accumulator path.
    DenseMatrix<T> next = res.distances;
    mxm(next, A, res.distances, semiring::min_plus<T>{}, {.accum = binop::min<T>{}, .transpose_a = true});
    ewise_mult(changed, next, res.distances, binop::ne<T>{});
    const T count = reduce(changed, monoid::plus<T>{});
    res.distances = std::move(next);
    res.rounds = round;
    if (o.on_iteration) o.on_iteration(round, static_cast<double>(count));
    if (count == T{0}) break;
    if (round >= n) negative_cycle(n);
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
