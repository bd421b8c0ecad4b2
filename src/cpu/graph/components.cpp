// Connected components on the host by Afforest (Sutton, Ben-Nun & Barak, IPDPS 2018):
// a concurrent union-find that links only a few sampled neighbours of every vertex
// first, which already joins most of a graph's giant component, then finds that
// component's label from a sample of vertices and processes the remaining edges of the
// other vertices only. The edges of the giant component's vertices are skipped, which
// is where most of a social or Kronecker graph's entries are.
//
// Skipping needs every edge to be seen from its end outside the giant component: true
// when A's pattern is known to be symmetric (an edge is in both rows), or when A' is
// cached (its rows give each vertex's in-edges too). Otherwise the giant component's
// rows are still read, but an entry costs one load: after the sampling every vertex
// points at its root, and an entry whose other end already points at the giant root
// joins nothing new; only the rest are linked. Correct for any pattern, and no symmetry
// test or transpose is paid for a one-shot call.
//
// The hooking is ECL-CC's (Jaiganesh & Burtscher, HPDC 2018): a root is hooked under
// the smaller root with a CAS and finds halve the paths they walk. Hooking only ever
// lowers a parent, so parent(v) <= v throughout, no cycle can form, and each tree's root
// is its smallest vertex: the label the contract asks for, after a final find.
#include <algorithm>
#include <atomic>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/derived_cache.hpp"
#include "core/trace.hpp"
#include "cpu/graph/graph.hpp"
#include "cpu/parallel.hpp"

namespace geblas::detail::cpu::graph {
namespace {

struct ComponentsPolicy {
  // Afforest's neighbour rounds: the paper finds 2 enough to join nearly all of a giant
  // component on its graphs (and GAP uses 2); not re-tuned here.
  static constexpr Index sampled_neighbours = 2;
  // Vertices whose root votes for the giant component's label (GAP samples 1024).
  static constexpr Index label_sample = 1024;
  // Rows per OpenMP work unit of the linking passes: dynamic, because a hub row costs as
  // much as thousands of road-graph rows; 256 keeps the scheduling overhead small on the
  // graphs of ../shared/data (not tuned further: a pass is one read of the entries).
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

// The most frequent root among evenly spaced vertices.
GraphVertex frequent_root(GraphVertex* parent, Index n) {
  const Index samples = std::min(n, ComponentsPolicy::label_sample);
  std::unordered_map<GraphVertex, Index> votes;
  GraphVertex best = -1;
  Index best_votes = 0;
  for (Index s = 0; s < samples; ++s) {
    const GraphVertex r = representative(parent, s * n / samples);
    const Index v = ++votes[r];
    if (v > best_votes) {
      best_votes = v;
      best = r;
    }
  }
  return best;
}

}  // namespace

void connected_components(ComponentsRun& run) {
  const SparseStorage& A = *run.A;
  const Index n = A.nrows;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  GraphVertex* parent = run.labels;
  const bool parallel = parallel_rows(n);
  run.rounds = 1;
  run.count = 0;
  if (n == 0) return;
  // Skipping is safe with A' or a pattern known to be symmetric; the test itself costs
  // about a pass over the entries, so it is never run here (BFS runs and caches it).
  const auto At = cached_transpose_if_any(A);
  const bool symmetric = !At && pattern_symmetric_if_known(A).value_or(false);
  const bool skip = symmetric || At;
  constexpr Index sampled = ComponentsPolicy::sampled_neighbours;
  // The sampled neighbours, the first two entries of every row, in two passes (each
  // OpenMP region is a barrier that a descheduled thread holds up on a loaded machine,
  // so there are as few as the algorithm allows). The first pass hooks each vertex,
  // still a singleton root, under its first neighbour when that one is smaller: the link
  // of that entry, with no CAS. The second links the first entries it could not (a
  // larger neighbour) and the second entries.
#pragma omp parallel for schedule(static) if (parallel)
  for (Index v = 0; v < n; ++v) parent[v] = (ro[v] < ro[v + 1] && ci[ro[v]] < v) ? ci[ro[v]] : v;
#pragma omp parallel for schedule(static) if (parallel)
  for (Index v = 0; v < n; ++v) {
    if (ro[v] < ro[v + 1] && ci[ro[v]] > v) unite(parent, v, ci[ro[v]]);
    for (Index k = ro[v] + 1; k < std::min(ro[v] + sampled, ro[v + 1]); ++k) unite(parent, v, ci[k]);
  }
  const GraphVertex giant = frequent_root(parent, n);
  if (skip) {
    // The rest, for the vertices outside the giant component (a find per vertex, which
    // also shortens the paths the last pass walks).
    const Index* tro = At ? At->row_offsets.as<Index>() : nullptr;
    const ColIndex* tci = At ? At->col_indices.as<ColIndex>() : nullptr;
#pragma omp parallel for schedule(dynamic, ComponentsPolicy::rows_per_chunk) if (parallel)
    for (Index v = 0; v < n; ++v) {
      if (representative(parent, v) == giant) continue;
      for (Index k = ro[v] + sampled; k < ro[v + 1]; ++k) unite(parent, v, ci[k]);
      if (At)  // the in-edges of v, which the skipped rows would have linked
        for (Index k = tro[v]; k < tro[v + 1]; ++k) unite(parent, v, tci[k]);
    }
  } else {
    // Every vertex at its root first, so that "already in the giant component" is one
    // load. Trees only merge, so a vertex seen under the giant root stays in v's tree
    // even if that root is hooked under a smaller one meanwhile.
#pragma omp parallel for schedule(static) if (parallel)
    for (Index v = 0; v < n; ++v)
      std::atomic_ref<GraphVertex>(parent[v]).store(representative(parent, v), std::memory_order_relaxed);
#pragma omp parallel for schedule(dynamic, ComponentsPolicy::rows_per_chunk) if (parallel)
    for (Index v = 0; v < n; ++v) {
      if (load(parent, v) != giant) {
        for (Index k = ro[v] + sampled; k < ro[v + 1]; ++k) unite(parent, v, ci[k]);
        continue;
      }
      for (Index k = ro[v] + sampled; k < ro[v + 1]; ++k)
        if (load(parent, ci[k]) != giant) unite(parent, v, ci[k]);
    }
  }
  std::int64_t roots = 0;
#pragma omp parallel for schedule(static) reduction(+ : roots) if (parallel)
  for (Index v = 0; v < n; ++v) {
    const GraphVertex r = representative(parent, v);
    std::atomic_ref<GraphVertex>(parent[v]).store(r, std::memory_order_relaxed);
    roots += r == v;
  }
  run.count = roots;
  DispatchRecord& rec = current_dispatch();
  rec.variant = "afforest";
  rec.reason = At ? "giant component skipped, in-edges from the cached A'"
                  : symmetric ? "giant component skipped, symmetric pattern"
                              : "giant component's rows filtered (pattern not known symmetric, no A')";
}

}  // namespace geblas::detail::cpu::graph
