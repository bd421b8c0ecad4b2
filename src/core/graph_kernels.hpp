// The graph-algorithm entries every backend provides, declared once: the steps of the
// algorithms in src/algorithms whose control must stay on the device. A BFS on a road
// graph has a thousand levels; a GraphBLAS formulation (one masked mxv per level) reads
// the frontier's size back to the host after every level, and that round trip costs more
// than the level. These entries keep the frontier, the level loop and the push/pull
// choice on the backend's device and hand back only scalars and per-round counts.
//
// Conventions (as backend.hpp's): every storage and pointer is on the backend's device;
// results are written into buffers the algorithm layer allocated there; counts and
// statistics come back in the argument structs' host fields. Everything an algorithm can
// express as operations (transposes, degrees, patterns, scalings, reductions) it does
// with operations; these entries are the iteration kernels only.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "geblas/detail/storage.hpp"

namespace geblas::detail {

// Vertex ids, levels, parents and labels (algo::VertexId).
using GraphVertex = std::int64_t;

// ---- PageRank iterations (plain PageRank and single-set personalized PageRank).
// With A' in CSR (row i lists i's in-neighbours j, values w(j, i) when weighted):
//   x_next(i)  = teleport(i) + sum_j w(j, i) * xs(j)
//   xs_next(i) = x_next(i) * scale(i)
//   delta      = sum_i |x_next(i) - x(i)|
// where the caller set scale(j) = d / out(j) (0 for a dangling j). All vectors hold n
// values of At's type (float or double).
struct PageRankIterate {
  const SparseStorage* At = nullptr;
  bool weighted = false;           // multiply by At's values; otherwise every w is 1
  const void* scale = nullptr;
  const void* teleport = nullptr;  // n values; null: every entry is teleport_uniform
  double teleport_uniform = 0;
  void* x[2] = {};                 // the iterate, ping-pong: x[current] is the latest
  void* xs[2] = {};                // x[slot] .* scale, kept with it
  double tolerance = 0;
  // When set, the batch first writes the start into slot `current`: x = start (n
  // values) or, when start is null, every x(i) = start_uniform; and xs = x .* scale.
  bool initialise = false;
  const void* start = nullptr;
  double start_uniform = 0;
  // When set (count doubles on the device), iteration j of the batch writes its change
  // to deltas_on_device[j] and nothing is read back: the batch runs all `count`
  // iterations and returns no deltas. The distributed PageRank runs one iteration per
  // batch this way on each rank's rows (At then spans the rank's columns and its halo,
  // xs the owned values followed by the received ones), and sums the changes over
  // ranks on the devices before the one read-back of the step.
  double* deltas_on_device = nullptr;
};

struct PageRankBatch {
  int current = 0;             // the slot holding the latest iterate after the batch
  std::vector<double> deltas;  // the L1 change of each iteration run, in order
};

// ---- single-source BFS over the pattern of A (A(i, j): edge i -> j).
struct BfsRun {
  const SparseStorage* A = nullptr;   // out-edges (push)
  const SparseStorage* At = nullptr;  // in-edges (pull); equal to A for a symmetric pattern
  std::int64_t source = 0;
  int direction = 0;                  // 0 automatic, 1 push only, 2 pull only
  GraphVertex* levels = nullptr;      // out: n entries, -1 where unreached, 0 at the source
  GraphVertex* parents = nullptr;     // out: n entries, -1 where unreached; the source is its own
                                      // parent, any other vertex its smallest in-neighbour one
                                      // level up
  // host results
  int depth = 0;                          // largest level
  std::int64_t reached = 0;               // vertices with a level
  double edges_examined = 0;              // entries of A / A' read by the traversal
  std::vector<std::int64_t> level_sizes;  // vertices first reached at level 1, 2, ..., depth
};

// ---- BFS from many sources in one traversal over the pattern of A, pulling through A'.
// Column c of the n x k column-major results (leading dimension n) belongs to
// sources[c]: levels -1 where unreached, parents as BfsRun's (the smallest in-neighbour
// one level up; the source is its own parent).
struct BfsManyRun {
  const SparseStorage* At = nullptr;  // in-edges, rows sorted
  std::vector<std::int64_t> sources;  // on the host
  GraphVertex* levels = nullptr;      // out: n x k
  GraphVertex* parents = nullptr;     // out: n x k
  // host results
  int depth = 0;                           // largest level over all sources
  double edges_examined = 0;               // entries of A' read
  std::vector<double> reached_per_level;   // (vertex, source) pairs first reached at level 1, 2, ...
};

// ---- one level of the distributed, level-synchronous BFS on one rank's rows (dist::bfs):
// row-major m x k arrays, column c for source c, rows numbered from first_row globally.
// Where candidates(i, c) is a vertex (not INT64_MAX) and levels(i, c) < 0, the vertex is
// reached: levels = level, parents = candidates, frontier = its global id; frontier is
// INT64_MAX everywhere else.
struct BfsLevelStep {
  Device device{};  // where the arrays are
  std::int64_t m = 0, k = 0;
  std::int64_t first_row = 0;
  std::int64_t level = 0;
  const GraphVertex* candidates = nullptr;  // the smallest in-neighbour on the frontier
  GraphVertex* levels = nullptr;
  GraphVertex* parents = nullptr;
  GraphVertex* frontier = nullptr;
  double* reached = nullptr;  // out, one value on the device: the vertices reached (all columns)
};

// ---- single-source shortest paths, weights >= 0 (the algorithm layer checks them).
struct SsspRun {
  const SparseStorage* A = nullptr;  // float or double weights, A(i, j) = weight of i -> j
  std::int64_t source = 0;
  void* distances = nullptr;         // out: n values of A's type; +inf where unreachable
  double delta = 1;                  // bucket width (> 0): a frontier takes the vertices whose
                                     // distance is below the threshold, which moves in steps of delta
  // host results
  int rounds = 0;             // relaxation rounds (frontier expansions) run
  double edges_relaxed = 0;   // entries of A scanned
};

// ---- connected components of the undirected graph under A's pattern.
// Square A, any type (only its pattern is read).
struct ComponentsRun {
  const SparseStorage* A = nullptr;  // edges used in both directions; self-loops ignored
  GraphVertex* labels = nullptr;     // out: n entries, each the smallest vertex id of its component
  // host results
  int rounds = 0;          // passes over A's entries (the union-find hooking needs one)
  std::int64_t count = 0;  // number of components (computed where the labels are)
};

// ---- triangles of the undirected simple graph under A's pattern.
// Square A, any type (only its pattern is read): every entry is an edge in both
// directions, self-loops and duplicate entries are ignored. The backend orients each
// edge once, from its lower-ranked end to its higher-ranked one (ranks: vertex ids, or
// (degree, id) when the degrees are skewed, see core/triangle_ranking.hpp), and counts,
// for every oriented edge u -> v, the common out-neighbours of u and v: each triangle
// a < b < c (in rank order) is found once, at a -> b through c.
struct TriangleCountRun {
  const SparseStorage* A = nullptr;
  // host results
  std::int64_t triangles = 0;
  bool degree_ranked = false;   // ranks by (degree, id) rather than by id
  double oriented_edges = 0;    // edges of the undirected simple graph
};

struct GraphKernels {
  // Runs up to `count` PageRank iterations from slot `current`, stopping after the first
  // whose delta is below args.tolerance (see deltas_on_device for the other mode);
  // count = 0 only initialises when asked to. A device may queue the whole batch before it
  // reads one delta back, so a batch costs one host synchronisation.
  PageRankBatch (*pagerank_iterate)(const PageRankIterate& args, int current, int count);
  void (*bfs)(BfsRun& run);
  // Queued on the device; nothing is read back (the count stays in step.reached).
  void (*bfs_level_step)(const BfsLevelStep& step);
  void (*sssp)(SsspRun& run);
  void (*connected_components)(ComponentsRun& run);
  // T = diag(row) * A * diag(col) with A's pattern, of `type` (A's own type or, with
  // pattern_only, any type: every A(i, j) then reads as 1). A null factor is all ones;
  // row has A.nrows values and col A.ncols values, of `type`. With unit_diagonal, every
  // diagonal position (i, i) that A lacks is added with the value 1 before the scaling
  // (the pattern of A + I, which GCN's normalisation needs; a stored A(i, i) keeps its
  // value). T is replaced.
  void (*scale_sparse)(SparseStorage& T, const SparseStorage& A, TypeId type, const void* row, const void* col,
                       bool pattern_only, bool unit_diagonal);
  // The triangles of the undirected graph under A's pattern, counted where A lives with
  // no set-up beyond O(nnz) and nothing kept (see TriangleCountRun).
  void (*triangle_count)(TriangleCountRun& run);
  // Optional (GEBLAS_GRAPH_OPTIONAL_ENTRIES; null where a backend has none, and the
  // algorithm then runs bfs once per source): all of run.sources in one traversal.
  void (*bfs_many)(BfsManyRun& run) = nullptr;
  // Optional (null where a backend has none, and the caller then treats the pattern as
  // not known to be symmetric): whether every entry (i, j) of A has its mirror (j, i),
  // tested exactly and kept in A's derived cache under pattern_symmetric_key.
  bool (*pattern_symmetric)(const SparseStorage& A) = nullptr;
};

// The entries, in the table's order: each backend declares them with
// GEBLAS_DECLARE_GRAPH_ENTRY (each takes its table field's signature, so a backend that
// disagrees fails to compile) and fills its table with GEBLAS_GRAPH_TABLE_FIELD.
#define GEBLAS_GRAPH_ENTRIES(X) \
  X(pagerank_iterate) X(bfs) X(bfs_level_step) X(sssp) X(connected_components) X(scale_sparse) X(triangle_count)
#define GEBLAS_DECLARE_GRAPH_ENTRY(name) std::remove_pointer_t<decltype(::geblas::detail::GraphKernels::name)> name;
#define GEBLAS_GRAPH_TABLE_FIELD(name) .name = name,

// The entries a backend may leave null, each with its documented replacement path (see
// the field); a backend that has one sets it after its table's list fields.
#define GEBLAS_GRAPH_OPTIONAL_ENTRIES(X) X(bfs_many) X(pattern_symmetric)

// Every field of GraphKernels is in one of the two lists: the backends fill their tables
// from them, so a field left off would be a null entry at run time.
#define GEBLAS_GRAPH_ENTRY_COUNT(name) +1
static_assert(sizeof(GraphKernels) == (0 GEBLAS_GRAPH_ENTRIES(GEBLAS_GRAPH_ENTRY_COUNT)
                                           GEBLAS_GRAPH_OPTIONAL_ENTRIES(GEBLAS_GRAPH_ENTRY_COUNT)) *
                                          sizeof(void (*)()),
              "GraphKernels has a field that neither GEBLAS_GRAPH_ENTRIES nor GEBLAS_GRAPH_OPTIONAL_ENTRIES lists");
#undef GEBLAS_GRAPH_ENTRY_COUNT

}  // namespace geblas::detail
