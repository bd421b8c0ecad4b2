// Triangle counting on the host by ordered sorted-row intersection, the forward algorithm
// of Schank & Wagner as the GAP Benchmark Suite's ordered count runs it: every edge is
// kept once, in the out-list of its lower-ranked end (core/triangle_ranking.hpp decides
// whether ranks are ids or (degree, id)), out-lists are sorted, and each edge u -> v adds
// the common out-neighbours of u and v, found by marking u's list and scanning v's up to
// u's largest rank. The set-up is a handful of passes over A's entries (fold both
// directions into the out-lists, sort each list, drop duplicates); on a symmetric
// pattern each row is its own vertex's list filtered (ranked by degree: a count and a
// fill per row, then the sort) or, ranked by id, nothing: the rows above the diagonal
// are the out-lists. The only fact kept with A is whether its pattern is symmetric
// (symmetry.hpp), which a one-shot call tests unless the reader recorded it.
#include <algorithm>
#include <memory>
#include <vector>

#include <omp.h>

#include "core/trace.hpp"
#include "core/triangle_ranking.hpp"
#include "cpu/graph/graph.hpp"
#include "cpu/graph/symmetry.hpp"

namespace geblas::detail::cpu::graph {
namespace {

struct TrianglePolicy {
  // Entries of A from which the passes run on OpenMP threads. Below it the serial passes
  // win on the 2-core machine: luxembourg_osm (239k entries) counts in about 1 ms either
  // way, and forking costs more when it is loaded.
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

// The number of row ranges the fold splits A into, each counting into its own n + 1
// slots: the threads, but at most what keeps those counters within half the bytes of the
// lists they lay out (nnz / 4n ranges), so a sparse graph on many threads is not
// given more counter memory than its lists. 1: one serial pass.
int fold_parts(Index n, Index nnz, bool parallel) {
  if (!parallel || n == 0) return 1;
  const Index by_memory = nnz / (4 * n);
  const Index threads = omp_get_max_threads();
  return static_cast<int>(std::max<Index>(1, std::min(threads, by_memory)));
}

// Row boundaries of `parts` ranges of about nnz / parts entries each: cut[p] to cut[p + 1].
std::vector<Index> row_ranges(const Index* ro, Index n, int parts) {
  std::vector<Index> cut(static_cast<std::size_t>(parts) + 1, n);
  cut[0] = 0;
  for (int p = 1; p < parts; ++p)
    cut[static_cast<std::size_t>(p)] = std::upper_bound(ro, ro + n + 1, ro[n] / parts * p) - ro - 1;
  return cut;
}

// rank[v]: v's position among the vertices ordered by (degree, id), degree counting
// both directions of every entry other than a self-loop (duplicates count again: the
// ranks need only be a total order, the degrees only guide it). On a symmetric pattern
// the row lengths are those degrees (a self-loop counted once: it only moves the order),
// so no pass over the entries is needed. A counting sort: O(n + largest degree).
std::unique_ptr<ColIndex[]> degree_ranks(const Index* ro, const ColIndex* ci, Index n, bool symmetric, bool parallel) {
  std::vector<Index> degree(static_cast<std::size_t>(n), 0);
  Index* deg = degree.data();
  if (symmetric) {
#pragma omp parallel for schedule(static) if (parallel)
    for (Index i = 0; i < n; ++i) deg[i] = ro[i + 1] - ro[i];
  } else {
    // Column counts per row range (as orient's fold, for the same reason), then summed.
    const int parts = fold_parts(n, ro[n], parallel);
    const auto cut = row_ranges(ro, n, parts);
    const auto slots = static_cast<std::size_t>(n);
    std::vector<Index> partial(slots * static_cast<std::size_t>(parts - 1), 0);
#pragma omp parallel for schedule(static, 1) num_threads(parts) if (parts > 1)
    for (int p = 0; p < parts; ++p) {
      Index* own = p == 0 ? deg : partial.data() + slots * static_cast<std::size_t>(p - 1);
      for (Index i = cut[static_cast<std::size_t>(p)]; i < cut[static_cast<std::size_t>(p) + 1]; ++i)
        for (Index k = ro[i]; k < ro[i + 1]; ++k) {
          const Index j = ci[k];
          if (j == i) continue;
          ++own[i];
          ++own[j];
        }
    }
#pragma omp parallel for schedule(static) if (parts > 1)
    for (Index v = 0; v < n; ++v)
      for (int p = 1; p < parts; ++p)
        deg[v] += partial[slots * static_cast<std::size_t>(p - 1) + static_cast<std::size_t>(v)];
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

// Sorts each list and drops its duplicates (end moves down over them).
void sort_lists(Oriented& g, Index n, bool parallel) {
  ColIndex* adj = g.owned.get();
  const Index* begin = g.begin.get();
  Index* end = g.end.get();
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
}

// Both directions of A: entry (i, j) goes to the lower-ranked end's list. Each of
// `parts` ranges of rows (of about equal entries) counts its own entries per list, and
// the prefix over (list, range) gives every range its own cursor in every list, so no two
// threads write one counter (an atomic counter per list passes its cache line between
// the threads on every entry).
template <class Rank>
Oriented orient(const Index* ro, const ColIndex* ci, Index n, Rank rank, bool parallel) {
  Oriented g(n);
  Index* begin = g.begin.get();
  Index* end = g.end.get();
  const Index nnz = ro[n];
  const int parts = fold_parts(n, nnz, parallel);
  const auto cut = row_ranges(ro, n, parts);
  const auto slots = static_cast<std::size_t>(n) + 1;
  std::vector<Index> cursor(slots * static_cast<std::size_t>(parts), 0);  // [part][list]
  auto each_part = [&](auto&& body) {
#pragma omp parallel for schedule(static, 1) num_threads(parts) if (parts > 1)
    for (int p = 0; p < parts; ++p) {
      Index* own = cursor.data() + slots * static_cast<std::size_t>(p);
      for (Index i = cut[static_cast<std::size_t>(p)]; i < cut[static_cast<std::size_t>(p) + 1]; ++i) {
        const ColIndex ri = rank(i);
        for (Index k = ro[i]; k < ro[i + 1]; ++k) {
          if (ci[k] == i) continue;
          const ColIndex rj = rank(ci[k]);
          body(own, ri, rj);
        }
      }
    }
  };
  each_part([](Index* own, ColIndex ri, ColIndex rj) { ++own[std::min(ri, rj)]; });
  Index at = 0;
  for (Index r = 0; r < n; ++r) {
    begin[r] = at;
    for (int p = 0; p < parts; ++p) {
      Index& c = cursor[slots * static_cast<std::size_t>(p) + static_cast<std::size_t>(r)];
      const Index count = c;
      c = at;
      at += count;
    }
    end[r] = at;
  }
  begin[n] = at;
  g.owned = std::make_unique_for_overwrite<ColIndex[]>(static_cast<std::size_t>(at));
  ColIndex* adj = g.owned.get();
  g.adj = adj;
  each_part([adj](Index* own, ColIndex ri, ColIndex rj) { adj[own[std::min(ri, rj)]++] = std::max(ri, rj); });
  sort_lists(g, n, parallel);
  return g;
}

// Ranked by (degree, id) on a symmetric pattern: every edge is in both rows, so list
// rank(u) is the part of row u ranked above u, and each row fills its own list: a count
// and a fill per row, no atomic counters (whose cache lines the threads would pass back
// and forth on every entry in orient's fold) and sequential writes.
template <class Rank>
Oriented orient_symmetric(const Index* ro, const ColIndex* ci, Index n, Rank rank, bool parallel) {
  Oriented g(n);
  Index* begin = g.begin.get();
  Index* end = g.end.get();
  begin[0] = 0;
#pragma omp parallel for schedule(dynamic, 1024) if (parallel)
  for (Index i = 0; i < n; ++i) {
    const ColIndex ri = rank(i);
    Index above = 0;
    for (Index k = ro[i]; k < ro[i + 1]; ++k) above += rank(ci[k]) > ri;  // a self-loop's rank is ri
    begin[ri + 1] = above;
  }
  for (Index r = 0; r < n; ++r) begin[r + 1] += begin[r];
  g.owned = std::make_unique_for_overwrite<ColIndex[]>(static_cast<std::size_t>(begin[n]));
  ColIndex* adj = g.owned.get();
  g.adj = adj;
#pragma omp parallel for schedule(dynamic, 1024) if (parallel)
  for (Index i = 0; i < n; ++i) {
    const ColIndex ri = rank(i);
    Index at = begin[ri];
    for (Index k = ro[i]; k < ro[i + 1]; ++k) {
      const ColIndex rj = rank(ci[k]);
      if (rj > ri) adj[at++] = rj;
    }
    end[ri] = at;
  }
  sort_lists(g, n, parallel);
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
  const bool symmetric = pattern_symmetric(A);
  const Oriented g = [&] {
    if (ranking.by_degree) {
      const auto rank = degree_ranks(ro, ci, n, symmetric, parallel);
      return symmetric ? orient_symmetric(ro, ci, n, TableRank{rank.get()}, parallel)
                       : orient(ro, ci, n, TableRank{rank.get()}, parallel);
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
  rec.reason =
      ranking.reason +
      (symmetric ? (ranking.by_degree ? ", symmetric: oriented by rows" : ", symmetric: oriented in place") : "") +
      (parallel ? ", OpenMP" : ", serial");
}

}  // namespace geblas::detail::cpu::graph
