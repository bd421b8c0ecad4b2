// Triangle counting on the host by ordered sorted-row intersection, the forward algorithm
// of Schank & Wagner as the GAP Benchmark Suite's ordered count runs it: every edge is
// kept once, in the out-list of its lower-ranked end (core/triangle_ranking.hpp decides
// whether ranks are ids or (degree, id)), out-lists are sorted, and each edge u -> v adds
// the common out-neighbours of u and v, found by marking u's list and scanning v's up to
// u's largest rank. The set-up is a handful of passes over A's entries (fold both
// directions into the out-lists, sort each list, drop duplicates), or, ranked by id on a
// symmetric pattern, none: the rows above the diagonal are the out-lists. The only fact
// kept with A is whether its pattern is symmetric (symmetry.hpp), which a one-shot call
// tests unless the reader recorded it.
#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "core/trace.hpp"
#include "core/triangle_ranking.hpp"
#include "cpu/graph/graph.hpp"
#include "cpu/graph/symmetry.hpp"

namespace geblas::detail::cpu::graph {
namespace {

struct TrianglePolicy {
  // Entries of A from which the passes run on OpenMP threads (with atomic counters in the
  // fold). Below it the serial passes win on the 2-core machine: luxembourg_osm (239k
  // entries) counts in about 1 ms either way, and forking costs more when it is loaded.
  static constexpr Index parallel_min_entries = Index{1} << 18;
  // Rows per dynamic work unit of the count: a hub's row costs as much as thousands of
  // short ones; 64 is GAP's chunk for the same loop, not re-tuned here.
  static constexpr int rows_per_chunk = 64;
  // Out-lists up to this length are sorted by insertion (they arrive as two sorted runs
  // when the fold is serial), longer ones by std::sort.
  static constexpr Index insertion_sort_max = 32;
};

// Ranks are ids.
struct IdRank {
  ColIndex operator()(Index v) const { return static_cast<ColIndex>(v); }
};
// Ranks by (degree, id), from a table.
struct TableRank {
  const ColIndex* rank;
  ColIndex operator()(Index v) const { return rank[v]; }
};

Index bump(Index& slot, bool atomic) {
  if (!atomic) return slot++;
  return std::atomic_ref<Index>(slot).fetch_add(1, std::memory_order_relaxed);
}

// rank[v]: v's position among the vertices ordered by (degree, id), degree counting
// both directions of every entry other than a self-loop (duplicates count again: the
// ranks need only be a total order, the degrees only guide it). A counting sort: O(n +
// largest degree).
std::unique_ptr<ColIndex[]> degree_ranks(const Index* ro, const ColIndex* ci, Index n, bool parallel) {
  std::vector<Index> degree(static_cast<std::size_t>(n), 0);
  Index* deg = degree.data();
#pragma omp parallel for schedule(static) if (parallel)
  for (Index i = 0; i < n; ++i) {
    Index own = 0;
    for (Index k = ro[i]; k < ro[i + 1]; ++k) {
      const Index j = ci[k];
      if (j == i) continue;
      ++own;
      bump(deg[j], parallel);
    }
    if (parallel) std::atomic_ref<Index>(deg[i]).fetch_add(own, std::memory_order_relaxed);
    else deg[i] += own;
  }
  const Index largest = n > 0 ? *std::max_element(deg, deg + n) : 0;
  std::vector<Index> start(static_cast<std::size_t>(largest) + 2, 0);
  for (Index v = 0; v < n; ++v) ++start[static_cast<std::size_t>(deg[v]) + 1];
  for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
  auto rank = std::make_unique_for_overwrite<ColIndex[]>(static_cast<std::size_t>(n));
  for (Index v = 0; v < n; ++v) rank[v] = static_cast<ColIndex>(start[static_cast<std::size_t>(deg[v])]++);
  return rank;
}

// The oriented graph: out-list of rank r in adj[begin[r], end[r]), sorted, no duplicates.
// `adj` points into `owned`, or into A's own column indices (see in_place).
struct Oriented {
  explicit Oriented(Index n)
      : begin(std::make_unique_for_overwrite<Index[]>(static_cast<std::size_t>(n) + 1)),
        end(std::make_unique_for_overwrite<Index[]>(static_cast<std::size_t>(n))) {}
  std::unique_ptr<Index[]> begin, end;
  std::unique_ptr<ColIndex[]> owned;
  const ColIndex* adj = nullptr;
};

// Ranks by id on a symmetric pattern: the out-list of u is the part of row u above the
// diagonal, already sorted and unique, so the oriented graph is a view of A (a binary
// search per row) and nothing is copied or sorted.
Oriented in_place(const Index* ro, const ColIndex* ci, Index n, bool parallel) {
  Oriented g(n);
  Index* begin = g.begin.get();
  Index* end = g.end.get();
#pragma omp parallel for schedule(static) if (parallel)
  for (Index u = 0; u < n; ++u) {
    begin[u] = std::upper_bound(ci + ro[u], ci + ro[u + 1], static_cast<ColIndex>(u)) - ci;
    end[u] = ro[u + 1];
  }
  begin[n] = ro[n];
  g.adj = ci;
  return g;
}

template <class Rank>
Oriented orient(const Index* ro, const ColIndex* ci, Index n, Rank rank, bool parallel) {
  Oriented g(n);
  Index* begin = g.begin.get();
  Index* end = g.end.get();
#pragma omp parallel for schedule(static) if (parallel)
  for (Index r = 0; r <= n; ++r) begin[r] = 0;
  // Both directions of A in one pass: entry (i, j) goes to the lower-ranked end's list.
#pragma omp parallel for schedule(static) if (parallel)
  for (Index i = 0; i < n; ++i) {
    const ColIndex ri = rank(i);
    for (Index k = ro[i]; k < ro[i + 1]; ++k) {
      if (ci[k] == i) continue;
      const ColIndex rj = rank(ci[k]);
      bump(begin[std::min(ri, rj) + 1], parallel);
    }
  }
  for (Index r = 0; r < n; ++r) begin[r + 1] += begin[r];
  g.owned = std::make_unique_for_overwrite<ColIndex[]>(static_cast<std::size_t>(begin[n]));
  ColIndex* adj = g.owned.get();
  g.adj = adj;
  std::copy(begin, begin + n, end);  // end[r] is list r's cursor while filling
#pragma omp parallel for schedule(static) if (parallel)
  for (Index i = 0; i < n; ++i) {
    const ColIndex ri = rank(i);
    for (Index k = ro[i]; k < ro[i + 1]; ++k) {
      if (ci[k] == i) continue;
      const ColIndex rj = rank(ci[k]);
      adj[bump(end[std::min(ri, rj)], parallel)] = std::max(ri, rj);
    }
  }
#pragma omp parallel for schedule(dynamic, 1024) if (parallel)
  for (Index r = 0; r < n; ++r) {
    ColIndex* first = adj + begin[r];
    ColIndex* last = adj + end[r];
    if (last - first <= TrianglePolicy::insertion_sort_max) {
      for (ColIndex* p = first + 1; p < last; ++p) {
        const ColIndex x = *p;
        ColIndex* q = p;
        for (; q > first && q[-1] > x; --q) *q = q[-1];
        *q = x;
      }
    } else {
      std::sort(first, last);
    }
    end[r] = std::unique(first, last) - adj;
  }
  return g;
}

// Sum over edges u -> v of |out(u) and out(v)|: u's list is marked in a byte per
// vertex, and each v of it scans its own list for marks, stopping past u's largest
// rank (nothing above it can be common). Against a merge per edge this reads u's list
// twice rather than once per v, and the marks (n bytes) stay in cache.
std::int64_t count_ordered(const Oriented& g, Index n, bool parallel) {
  const Index* begin = g.begin.get();
  const Index* end = g.end.get();
  const ColIndex* adj = g.adj;
  std::int64_t total = 0;
#pragma omp parallel reduction(+ : total) if (parallel)
  {
    std::vector<std::uint8_t> marked(static_cast<std::size_t>(n), 0);
#pragma omp for schedule(dynamic, TrianglePolicy::rows_per_chunk)
    for (Index u = 0; u < n; ++u) {
      const ColIndex* const first = adj + begin[u];
      const ColIndex* const last = adj + end[u];
      if (last - first < 2) continue;  // a triangle at u needs two out-neighbours
      for (const ColIndex* p = first; p < last; ++p) marked[static_cast<std::size_t>(*p)] = 1;
      const ColIndex top = last[-1];
      std::int64_t common = 0;
      for (const ColIndex* p = first; p < last - 1; ++p) {
        const ColIndex v = *p;
        for (const ColIndex *q = adj + begin[v], *qe = adj + end[v]; q < qe && *q <= top; ++q)
          common += marked[static_cast<std::size_t>(*q)];
      }
      for (const ColIndex* p = first; p < last; ++p) marked[static_cast<std::size_t>(*p)] = 0;
      total += common;
    }
  }
  return total;
}

}  // namespace

void triangle_count(TriangleCountRun& run) {
  const SparseStorage& A = *run.A;
  const Index n = A.nrows;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  const bool parallel = A.nvals >= TrianglePolicy::parallel_min_entries;
  const Index samples = ranking_sample_size(n);
  std::vector<Index> lengths(static_cast<std::size_t>(samples));
  for (Index s = 0; s < samples; ++s) {
    const Index v = ranking_sample_vertex(s, n);
    lengths[static_cast<std::size_t>(s)] = ro[v + 1] - ro[v];
  }
  const TriangleRanking ranking = choose_triangle_ranking(std::move(lengths));
  // The symmetry test is the one BFS and CC use, cached with A; its own cost is about one
  // of orient's passes, which it saves several of.
  const bool symmetric = !ranking.by_degree && pattern_symmetric(A);
  const Oriented g = [&] {
    if (ranking.by_degree) {
      const auto rank = degree_ranks(ro, ci, n, parallel);
      return orient(ro, ci, n, TableRank{rank.get()}, parallel);
    }
    return symmetric ? in_place(ro, ci, n, parallel) : orient(ro, ci, n, IdRank{}, parallel);
  }();
  run.triangles = n > 0 ? count_ordered(g, n, parallel) : 0;
  run.degree_ranked = ranking.by_degree;
  double edges = 0;
  for (Index r = 0; r < n; ++r) edges += static_cast<double>(g.end[r] - g.begin[r]);
  run.oriented_edges = edges;
  DispatchRecord& rec = current_dispatch();
  rec.variant = "ordered_merge";
  rec.reason = ranking.reason + (symmetric ? ", symmetric: oriented in place" : "") + (parallel ? ", OpenMP" : ", serial");
}

}  // namespace geblas::detail::cpu::graph
