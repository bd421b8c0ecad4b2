// The graph operations: the validated entry points through which the algorithms in
// src/algorithms reach the backends' graph entries (core/graph_kernels.hpp), as the
// public operations reach the backend table. Each takes geblas storage (the matrix, and
// the typed, device-tagged buffers it writes), checks shapes, types, devices and vertex
// ids, and throws the library's usual errors naming the operation and the argument
// before any backend code runs; only then does it hand the entry its pointers, and it
// records the call in the dispatch trace (core/trace.hpp) under the name given below.
// The checks are host comparisons of a few integers, done once per call: none of them
// runs inside a traversal's levels or between PageRank iterations of a batch.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/graph_kernels.hpp"
#include "geblas/config.hpp"
#include "geblas/detail/storage.hpp"
#include "geblas/trace.hpp"

namespace geblas::algo {
enum class BfsDirection : std::uint8_t;  // geblas/algorithms/bfs.hpp
}

namespace geblas::detail {

// ---- PageRank iterations over A' (see PageRankIterate). Made once per run: the
// constructor validates every input and allocates the two ping-pong iterates and their
// scaled copies on At's device, so that a batch checks two integers and calls the entry.
class GEBLAS_API PageRankIterations {
 public:
  // At: n x n, float or double. scale, teleport and start: dense, n values of At's type
  // on its device; teleport and start may be null (their uniform values are then used).
  // The first batch initialises the iterate in slot 0 from the start.
  PageRankIterations(const SparseStorage& At, bool weighted, const VectorStorage& scale,
                     const VectorStorage* teleport, double teleport_uniform, const VectorStorage* start,
                     double start_uniform, double tolerance);
  // Runs up to `count` iterations from slot `current` (the entry's contract: see
  // GraphKernels::pagerank_iterate), recorded as "pagerank iterations". The inputs
  // given to the constructor must stay alive and unchanged until the last batch.
  PageRankBatch run(int current, int count);
  // The iterate in `slot`, moved out: the iterations end with it.
  VectorStorage take_iterate(int slot);

  PageRankIterations(const PageRankIterations&) = delete;
  PageRankIterations& operator=(const PageRankIterations&) = delete;

 private:
  PageRankIterate args_;
  VectorStorage x_[2], xs_[2];
  Device device_;
  const char* backend_name_ = nullptr;
  PageRankBatch (*entry_)(const PageRankIterate&, int, int) = nullptr;
};

// ---- whether A's pattern is symmetric: the fact A's derived cache holds, else the
// backend's test where it has one (its answer then kept with A), else nullopt (the
// pattern is not known to be symmetric, and the caller builds or reads A').
GEBLAS_API std::optional<bool> pattern_symmetric_tested(const SparseStorage& A);

// ---- BFS over A's pattern from one source (see BfsRun). The operation picks the
// in-edges A' the pull steps read (cached with A; see bfs_in_edges), so the caller
// passes A alone.
struct BfsStats {
  int depth = 0;
  std::int64_t reached = 0;
  double edges_examined = 0;
  std::vector<std::int64_t> level_sizes;  // vertices first reached at level 1, 2, ..., depth
  DispatchRecord record;                  // the traversal's, as the backend wrote it
};

// A' for BFS's pull steps, cached with A, or null where the backend is better left to
// decide (the host with an automatic direction: see the definition). Exposed so that a
// caller traversing from many sources looks it up once.
GEBLAS_API std::shared_ptr<const SparseStorage> bfs_in_edges(const SparseStorage& A, algo::BfsDirection direction);

// levels and parents: dense int64 vectors of n entries on A's device, each written in
// full (-1 where unreached). Records the dispatch as "bfs".
GEBLAS_API BfsStats bfs_levels(const SparseStorage& A, Index source, algo::BfsDirection direction,
                               VectorStorage& levels, VectorStorage& parents);
// The same into column `column` of n x k column-major int64 results (one traversal of
// many, possibly on several threads at once), with A' from bfs_in_edges(A, direction).
// Writes no dispatch record of its own: the backend fills the calling thread's.
GEBLAS_API BfsStats bfs_levels_column(const SparseStorage& A, const SparseStorage* At, Index source,
                                      algo::BfsDirection direction, DenseStorage& levels, DenseStorage& parents,
                                      Index column);

// ---- BFS from every source at once (see BfsManyRun), where the backend has it.
struct BfsManyStats {
  int depth = 0;
  double edges_examined = 0;
  std::vector<double> reached_per_level;
};
GEBLAS_API bool has_bfs_many(Device device);
// levels and parents: n x k column-major int64 on A's device, k = sources.size();
// NotImplemented where has_bfs_many(A.device) is false.
GEBLAS_API BfsManyStats bfs_many_levels(const SparseStorage& A, const std::vector<Index>& sources,
                                        DenseStorage& levels, DenseStorage& parents);

// ---- single-source shortest paths with weights >= 0 (see SsspRun). A: n x n, float or
// double; distances: dense, n values of A's type on its device. delta: the bucket
// width, finite and > 0. The weights' signs are the caller's to check (a pass over A).
// Records the dispatch as "sssp".
struct SsspStats {
  int rounds = 0;
  double edges_relaxed = 0;
};
GEBLAS_API SsspStats sssp_distances(const SparseStorage& A, Index source, double delta, VectorStorage& distances);

// ---- connected components (see ComponentsRun). A: n x n, any type; labels: dense int64,
// n entries on A's device. Records the dispatch as "connected_components".
struct ComponentsStats {
  int rounds = 0;
  std::int64_t count = 0;
};
GEBLAS_API ComponentsStats component_labels(const SparseStorage& A, VectorStorage& labels);

// ---- triangles (see TriangleCountRun). A: n x n, any type. Records the dispatch as
// "triangle_count".
struct TriangleStats {
  std::int64_t triangles = 0;
  bool degree_ranked = false;
  double oriented_edges = 0;
};
GEBLAS_API TriangleStats count_triangles(const SparseStorage& A);

// ---- T = diag(row) * A * diag(col) on A's pattern (see GraphKernels::scale_sparse),
// of `type`: A's own, or any type with pattern_only. row / col: null (all ones) or dense
// vectors of `type` with A.nrows / A.ncols values on A's device. Records the dispatch
// as "diagonal_scaled".
GEBLAS_API SparseStorage diagonal_scaled(const SparseStorage& A, TypeId type, const VectorStorage* row,
                                         const VectorStorage* col, bool pattern_only, bool unit_diagonal);

}  // namespace geblas::detail
