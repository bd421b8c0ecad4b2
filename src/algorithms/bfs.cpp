// Breadth-first search in the GraphBLAS formulation (Kepner & Gilbert, "Graph
// Algorithms in the Language of Linear Algebra"; the push/pull switch of Yang, Buluc &
// Owens, "Implementing push-pull efficiently in GraphBLAS", ICPP 2018).
//
// One source: q holds the frontier with each vertex's own id as its value; a level is
//   next<!struct(parents), replace> = A' min.second q
// which gives every newly reached vertex its smallest frontier in-neighbour as parent.
// Push hands the product a sparse q (work on the frontier's out-edges); pull hands it a
// dense q (absent entries hold the identity +max, dropped from the result afterwards),
// which visits every unvisited vertex's in-edges and wins once the frontier is large.
//
// Many sources: the k frontiers are the columns of a dense F with F(i, c) = i + 1 on the
// frontier and 0 elsewhere, so one max_times SpMM T = A' max.* F gives every vertex the
// largest frontier in-neighbour + 1 of each column (0: none). The level bookkeeping is
// element-wise on n x k dense matrices.
#include "geblas/algorithms/bfs.hpp"

#include <string>
#include <utility>

#include "algorithms/host_graph.hpp"
#include "geblas/operations/apply.hpp"
#include "geblas/operations/assign.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/operations/mxv.hpp"
#include "geblas/operations/reduce.hpp"
#include "geblas/operations/select.hpp"
#include "geblas/semiring.hpp"

namespace geblas::algo {
namespace {

using V = VertexId;
constexpr V none = geblas::detail::upper_bound_value<V>();

// Push while the frontier holds fewer than 1/pull_fraction of the vertices. 1/20
// follows the frontier-size rule of Beamer's direction-optimizing BFS (alpha ~ 15-20).
constexpr Index pull_fraction = 20;

template <class T>
SparseMatrix<V> pattern(const SparseMatrix<T>& A) {
  detail::require_square("bfs", A.nrows(), A.ncols());
  return detail::to_matrix(detail::plain_pattern(detail::host_csr(A, false)), A.device());
}

BfsResult single(const SparseMatrix<V>& P, Index source, const BfsOptions& o) {
  const Index n = P.nrows();
  const Device dev = P.device();
  detail::check_vertex("bfs", "source", source, n);
  std::vector<V> id(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) id[static_cast<std::size_t>(i)] = i;
  const Vector<V> ids = Vector<V>::from_dense(id, dev);
  const Vector<V> unset = Vector<V>::dense(n, none, dev);
  const std::vector<Index> src{source};
  const std::vector<V> src_value{source}, zero{0};

  BfsResult res;
  res.parents = Vector<V>::from_tuples(n, src, src_value, {}, dev);
  res.levels = Vector<V>::from_tuples(n, src, zero, {}, dev);
  Vector<V> q = res.parents;  // frontier: its own ids
  for (int depth = 1;; ++depth) {
    const bool push = o.direction == BfsDirection::push ||
                      (o.direction == BfsDirection::automatic && q.nvals() * pull_fraction < n);
    Vector<V> next(n, dev);
    const Options opt{.mask = Mask::structure(res.parents).complement(), .replace = true, .transpose_a = true};
    if (push) {
      mxv(next, P, q, semiring::min_second<V>{}, opt);
    } else {
      Vector<V> dense_q = Vector<V>::dense(n, none, dev);
      ewise_add(dense_q, unset, q, binop::min<V>{});
      Vector<V> pulled(n, dev);
      mxv(pulled, P, dense_q, semiring::min_second<V>{}, opt);
      select(next, pulled, selectop::value_ne<V>{none});
    }
    if (next.nvals() == 0) break;
    res.depth = depth;
    Vector<V> merged(n, dev);
    ewise_add(merged, res.parents, next, binop::second<V>{});
    res.parents = std::move(merged);
    assign(res.levels, V{depth}, IndexList::all(), {.mask = Mask::structure(next)});
    Vector<V> frontier(n, dev);
    ewise_mult(frontier, ids, next, binop::first<V>{});
    q = std::move(frontier);
    if (o.on_iteration) o.on_iteration(depth, static_cast<double>(next.nvals()));
  }
  return res;
}

MultiBfsResult multi(const SparseMatrix<V>& P, const std::vector<Index>& sources, const BfsOptions& o) {
  const Index n = P.nrows(), k = static_cast<Index>(sources.size());
  const Device dev = P.device();
  if (sources.empty()) throw InvalidValue("geblas::algo::bfs: no sources given");
  for (Index s : sources) detail::check_vertex("bfs", "source", s, n);
  const auto nk = static_cast<std::size_t>(n * k);
  std::vector<V> visited0(nk, 0), frontier0(nk, 0), level0(nk, -1), parent0(nk, -1), id1(nk);
  for (Index i = 0; i < n; ++i)
    for (Index c = 0; c < k; ++c) id1[static_cast<std::size_t>(i * k + c)] = i + 1;
  for (Index c = 0; c < k; ++c) {
    const auto p = static_cast<std::size_t>(sources[c] * k + c);
    visited0[p] = 1;
    frontier0[p] = sources[c] + 1;
    level0[p] = 0;
    parent0[p] = sources[c];
  }
  const auto ids1 = DenseMatrix<V>::from_row_major(n, k, id1, dev);
  auto visited = DenseMatrix<V>::from_row_major(n, k, visited0, dev);
  auto frontier = DenseMatrix<V>::from_row_major(n, k, frontier0, dev);
  MultiBfsResult res;
  res.levels = DenseMatrix<V>::from_row_major(n, k, level0, dev);
  res.parents = DenseMatrix<V>::from_row_major(n, k, parent0, dev);
  DenseMatrix<V> T(n, k, dev), reached(n, k, dev), fresh(n, k, dev), parent(n, k, dev), grown(n, k, dev);
  for (int depth = 1;; ++depth) {
    mxm(T, P, frontier, semiring::max_times<V>{}, {.transpose_a = true});
    apply(reached, T, binop::gt<V>{}, V{0});                // some frontier in-neighbour
    ewise_mult(fresh, reached, visited, binop::gt<V>{});    // ... and not visited before
    const V count = reduce(fresh, monoid::plus<V>{});
    if (count == 0) break;
    res.depth = depth;
    apply(parent, T, binop::minus<V>{}, V{1});
    apply(res.parents, parent, unop::identity<V>{}, {.mask = Mask(fresh)});
    apply(res.levels, T, binop::second<V>{}, V{depth}, {.mask = Mask(fresh)});
    ewise_mult(grown, visited, fresh, binop::plus<V>{});
    std::swap(visited, grown);
    ewise_mult(frontier, fresh, ids1, binop::times<V>{});
    if (o.on_iteration) o.on_iteration(depth, static_cast<double>(count));
  }
  return res;
}

}  // namespace

#define GEBLAS_ALGO_BFS_DEF(TYPE)                                                               \
  BfsResult bfs(const SparseMatrix<TYPE>& A, Index source, const BfsOptions& o) {               \
    return single(pattern(A), source, o);                                                      \
  }                                                                                            \
  MultiBfsResult bfs(const SparseMatrix<TYPE>& A, const std::vector<Index>& s, const BfsOptions& o) { \
    return multi(pattern(A), s, o);                                                            \
  }
GEBLAS_ALGO_BFS_DEF(bool)
GEBLAS_ALGO_BFS_DEF(std::int32_t)
GEBLAS_ALGO_BFS_DEF(std::int64_t)
GEBLAS_ALGO_BFS_DEF(float)
GEBLAS_ALGO_BFS_DEF(double)
#undef GEBLAS_ALGO_BFS_DEF

}  // namespace geblas::algo
