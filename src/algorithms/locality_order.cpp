// Reverse Cuthill-McKee (Cuthill and McKee 1969, reversed as George 1971 suggests) over
// the pattern of A + A', each component started from a pseudo-peripheral vertex found
// by George and Liu's search (1979). Runs on the host: the order is a one-off set-up
// step of O(nnz), while the products it speeds up run many times.
#include "geblas/algorithms/locality_order.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "algorithms/checks.hpp"

namespace geblas::algo {
namespace {

using Vertex = std::int32_t;  // ColIndex: vertex ids fit in 32 bits (A's columns do)

// The undirected adjacency of A's pattern: row i lists j for each stored A(i, j) and
// A(j, i), i != j. A pair stored both ways appears twice; the traversal reads each
// vertex once whatever its list holds, and the degrees count such edges twice alike.
struct Adjacency {
  std::vector<Index> offsets;
  std::vector<Vertex> targets;
  Index degree(Index v) const {
    return offsets[static_cast<std::size_t>(v) + 1] - offsets[static_cast<std::size_t>(v)];
  }
};

Adjacency symmetric_adjacency(Index n, const Index* ro, const ColIndex* ci) {
  Adjacency g;
  g.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  for (Index i = 0; i < n; ++i)
    for (Index e = ro[i]; e < ro[i + 1]; ++e) {
      const Index j = ci[e];
      if (j == i) continue;
      ++g.offsets[static_cast<std::size_t>(i) + 1];
      ++g.offsets[static_cast<std::size_t>(j) + 1];
    }
  std::partial_sum(g.offsets.begin(), g.offsets.end(), g.offsets.begin());
  g.targets.resize(static_cast<std::size_t>(g.offsets.back()));
  std::vector<Index> fill(g.offsets.begin(), g.offsets.end() - 1);
  for (Index i = 0; i < n; ++i)
    for (Index e = ro[i]; e < ro[i + 1]; ++e) {
      const Index j = ci[e];
      if (j == i) continue;
      g.targets[static_cast<std::size_t>(fill[static_cast<std::size_t>(i)]++)] = static_cast<Vertex>(j);
      g.targets[static_cast<std::size_t>(fill[static_cast<std::size_t>(j)]++)] = static_cast<Vertex>(i);
    }
  return g;
}

// The breadth-first level structure of root's component among the vertices not yet
// ordered: its vertices level by level, the number of levels, and where the last begins.
// `stamp` marks the vertices this search reached (stamp[v] == id), so that the repeated
// searches for the peripheral vertex need no clearing.
struct Levels {
  std::vector<Vertex> seq;
  std::size_t last = 0;
  Index depth = 0;
};

Levels levels_from(const Adjacency& g, Vertex root, const std::vector<char>& ordered, std::vector<Index>& stamp,
                   Index id) {
  Levels l;
  l.seq.push_back(root);
  stamp[static_cast<std::size_t>(root)] = id;
  std::size_t begin = 0;
  while (begin < l.seq.size()) {
    const std::size_t end = l.seq.size();
    l.last = begin;
    ++l.depth;
    for (std::size_t q = begin; q < end; ++q) {
      const Vertex v = l.seq[q];
      for (Index e = g.offsets[static_cast<std::size_t>(v)]; e < g.offsets[static_cast<std::size_t>(v) + 1]; ++e) {
        const Vertex u = g.targets[static_cast<std::size_t>(e)];
        if (ordered[static_cast<std::size_t>(u)] || stamp[static_cast<std::size_t>(u)] == id) continue;
        stamp[static_cast<std::size_t>(u)] = id;
        l.seq.push_back(u);
      }
    }
    begin = end;
  }
  return l;
}

template <class T>
std::vector<Index> reverse_cuthill_mckee(const SparseMatrix<T>& A) {
  detail::require_square("locality_order", A.nrows(), A.ncols());
  const Index n = A.nrows();
  // A's structure in place, or one copy of it from the GPU
  std::optional<SparseMatrix<T>> copy;
  if (!A.device().is_cpu()) copy = A.to(Device::cpu());
  const SparseMatrix<T>& host = copy ? *copy : A;
  const Adjacency g = symmetric_adjacency(n, host.row_offsets_data(), host.col_indices_data());
  // Components start from their vertex of least degree; the vertices in that order are
  // scanned once for the next start.
  std::vector<Vertex> by_degree(static_cast<std::size_t>(n));
  std::iota(by_degree.begin(), by_degree.end(), Vertex{0});
  std::stable_sort(by_degree.begin(), by_degree.end(), [&](Vertex a, Vertex b) { return g.degree(a) < g.degree(b); });
  std::vector<char> ordered(static_cast<std::size_t>(n), 0);
  std::vector<Index> stamp(static_cast<std::size_t>(n), -1);
  std::vector<Vertex> order;
  order.reserve(static_cast<std::size_t>(n));
  std::vector<Vertex> reached;
  Index search = 0;  // the stamp of each level search
  for (Vertex start : by_degree) {
    if (ordered[static_cast<std::size_t>(start)]) continue;
    // George and Liu: move to a vertex of least degree in the last level while that
    // makes the level structure deeper (two or three searches in practice; capped at 8
    // so that no graph costs more than a bounded number of passes).
    Vertex root = start;
    Levels levels = levels_from(g, root, ordered, stamp, search++);
    for (int tries = 0; tries < 8 && levels.seq.size() > 1; ++tries) {
      Vertex candidate = levels.seq[levels.last];
      for (std::size_t q = levels.last; q < levels.seq.size(); ++q) {
        const Vertex v = levels.seq[q];
        if (g.degree(v) < g.degree(candidate) || (g.degree(v) == g.degree(candidate) && v < candidate)) candidate = v;
      }
      Levels deeper = levels_from(g, candidate, ordered, stamp, search++);
      if (deeper.depth <= levels.depth) break;
      root = candidate;
      levels = std::move(deeper);
    }
    // Cuthill-McKee from the root: a breadth-first order in which each vertex's newly
    // reached neighbours are taken by increasing degree (then id).
    const std::size_t first = order.size();
    order.push_back(root);
    ordered[static_cast<std::size_t>(root)] = 1;
    for (std::size_t q = first; q < order.size(); ++q) {
      const Vertex v = order[q];
      reached.clear();
      for (Index e = g.offsets[static_cast<std::size_t>(v)]; e < g.offsets[static_cast<std::size_t>(v) + 1]; ++e) {
        const Vertex u = g.targets[static_cast<std::size_t>(e)];
        if (ordered[static_cast<std::size_t>(u)]) continue;
        ordered[static_cast<std::size_t>(u)] = 1;
        reached.push_back(u);
      }
      std::sort(reached.begin(), reached.end(),
                [&](Vertex a, Vertex b) { return g.degree(a) != g.degree(b) ? g.degree(a) < g.degree(b) : a < b; });
      order.insert(order.end(), reached.begin(), reached.end());
    }
  }
  return std::vector<Index>(order.rbegin(), order.rend());
}

}  // namespace

#define GEBLAS_ALGO_LOCALITY_DEF(TYPE) \
  std::vector<Index> locality_order(const SparseMatrix<TYPE>& A) { return reverse_cuthill_mckee(A); }
GEBLAS_ALGO_LOCALITY_DEF(bool)
GEBLAS_ALGO_LOCALITY_DEF(std::int32_t)
GEBLAS_ALGO_LOCALITY_DEF(std::int64_t)
GEBLAS_ALGO_LOCALITY_DEF(float)
GEBLAS_ALGO_LOCALITY_DEF(double)
#undef GEBLAS_ALGO_LOCALITY_DEF

}  // namespace geblas::algo
