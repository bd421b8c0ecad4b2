// Connected components on the CPU by concurrent union-find, the hooking of ECL-CC
// (Jaiganesh & Burtscher, HPDC 2018) run over OpenMP threads: every stored entry
// (i, j) unites i's and j's trees, a root is hooked under the smaller root with a CAS,
// and finds halve the paths they walk. Hooking only ever lowers a parent, so parent(v)
// <= v throughout, no cycle can form, and each tree's root is its smallest vertex: the
// label the contract asks for, after one pass over the entries and a final find.
#include <algorithm>
#include <atomic>

#include "cpu/graph/graph.hpp"
#include "cpu/parallel.hpp"

namespace geblas::detail::cpu::graph {
namespace {

struct ComponentsPolicy {
  // Rows per OpenMP work unit of the hooking pass: dynamic, because a hub row costs as
  // much as thousands of road-graph rows; 256 keeps the scheduling overhead small on the
  // graphs of ../shared/data (not tuned further: the pass is one read of the entries).
  static constexpr int rows_per_chunk = 256;
};

// Parents are read and written by several threads: relaxed atomics suffice because a
// stale parent is still an ancestor (trees only merge), and the CAS of a hook always
// sees the current value.
inline GraphVertex load(GraphVertex* parent, GraphVertex v) {
  return std::atomic_ref<GraphVertex>(parent[v]).load(std::memory_order_relaxed);
}

// The root of v's tree, halving the path on the way (each visited vertex is pointed at
// its grandparent, an ancestor it already had).
GraphVertex representative(GraphVertex* parent, GraphVertex v) {
  GraphVertex cur = load(parent, v);
  if (cur == v) return v;
  GraphVertex prev = v, next;
  while (cur > (next = load(parent, cur))) {
    std::atomic_ref<GraphVertex>(parent[prev]).store(next, std::memory_order_relaxed);
    prev = cur;
    cur = next;
  }
  return cur;
}

void unite(GraphVertex* parent, GraphVertex a, GraphVertex b) {
  GraphVertex ra = representative(parent, a), rb = representative(parent, b);
  while (ra != rb) {
    if (ra < rb) std::swap(ra, rb);  // hook the larger root under the smaller one
    GraphVertex expected = ra;
    if (std::atomic_ref<GraphVertex>(parent[ra]).compare_exchange_strong(expected, rb, std::memory_order_relaxed))
      return;
    ra = expected;  // ra was hooked meanwhile: climb from its new parent
  }
}

}  // namespace

void connected_components(ComponentsRun& run) {
  const SparseStorage& A = *run.A;
  const Index n = A.nrows;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  GraphVertex* parent = run.labels;
  const bool parallel = parallel_rows(n);
  // Start each vertex under its smallest neighbour when that one is smaller (rows are
  // sorted, so it is the row's first entry): many hooks are then already done.
#pragma omp parallel for schedule(static) if (parallel)
  for (Index i = 0; i < n; ++i) parent[i] = (ro[i] < ro[i + 1] && ci[ro[i]] < i) ? ci[ro[i]] : i;
#pragma omp parallel for schedule(dynamic, ComponentsPolicy::rows_per_chunk) if (parallel)
  for (Index i = 0; i < n; ++i)
    for (Index k = ro[i]; k < ro[i + 1]; ++k)
      if (ci[k] != i) unite(parent, i, ci[k]);
  std::int64_t roots = 0;
#pragma omp parallel for schedule(static) reduction(+ : roots) if (parallel)
  for (Index i = 0; i < n; ++i) {
    const GraphVertex r = representative(parent, i);
    std::atomic_ref<GraphVertex>(parent[i]).store(r, std::memory_order_relaxed);
    roots += r == i;
  }
  run.rounds = 1;
  run.count = roots;
}

}  // namespace geblas::detail::cpu::graph
