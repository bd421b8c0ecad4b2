// Direction-optimising BFS on the host (Beamer, Asanovic & Patterson, "Direction-
// optimizing breadth-first search", SC 2012): push from the frontier through A while it
// is small, pull through A' (each unvisited vertex scans its in-list for a vertex of the
// previous level) while it is large. Every vertex gets the smallest in-neighbour of the
// previous level as parent in both directions: push takes the minimum over all frontier
// in-neighbours, pull stops at the first hit of a sorted in-list. A pull level tests
// in-neighbours against a bitmap of the frontier (n bits: a Kronecker graph's million
// vertices fit in L2, where their levels would not). A level with few frontier edges
// runs on the calling thread, a large one with OpenMP. Without A' (the algorithm layer
// passes only a cached one) an automatic traversal pulls through A itself when A's
// pattern is symmetric (symmetry.hpp, cached with A); a directed one pushes, and builds
// A' (cached with A) only once an earlier traversal of A wanted to pull.
#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <vector>

#include "core/derived_cache.hpp"
#include "core/trace.hpp"
#include "cpu/graph/graph.hpp"
#include "cpu/graph/symmetry.hpp"
#include "cpu/graph/traversal_policy.hpp"

namespace geblas::detail::cpu::graph {
namespace {

using V = GraphVertex;

struct Csr {
  const Index* ro;
  const ColIndex* ci;
};

Csr view(const SparseStorage* s) { return {s->row_offsets.as<Index>(), s->col_indices.as<ColIndex>()}; }

void atomic_min(V& slot, V value) {
  std::atomic_ref<V> a(slot);
  V old = a.load(std::memory_order_relaxed);
  while (value < old && !a.compare_exchange_weak(old, value, std::memory_order_relaxed)) {
  }
}

// One push level: every frontier vertex offers itself to its unvisited out-neighbours.
// Returns the out-edges read.
double push_level(Csr A, const std::vector<V>& frontier, std::vector<V>& next, V* level, V* parent, V depth,
                  bool parallel) {
  double edges = 0;
  if (!parallel) {
    for (V u : frontier) {
      for (Index k = A.ro[u]; k < A.ro[u + 1]; ++k) {
        const V v = A.ci[k];
        if (level[v] < 0) {
          level[v] = depth;
          parent[v] = u;
          next.push_back(v);
        } else if (level[v] == depth && u < parent[v]) {
          parent[v] = u;
        }
      }
      edges += static_cast<double>(A.ro[u + 1] - A.ro[u]);
    }
    return edges;
  }
  const auto count = static_cast<Index>(frontier.size());
#pragma omp parallel reduction(+ : edges)
  {
    std::vector<V> mine;
#pragma omp for schedule(dynamic, 64) nowait
    for (Index f = 0; f < count; ++f) {
      const V u = frontier[static_cast<std::size_t>(f)];
      for (Index k = A.ro[u]; k < A.ro[u + 1]; ++k) {
        const V v = A.ci[k];
        std::atomic_ref<V> lv(level[v]);
        V seen = lv.load(std::memory_order_relaxed);
        if (seen < 0) {
          V expected = -1;
          if (lv.compare_exchange_strong(expected, depth, std::memory_order_relaxed)) {
            mine.push_back(v);
            seen = depth;
          } else {
            seen = expected;
          }
        }
        if (seen == depth) atomic_min(parent[v], u);  // else reached at an earlier level
      }
      edges += static_cast<double>(A.ro[u + 1] - A.ro[u]);
    }
#pragma omp critical
    next.insert(next.end(), mine.begin(), mine.end());
  }
  return edges;
}

// The mark a directed traversal that wanted to pull leaves with A (see bfs()). Shared,
// so that the cached entry (read-only) can still be set.
struct PullWish {
  std::shared_ptr<std::atomic<bool>> wanted = std::make_shared<std::atomic<bool>>(false);
};

// The frontier as a bitmap, one bit per vertex, for the pull step's tests.
struct FrontierBits {
  std::vector<std::uint64_t> words;
  void assign(const std::vector<V>& frontier, Index n) {
    words.assign(static_cast<std::size_t>((n + 63) / 64), 0);
    for (V u : frontier) words[static_cast<std::size_t>(u >> 6)] |= std::uint64_t{1} << (u & 63);
  }
  bool has(V u) const { return (words[static_cast<std::size_t>(u >> 6)] >> (u & 63)) & 1; }
};

// One pull level over every unvisited vertex. Returns the in-edges read.
double pull_level(Csr At, Index n, const FrontierBits& frontier, std::vector<V>& next, V* level, V* parent, V depth,
                  bool parallel) {
  double edges = 0;
  // Only the visiting thread writes level[v] and parent[v]; the frontier is read from
  // the bitmap, which no one writes during the level.
  auto visit = [&](Index v, std::vector<V>& out, double& scanned) {
    if (level[v] >= 0) return;
    for (Index k = At.ro[v]; k < At.ro[v + 1]; ++k) {
      const V u = At.ci[k];
      if (frontier.has(u)) {
        level[v] = depth;
        parent[v] = u;
        out.push_back(v);
        scanned += static_cast<double>(k - At.ro[v] + 1);
        return;
      }
    }
    scanned += static_cast<double>(At.ro[v + 1] - At.ro[v]);
  };
  if (!parallel) {
    for (Index v = 0; v < n; ++v) visit(v, next, edges);
    return edges;
  }
#pragma omp parallel reduction(+ : edges)
  {
    std::vector<V> mine;
#pragma omp for schedule(dynamic, 1024) nowait
    for (Index v = 0; v < n; ++v) visit(v, mine, edges);
#pragma omp critical
    next.insert(next.end(), mine.begin(), mine.end());
  }
  return edges;
}

}  // namespace

void bfs(BfsRun& run) {
  const Index n = run.A->nrows;
  // Without A' (see BfsRun) the traversal pulls through A when its pattern is symmetric.
  // A directed one builds A' (cached with A) only when a traversal of the same matrix
  // has already wanted to pull: a scatter of every entry costs more than pulling saves
  // in one traversal (push reads each entry at most once), so a one-shot call pushes,
  // and a matrix traversed again pays for A' once.
  const SparseStorage* in = run.At;
  std::shared_ptr<const SparseStorage> built;
  if (!in && run.direction != 1 && pattern_symmetric(*run.A)) in = run.A;
  const bool may_build = !in && run.direction == 0;
  const auto wish = may_build ? derived<PullWish>(*run.A, "bfs:pull_wanted", [] { return PullWish{}; }) : nullptr;
  bool wished = false;
  const Csr A = view(run.A);
  Csr At = in ? view(in) : Csr{nullptr, nullptr};
  FrontierBits bits;
  V* level = run.levels;
  V* parent = run.parents;
  std::fill(level, level + n, V{-1});
  // Parents start above every id so that push can take a minimum; unreached vertices
  // get -1 at the end.
  std::fill(parent, parent + n, std::numeric_limits<V>::max());
  level[run.source] = 0;
  parent[run.source] = run.source;
  run.depth = 0;
  run.reached = 1;
  run.edges_examined = 0;
  run.level_sizes.clear();

  std::vector<V> frontier{run.source}, next;
  // Beamer's counters: edges out of the frontier (m_f) and edges into unvisited
  // vertices (m_u, every in-edge of a vertex not yet reached; by in-degrees when A' was
  // given, else by out-degrees: exact for a symmetric pattern, for a directed one an
  // estimate with the same total).
  const Index* in_degree_ro = in ? At.ro : A.ro;
  double unexplored_edges = static_cast<double>(run.A->nvals) -
                            static_cast<double>(in_degree_ro[run.source + 1] - in_degree_ro[run.source]);
  double frontier_edges = static_cast<double>(A.ro[run.source + 1] - A.ro[run.source]);
  bool pulling = run.direction == 2;
  for (V depth = 1; !frontier.empty(); ++depth) {
    if (run.direction == 0 && (in || (may_build && !wished))) {
      // Pull also needs a frontier of at least n/beta vertices (the condition for staying
      // in pull): a pull level visits every vertex, and at the end of a road graph's BFS
      // m_u is tiny, so the edge rule alone would flip push/pull every level there.
      const bool large = static_cast<double>(frontier.size()) * TraversalPolicy::pull_to_push >= static_cast<double>(n);
      if (!pulling && large && frontier_edges * TraversalPolicy::push_to_pull > unexplored_edges) pulling = true;
      else if (pulling && !large) pulling = false;
      if (pulling && !in) {
        if (wish->wanted->exchange(true)) {
          built = cached_transpose(*run.A);
          in = built.get();
          At = view(in);
        } else {
          wished = true;
          pulling = false;
        }
      }
    }
    next.clear();
    if (pulling) {
      // A pull level reads at least one entry per vertex: the same work bound as push.
      bits.assign(frontier, n);
      run.edges_examined +=
          pull_level(At, n, bits, next, level, parent, depth, n >= TraversalPolicy::parallel_min_edges);
    } else {
      const bool parallel = frontier_edges >= static_cast<double>(TraversalPolicy::parallel_min_edges) &&
                            frontier.size() > 1;
      run.edges_examined += push_level(A, frontier, next, level, parent, depth, parallel);
    }
    if (next.empty()) break;
    run.depth = static_cast<int>(depth);
    run.reached += static_cast<std::int64_t>(next.size());
    run.level_sizes.push_back(static_cast<std::int64_t>(next.size()));
    frontier_edges = 0;
    for (V v : next) {
      frontier_edges += static_cast<double>(A.ro[v + 1] - A.ro[v]);
      unexplored_edges -= static_cast<double>(in_degree_ro[v + 1] - in_degree_ro[v]);
    }
    std::swap(frontier, next);
  }
  for (Index v = 0; v < n; ++v)
    if (level[v] < 0) parent[v] = -1;
  DispatchRecord& rec = current_dispatch();
  rec.variant = in ? "direction_optimising" : "push";
  rec.reason = !in        ? (run.direction == 1 ? "push forced"
                             : wished            ? "pushes: A' not cached, built when A is traversed again"
                                                 : "never worth pulling, A' not built")
               : in == run.A ? "pulls through A: symmetric pattern"
               : built       ? "pulls through A', built for this call"
                             : "pulls through A'";
}

void bfs_level_step(const BfsLevelStep& s) {
  const std::int64_t total = s.m * s.k;
  double reached = 0;
#pragma omp parallel for schedule(static) reduction(+ : reached) if (total > (1 << 16))
  for (std::int64_t e = 0; e < total; ++e) {
    const GraphVertex y = s.candidates[e];
    if (y == std::numeric_limits<GraphVertex>::max() || s.levels[e] >= 0) {
      s.frontier[e] = std::numeric_limits<GraphVertex>::max();
      continue;
    }
    s.levels[e] = s.level;
    s.parents[e] = y;
    s.frontier[e] = s.first_row + e / s.k;
    reached += 1;
  }
  *s.reached = reached;  // the host is this backend's device
}

}  // namespace geblas::detail::cpu::graph
