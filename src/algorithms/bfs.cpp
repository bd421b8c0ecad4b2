// Breadth-first search on A's device: the set-up and the packaging are geblas
// operations, the level loop is the backend's direction-optimising traversal
// (core/graph_kernels.hpp; Beamer, Asanovic & Patterson, SC 2012), which keeps the
// frontier and the push/pull choice on the device, so a road graph's thousand levels
// cost no host round trip each.
//
// On the host an automatic BFS is handed A' only when it is already cached; without it the backend pulls through A itself when A's pattern is
// symmetric, and builds A' only for a matrix traversed again that wants to pull
// (core/graph_ops.cpp, bfs_in_edges).
//
// One source: the backend writes a dense level and parent array (-1 where unreached)
// and select() keeps the reached entries (the arrays are returned as they are when
// every vertex is reached). Many sources: where the backend has a
// many-source traversal (bfs_many, the GPU's: 64 sources per pull pass, one bit each),
// all of them in one; otherwise one traversal per source into the columns of
// column-major n x k results (on the host, one traversal per thread). Either way no
// n x k start matrix is built on the host.
#include "geblas/algorithms/bfs.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core/graph_ops.hpp"
#include "core/trace.hpp"
#include "geblas/operations/select.hpp"

namespace geblas::algo {
namespace {

using V = VertexId;

void require_square(Index nrows, Index ncols) {
  if (nrows != ncols)
    throw DimensionMismatch("geblas::algo::bfs: the adjacency matrix must be square, got " + std::to_string(nrows) +
                            " x " + std::to_string(ncols));
}

void check_source(Index v, Index n) {
  if (v < 0 || v >= n)
    throw IndexOutOfBounds("geblas::algo::bfs: source " + std::to_string(v) + " is outside the graph's vertices [0, " +
                           std::to_string(n) + ")");
}

// n uninitialised vertex ids on `dev` (the traversal writes every entry): make_dense_vector
// would zero them first, a pass that costs as much as a road graph's whole traversal.
geblas::detail::VectorStorage vertex_array(Index n, Device dev) {
  geblas::detail::VectorStorage v;
  v.size = n;
  v.nvals = n;
  v.dense = true;
  v.type = TypeId::int64;
  v.device = dev;
  v.values = geblas::detail::RawBuffer(static_cast<std::size_t>(n) * sizeof(V), dev);
  return v;
}

// The traversals of many sources, source c into column c. On a GPU one after another:
// each fills the device, and its level loop never leaves it. On the host one per thread:
// the sources share nothing but A (and A'), and most of a traversal's levels are below
// the size at which it forks threads itself, so a thread per source keeps every core busy
// where splitting each level keeps one (the levels' own parallel regions then run on
// their thread alone). An exception in a traversal (memory) is rethrown after the others
// end.
std::vector<geblas::detail::BfsStats> traverse_all(const geblas::detail::SparseStorage& A,
                                                   const geblas::detail::SparseStorage* At,
                                                   const std::vector<Index>& sources, BfsDirection direction,
                                                   geblas::detail::DenseStorage& levels,
                                                   geblas::detail::DenseStorage& parents) {
  const auto k = static_cast<std::int64_t>(sources.size());
  std::vector<geblas::detail::BfsStats> stats(static_cast<std::size_t>(k));
  const auto one = [&](std::int64_t c) {
    stats[static_cast<std::size_t>(c)] = geblas::detail::bfs_levels_column(
        A, At, sources[static_cast<std::size_t>(c)], direction, levels, parents, c);
  };
  if (!A.device.is_cpu() || k < 2) {
    for (std::int64_t c = 0; c < k; ++c) one(c);
    return stats;
  }
  std::exception_ptr failure;
  std::mutex failure_mutex;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < k; ++c) {
    try {
      one(c);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return stats;
}

// n x k vertex ids, column-major, uninitialised, for the many-source traversals (each
// writes every entry of its column): make_dense's zero fill would be a pass over n x k
// before the traversals' own, a third of the time of 64 sources on a road graph.
geblas::detail::DenseStorage vertex_columns(Index n, Index k, Device dev) {
  geblas::detail::DenseStorage d;
  d.nrows = n;
  d.ncols = k;
  d.ld = n;
  d.layout = Layout::col_major;
  d.type = TypeId::int64;
  d.device = dev;
  d.data = geblas::detail::RawBuffer(geblas::detail::checked_bytes(n, k, sizeof(V), "geblas::algo::bfs result"), dev);
  return d;
}

BfsResult single(const geblas::detail::SparseStorage& A, Index source, const BfsOptions& o) {
  require_square(A.nrows, A.ncols);
  const Index n = A.nrows;
  check_source(source, n);
  const Device dev = A.device;
  geblas::detail::VectorStorage levels = vertex_array(n, dev);
  geblas::detail::VectorStorage parents = vertex_array(n, dev);
  const geblas::detail::BfsStats run = geblas::detail::bfs_levels(A, source, o.direction, levels, parents);

  BfsResult res;
  res.depth = run.depth;
  res.edges_examined = run.edges_examined;
  if (run.reached == n) {
    // Every vertex reached: the arrays are the results as they are (a dense vector is a
    // sparse one with every entry present), and the two compactions, which cost as much
    // as a road graph's whole traversal, are skipped.
    res.levels = Vector<V>(std::move(levels));
    res.parents = Vector<V>(std::move(parents));
  } else {
    res.levels = Vector<V>(n, dev);
    res.parents = Vector<V>(n, dev);
    select(res.levels, Vector<V>(std::move(levels)), selectop::value_ge<V>{0});
    select(res.parents, Vector<V>(std::move(parents)), selectop::value_ge<V>{0});
  }
  // The traversal's record is the thread's last again when bfs returns, not the selects'.
  geblas::detail::restore_dispatch(run.record);
  if (o.on_iteration)
    for (std::size_t d = 0; d < run.level_sizes.size(); ++d)
      o.on_iteration(static_cast<int>(d + 1), static_cast<double>(run.level_sizes[d]));
  return res;
}

// One traversal per source, into the columns of `levels` and `parents`.
void traverse_each(const geblas::detail::SparseStorage& A, const std::vector<Index>& sources, const BfsOptions& o,
                   geblas::detail::DenseStorage& levels, geblas::detail::DenseStorage& parents, MultiBfsResult& res,
                   std::vector<double>& reached_per_level) {
  const auto At = geblas::detail::bfs_in_edges(A, o.direction);
  for (const geblas::detail::BfsStats& run : traverse_all(A, At.get(), sources, o.direction, levels, parents)) {
    res.depth = std::max(res.depth, run.depth);
    res.edges_examined += run.edges_examined;
    if (reached_per_level.size() < run.level_sizes.size()) reached_per_level.resize(run.level_sizes.size(), 0);
    for (std::size_t d = 0; d < run.level_sizes.size(); ++d)
      reached_per_level[d] += static_cast<double>(run.level_sizes[d]);
  }
}

MultiBfsResult multi(const geblas::detail::SparseStorage& A, const std::vector<Index>& sources, const BfsOptions& o) {
  require_square(A.nrows, A.ncols);
  const Index n = A.nrows, k = static_cast<Index>(sources.size());
  if (sources.empty()) throw InvalidValue("geblas::algo::bfs: no sources given");
  for (Index s : sources) check_source(s, n);
  const Device dev = A.device;
  // Column-major, so that column c is one contiguous array the traversal writes.
  geblas::detail::DenseStorage levels = vertex_columns(n, k, dev);
  geblas::detail::DenseStorage parents = vertex_columns(n, k, dev);
  MultiBfsResult res;
  std::vector<double> reached_per_level;
  if (geblas::detail::has_bfs_many(dev)) {
    geblas::detail::BfsManyStats run = geblas::detail::bfs_many_levels(A, sources, levels, parents);
    res.depth = run.depth;
    res.edges_examined = run.edges_examined;
    reached_per_level = std::move(run.reached_per_level);
  } else {
    traverse_each(A, sources, o, levels, parents, res, reached_per_level);
  }
  res.levels = DenseMatrix<V>(std::move(levels));
  res.parents = DenseMatrix<V>(std::move(parents));
  if (o.on_iteration)
    for (std::size_t d = 0; d < reached_per_level.size(); ++d)
      o.on_iteration(static_cast<int>(d + 1), reached_per_level[d]);
  return res;
}

}  // namespace

#define GEBLAS_ALGO_BFS_DEF(TYPE)                                                                     \
  BfsResult bfs(const SparseMatrix<TYPE>& A, Index source, const BfsOptions& o) {                     \
    return single(A.storage(), source, o);                                                           \
  }                                                                                                  \
  MultiBfsResult bfs(const SparseMatrix<TYPE>& A, const std::vector<Index>& s, const BfsOptions& o) { \
    return multi(A.storage(), s, o);                                                                 \
  }
GEBLAS_ALGO_BFS_DEF(bool)
GEBLAS_ALGO_BFS_DEF(std::int32_t)
GEBLAS_ALGO_BFS_DEF(std::int64_t)
GEBLAS_ALGO_BFS_DEF(float)
GEBLAS_ALGO_BFS_DEF(double)
#undef GEBLAS_ALGO_BFS_DEF

}  // namespace geblas::algo
