// Breadth-first search on A's device: the set-up and the packaging are geblas
// operations, the level loop is the backend's direction-optimising traversal
// (core/graph_kernels.hpp; Beamer, Asanovic & Patterson, SC 2012), which keeps the
// frontier and the push/pull choice on the device, so a road graph's thousand levels
// cost no host round trip each.
//
// One source: the backend writes a dense level and parent array (-1 where unreached)
// and select() keeps the reached entries. Many sources: one traversal per source into
// the columns of column-major n x k results. A traversal reads each edge O(1) times,
// which beats the SpMM formulation (one n x k product per level over all of A) on
// deep graphs, and no n x k start matrix is built on the host.
#include "geblas/algorithms/bfs.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "core/backend.hpp"
#include "core/derived_cache.hpp"
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

using BfsEntry = void (*)(geblas::detail::BfsRun&);

BfsEntry bfs_entry(Device dev) {
  const geblas::detail::Backend& b = geblas::detail::backend_for(dev);
  return geblas::detail::required(b.graph ? b.graph->bfs : nullptr, "bfs", dev);
}

int direction_code(BfsDirection d) {
  switch (d) {
    case BfsDirection::push: return 1;
    case BfsDirection::pull: return 2;
    case BfsDirection::automatic: break;
  }
  return 0;
}

BfsResult single(const geblas::detail::SparseStorage& A, Index source, const BfsOptions& o) {
  require_square(A.nrows, A.ncols);
  const Index n = A.nrows;
  check_source(source, n);
  const Device dev = A.device;
  const auto run_bfs = bfs_entry(dev);
  // A' serves the pull steps; cached with A, so a second BFS on A pays nothing.
  const auto At = geblas::detail::cached_transpose(A);
  geblas::detail::VectorStorage levels = geblas::detail::make_dense_vector(n, TypeId::int64, dev);
  geblas::detail::VectorStorage parents = geblas::detail::make_dense_vector(n, TypeId::int64, dev);
  geblas::detail::BfsRun run;
  run.A = &A;
  run.At = At.get();
  run.source = source;
  run.direction = direction_code(o.direction);
  run.levels = levels.values.as<V>();
  run.parents = parents.values.as<V>();
  run_bfs(run);

  BfsResult res;
  res.depth = run.depth;
  res.edges_examined = run.edges_examined;
  res.levels = Vector<V>(n, dev);
  res.parents = Vector<V>(n, dev);
  select(res.levels, Vector<V>(std::move(levels)), selectop::value_ge<V>{0});
  select(res.parents, Vector<V>(std::move(parents)), selectop::value_ge<V>{0});
  if (o.on_iteration)
    for (std::size_t d = 0; d < run.level_sizes.size(); ++d)
      o.on_iteration(static_cast<int>(d + 1), static_cast<double>(run.level_sizes[d]));
  return res;
}

MultiBfsResult multi(const geblas::detail::SparseStorage& A, const std::vector<Index>& sources, const BfsOptions& o) {
  require_square(A.nrows, A.ncols);
  const Index n = A.nrows, k = static_cast<Index>(sources.size());
  if (sources.empty()) throw InvalidValue("geblas::algo::bfs: no sources given");
  for (Index s : sources) check_source(s, n);
  const Device dev = A.device;
  const auto run_bfs = bfs_entry(dev);
  const auto At = geblas::detail::cached_transpose(A);
  // Column-major, so that column c is one contiguous array the traversal writes.
  geblas::detail::DenseStorage levels = geblas::detail::make_dense(n, k, Layout::col_major, TypeId::int64, dev);
  geblas::detail::DenseStorage parents = geblas::detail::make_dense(n, k, Layout::col_major, TypeId::int64, dev);
  MultiBfsResult res;
  std::vector<double> reached_per_level;
  for (Index c = 0; c < k; ++c) {
    geblas::detail::BfsRun run;
    run.A = &A;
    run.At = At.get();
    run.source = sources[static_cast<std::size_t>(c)];
    run.direction = direction_code(o.direction);
    run.levels = levels.data.as<V>() + c * levels.ld;
    run.parents = parents.data.as<V>() + c * parents.ld;
    run_bfs(run);
    res.depth = std::max(res.depth, run.depth);
    res.edges_examined += run.edges_examined;
    if (reached_per_level.size() < run.level_sizes.size()) reached_per_level.resize(run.level_sizes.size(), 0);
    for (std::size_t d = 0; d < run.level_sizes.size(); ++d)
      reached_per_level[d] += static_cast<double>(run.level_sizes[d]);
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
