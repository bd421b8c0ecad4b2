// The graph operations (core/graph_ops.hpp): validation of every argument, then one
// call of the backend's graph entry. The checks run in the order device, type, form,
// size, so that an argument on another device is reported as that (and no check reads
// a buffer that may live elsewhere).
#include "core/graph_ops.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "core/trace.hpp"
#include "core/validate.hpp"
#include "geblas/algorithms/bfs.hpp"

namespace geblas::detail {
namespace {

void check_square(const char* op, const SparseStorage& A) {
  if (A.nrows != A.ncols)
    throw DimensionMismatch(std::string(op) + ": the adjacency matrix must be square, got " +
                            shape(A.nrows, A.ncols));
}

void check_vertex(const char* op, const char* what, Index v, Index n) {
  if (v < 0 || v >= n)
    throw IndexOutOfBounds(std::string(op) + ": " + what + " " + std::to_string(v) +
                           " is outside the graph's vertices [0, " + std::to_string(n) + ")");
}

void check_floating(const char* op, const char* what, TypeId t) {
  if (t != TypeId::float32 && t != TypeId::float64)
    throw DomainMismatch(std::string(op) + ": " + what + " is " + std::string(to_string(t)) +
                         ", expected float32 or float64");
}

// A dense vector of `size` values of `type` on `device`, its buffer as large as that (an
// empty buffer's device tag says nothing, so it is not compared).
void check_dense_vector(const char* op, const char* what, const VectorStorage& v, Index size, TypeId type,
                        Device device) {
  check_device(op, what, v.device, device);
  check_type(op, what, v.type, type);
  if (!v.dense)
    throw InvalidValue(std::string(op) + ": " + what + " must be a dense vector (it holds " +
                       std::to_string(v.nvals) + " of " + std::to_string(v.size) + " entries)");
  if (v.size != size)
    throw DimensionMismatch(std::string(op) + ": " + what + " has size " + std::to_string(v.size) + ", expected " +
                            std::to_string(size));
  const std::size_t need = static_cast<std::size_t>(size) * size_of(type);
  if (need > 0 && (v.values.bytes() < need || v.values.device() != device))
    throw InvalidObject(std::string(op) + ": " + what + " holds " + std::to_string(v.values.bytes()) +
                        " bytes on " + v.values.device().str() + ", fewer than its " + std::to_string(size) +
                        " values on " + device.str());
}

// n x k column-major vertex ids (int64) on `device`, for results with one column per source.
void check_vertex_columns(const char* op, const char* what, const DenseStorage& d, Index n, Index k, Device device) {
  check_device(op, what, d.device, device);
  check_type(op, what, d.type, TypeId::int64);
  if (d.layout != Layout::col_major)
    throw InvalidValue(std::string(op) + ": " + what + " must be column-major (one column per source)");
  if (d.nrows != n || d.ncols != k)
    throw DimensionMismatch(std::string(op) + ": " + what + " is " + shape(d.nrows, d.ncols) + ", expected " +
                            shape(n, k));
  if (d.ld < n)
    throw InvalidValue(std::string(op) + ": " + what + " has leading dimension " + std::to_string(d.ld) +
                       ", less than its " + std::to_string(n) + " rows");
  const std::size_t need = k > 0 ? checked_bytes(d.ld, k - 1, sizeof(GraphVertex), op) + n * sizeof(GraphVertex) : 0;
  if (need > 0 && (d.data.bytes() < need || d.data.device() != device))
    throw InvalidObject(std::string(op) + ": " + what + " holds " + std::to_string(d.data.bytes()) + " bytes on " +
                        d.data.device().str() + ", fewer than its " + shape(n, k) + " values on " + device.str());
}

void check_distinct(const char* op, const void* a, const void* b) {
  if (a && a == b) throw InvalidValue(std::string(op) + ": levels and parents are the same buffer");
}

const GraphKernels* graph_of(const Backend& be) { return be.graph; }

int direction_code(algo::BfsDirection d) {
  switch (d) {
    case algo::BfsDirection::push: return 1;
    case algo::BfsDirection::pull: return 2;
    case algo::BfsDirection::automatic: return 0;
  }
  throw InvalidValue("bfs: unknown direction " + std::to_string(static_cast<int>(d)));
}

BfsStats stats_of(BfsRun& run) {
  BfsStats s;
  s.depth = run.depth;
  s.reached = run.reached;
  s.edges_examined = run.edges_examined;
  s.level_sizes = std::move(run.level_sizes);
  return s;
}

}  // namespace

// ---- PageRank

PageRankIterations::PageRankIterations(const SparseStorage& At, bool weighted, const VectorStorage& scale,
                                       const VectorStorage* teleport, double teleport_uniform,
                                       const VectorStorage* start, double start_uniform, double tolerance)
    : device_(At.device) {
  const char* op = "pagerank iterations";
  check_square(op, At);
  check_floating(op, "A'", At.type);
  const Index n = At.nrows;
  check_dense_vector(op, "the scale d / out", scale, n, At.type, device_);
  if (teleport) check_dense_vector(op, "the teleport term", *teleport, n, At.type, device_);
  if (start) check_dense_vector(op, "the start", *start, n, At.type, device_);
  if (!std::isfinite(teleport_uniform) || !std::isfinite(start_uniform))
    throw InvalidValue(std::string(op) + ": the uniform teleport and start values must be finite");
  if (!(tolerance >= 0)) throw InvalidValue(std::string(op) + ": tolerance must be >= 0");
  const Backend& be = backend_for(device_);
  entry_ = required(graph_of(be) ? be.graph->pagerank_iterate : nullptr, op, device_);
  backend_name_ = be.name;
  for (int s = 0; s < 2; ++s) {
    x_[s] = make_dense_vector(n, At.type, device_);
    xs_[s] = make_dense_vector(n, At.type, device_);
    args_.x[s] = x_[s].values.data();
    args_.xs[s] = xs_[s].values.data();
  }
  args_.At = &At;
  args_.weighted = weighted;
  args_.scale = scale.values.data();
  args_.teleport = teleport ? teleport->values.data() : nullptr;
  args_.teleport_uniform = teleport_uniform;
  args_.tolerance = tolerance;
  args_.initialise = true;
  args_.start = start ? start->values.data() : nullptr;
  args_.start_uniform = start_uniform;
}

PageRankBatch PageRankIterations::run(int current, int count) {
  if ((current != 0 && current != 1) || count < 0)
    throw InvalidValue("pagerank iterations: a batch runs count >= 0 iterations from slot 0 or 1, got count " +
                       std::to_string(count) + " from slot " + std::to_string(current));
  begin_dispatch("pagerank iterations", backend_name_);
  PageRankBatch b = entry_(args_, current, count);
  end_dispatch();
  args_.initialise = false;
  return b;
}

VectorStorage PageRankIterations::take_iterate(int slot) {
  if (slot != 0 && slot != 1)
    throw InvalidValue("pagerank iterations: the iterate is in slot 0 or 1, not " + std::to_string(slot));
  return std::move(x_[slot]);
}

// ---- BFS

// On the host, building A' (a scatter over every entry) can cost more than pulling
// saves in one traversal (push reads each entry at most once), so an automatic BFS is
// handed A' there only when it is already cached (a forced pull, PageRank or vxm on A
// built it) and the backend decides the rest (a symmetric pattern pulls through A; a
// directed one builds A' on the second traversal that wants to pull); a GPU builds A'
// in a few SpMV times and always gets it.
std::shared_ptr<const SparseStorage> bfs_in_edges(const SparseStorage& A, algo::BfsDirection direction) {
  if (A.device.is_cpu() && direction == algo::BfsDirection::automatic) return cached_transpose_if_any(A);
  return cached_transpose(A);
}

BfsStats bfs_levels(const SparseStorage& A, Index source, algo::BfsDirection direction, VectorStorage& levels,
                    VectorStorage& parents) {
  const char* op = "bfs";
  check_square(op, A);
  const Index n = A.nrows;
  check_vertex(op, "source", source, n);
  check_dense_vector(op, "levels", levels, n, TypeId::int64, A.device);
  check_dense_vector(op, "parents", parents, n, TypeId::int64, A.device);
  check_distinct(op, levels.values.data(), parents.values.data());
  const int code = direction_code(direction);
  const Backend& be = backend_for(A.device);
  const auto entry = required(graph_of(be) ? be.graph->bfs : nullptr, op, A.device);
  const auto At = bfs_in_edges(A, direction);
  BfsRun run;
  run.A = &A;
  run.At = At.get();
  run.source = source;
  run.direction = code;
  run.levels = levels.values.as<GraphVertex>();
  run.parents = parents.values.as<GraphVertex>();
  begin_dispatch(op, be.name);
  entry(run);
  end_dispatch();
  BfsStats s = stats_of(run);
  s.record = current_dispatch();
  return s;
}

BfsStats bfs_levels_column(const SparseStorage& A, const SparseStorage* At, Index source,
                           algo::BfsDirection direction, DenseStorage& levels, DenseStorage& parents, Index column) {
  const char* op = "bfs";
  check_square(op, A);
  const Index n = A.nrows;
  check_vertex(op, "source", source, n);
  if (column < 0 || column >= levels.ncols)
    throw IndexOutOfBounds(std::string(op) + ": result column " + std::to_string(column) + " is outside [0, " +
                           std::to_string(levels.ncols) + ")");
  check_vertex_columns(op, "levels", levels, n, levels.ncols, A.device);
  check_vertex_columns(op, "parents", parents, n, levels.ncols, A.device);
  check_distinct(op, levels.data.data(), parents.data.data());
  const int code = direction_code(direction);
  if (At) {
    check_device(op, "A'", At->device, A.device);
    if (At->nrows != n || At->ncols != n)
      throw DimensionMismatch(std::string(op) + ": A' is " + shape(At->nrows, At->ncols) + ", A is " +
                              shape(n, n));
  } else if (code != 0 || !A.device.is_cpu()) {
    // Only the host's automatic traversal decides about A' itself (see bfs_in_edges).
    throw InvalidValue(std::string(op) + ": this traversal needs A' (from bfs_in_edges)");
  }
  const Backend& be = backend_for(A.device);
  const auto entry = required(graph_of(be) ? be.graph->bfs : nullptr, op, A.device);
  BfsRun run;
  run.A = &A;
  run.At = At;
  run.source = source;
  run.direction = code;
  run.levels = levels.data.as<GraphVertex>() + column * levels.ld;
  run.parents = parents.data.as<GraphVertex>() + column * parents.ld;
  entry(run);
  return stats_of(run);
}

std::optional<bool> pattern_symmetric_tested(const SparseStorage& A) {
  const Backend& be = backend_for(A.device);
  // The backend's test looks in A's derived cache itself before it tests.
  if (be.graph && be.graph->pattern_symmetric) return be.graph->pattern_symmetric(A);
  return pattern_symmetric_if_known(A);
}

bool has_bfs_many(Device device) {
  const Backend& be = backend_for(device);
  return be.graph && be.graph->bfs_many;
}

BfsManyStats bfs_many_levels(const SparseStorage& A, const std::vector<Index>& sources, DenseStorage& levels,
                             DenseStorage& parents) {
  const char* op = "bfs (many sources)";
  check_square(op, A);
  const Index n = A.nrows, k = static_cast<Index>(sources.size());
  if (k == 0) throw InvalidValue(std::string(op) + ": no sources given");
  for (Index s : sources) check_vertex(op, "source", s, n);
  check_vertex_columns(op, "levels", levels, n, k, A.device);
  check_vertex_columns(op, "parents", parents, n, k, A.device);
  check_distinct(op, levels.data.data(), parents.data.data());
  // The entry writes column c at c * n.
  if (levels.ld != n || parents.ld != n)
    throw InvalidValue(std::string(op) + ": the results' leading dimension must be their " + std::to_string(n) +
                       " rows");
  const Backend& be = backend_for(A.device);
  const auto entry = required(graph_of(be) ? be.graph->bfs_many : nullptr, op, A.device);
  // One traversal for all the sources, pull only (the results do not depend on the
  // direction).
  const auto At = cached_transpose(A);
  BfsManyRun run;
  run.At = At.get();
  run.sources.assign(sources.begin(), sources.end());
  run.levels = levels.data.as<GraphVertex>();
  run.parents = parents.data.as<GraphVertex>();
  entry(run);
  BfsManyStats s;
  s.depth = run.depth;
  s.edges_examined = run.edges_examined;
  s.reached_per_level = std::move(run.reached_per_level);
  return s;
}

// ---- shortest paths

SsspStats sssp_distances(const SparseStorage& A, Index source, double delta, VectorStorage& distances) {
  const char* op = "sssp";
  check_square(op, A);
  check_floating(op, "A", A.type);
  const Index n = A.nrows;
  check_vertex(op, "source", source, n);
  check_dense_vector(op, "distances", distances, n, A.type, A.device);
  if (!(delta > 0) || !std::isfinite(delta))
    throw InvalidValue(std::string(op) + ": the bucket width must be finite and > 0, got " + std::to_string(delta));
  const Backend& be = backend_for(A.device);
  const auto entry = required(graph_of(be) ? be.graph->sssp : nullptr, op, A.device);
  SsspRun run;
  run.A = &A;
  run.source = source;
  run.distances = distances.values.data();
  run.delta = delta;
  begin_dispatch(op, be.name);
  entry(run);
  end_dispatch();
  return {run.rounds, run.edges_relaxed};
}

// ---- connected components

ComponentsStats component_labels(const SparseStorage& A, VectorStorage& labels) {
  const char* op = "connected_components";
  check_square(op, A);
  check_dense_vector(op, "labels", labels, A.nrows, TypeId::int64, A.device);
  const Backend& be = backend_for(A.device);
  const auto entry = required(graph_of(be) ? be.graph->connected_components : nullptr, op, A.device);
  ComponentsRun run;
  run.A = &A;
  run.labels = labels.values.as<GraphVertex>();
  begin_dispatch(op, be.name);
  entry(run);
  end_dispatch();
  return {run.rounds, run.count};
}

// ---- triangles

TriangleStats count_triangles(const SparseStorage& A) {
  const char* op = "triangle_count";
  check_square(op, A);
  const Backend& be = backend_for(A.device);
  const auto entry = required(graph_of(be) ? be.graph->triangle_count : nullptr, op, A.device);
  TriangleCountRun run;
  run.A = &A;
  begin_dispatch(op, be.name);
  entry(run);
  end_dispatch();
  return {run.triangles, run.degree_ranked, run.oriented_edges};
}

// ---- diagonal scaling

SparseStorage diagonal_scaled(const SparseStorage& A, TypeId type, const VectorStorage* row,
                              const VectorStorage* col, bool pattern_only, bool unit_diagonal) {
  const char* op = "diagonal_scaled";
  if (!pattern_only) check_type(op, "A", A.type, type);
  if (row) check_dense_vector(op, "the row scaling", *row, A.nrows, type, A.device);
  if (col) check_dense_vector(op, "the column scaling", *col, A.ncols, type, A.device);
  const Backend& be = backend_for(A.device);
  const auto entry = required(graph_of(be) ? be.graph->scale_sparse : nullptr, op, A.device);
  SparseStorage T;
  begin_dispatch(op, be.name);
  entry(T, A, type, row ? row->values.data() : nullptr, col ? col->values.data() : nullptr, pattern_only,
        unit_diagonal);
  end_dispatch();
  return T;
}

}  // namespace geblas::detail
