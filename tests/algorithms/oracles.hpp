// Independent checkers for the graph algorithm tests, sharing nothing with src/: a
// heap Dijkstra, a queue BFS, union-find components, PageRank by power iteration on
// Eigen with dangling mass handled explicitly, brute-force triangle counting over
// adjacency sets. Graphs are plain edge lists here.
#pragma once

#include <Eigen/Sparse>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <set>
#include <vector>

namespace oracle {

struct Edge {
  std::int64_t from, to;
  double weight;
};

struct Graph {
  std::int64_t n = 0;
  std::vector<Edge> edges;  // no duplicate (from, to) pairs
  std::vector<std::vector<std::pair<std::int64_t, double>>> out() const {
    std::vector<std::vector<std::pair<std::int64_t, double>>> adj(static_cast<std::size_t>(n));
    for (const auto& e : edges) adj[static_cast<std::size_t>(e.from)].emplace_back(e.to, e.weight);
    return adj;
  }
};

inline const double inf = std::numeric_limits<double>::infinity();

// Dijkstra with a binary heap (non-negative weights).
inline std::vector<double> dijkstra(const Graph& g, std::int64_t s) {
  const auto adj = g.out();
  std::vector<double> d(static_cast<std::size_t>(g.n), inf);
  using Item = std::pair<double, std::int64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  d[static_cast<std::size_t>(s)] = 0;
  heap.emplace(0.0, s);
  while (!heap.empty()) {
    auto [du, u] = heap.top();
    heap.pop();
    if (du > d[static_cast<std::size_t>(u)]) continue;
    for (auto [v, w] : adj[static_cast<std::size_t>(u)])
      if (du + w < d[static_cast<std::size_t>(v)]) {
        d[static_cast<std::size_t>(v)] = du + w;
        heap.emplace(du + w, v);
      }
  }
  return d;
}

// Levels by a FIFO queue (-1: unreached).
inline std::vector<std::int64_t> bfs_levels(const Graph& g, std::int64_t s) {
  const auto adj = g.out();
  std::vector<std::int64_t> level(static_cast<std::size_t>(g.n), -1);
  std::queue<std::int64_t> q;
  level[static_cast<std::size_t>(s)] = 0;
  q.push(s);
  while (!q.empty()) {
    const auto u = q.front();
    q.pop();
    for (auto [v, w] : adj[static_cast<std::size_t>(u)])
      if (level[static_cast<std::size_t>(v)] < 0) {
        level[static_cast<std::size_t>(v)] = level[static_cast<std::size_t>(u)] + 1;
        q.push(v);
      }
  }
  return level;
}

// The smallest (or largest) in-neighbour one level up, for every reached vertex
// except the source (whose parent is itself); -1 for unreached vertices.
inline std::vector<std::int64_t> bfs_parents(const Graph& g, std::int64_t s, const std::vector<std::int64_t>& level,
                                             bool smallest) {
  std::vector<std::int64_t> parent(static_cast<std::size_t>(g.n), -1);
  for (const auto& e : g.edges) {
    const auto lu = level[static_cast<std::size_t>(e.from)], lv = level[static_cast<std::size_t>(e.to)];
    if (lu < 0 || lv != lu + 1) continue;
    auto& p = parent[static_cast<std::size_t>(e.to)];
    if (p < 0 || (smallest ? e.from < p : e.from > p)) p = e.from;
  }
  parent[static_cast<std::size_t>(s)] = s;
  return parent;
}

// Union-find with path halving; label = smallest vertex of the component, edges
// taken as undirected.
inline std::vector<std::int64_t> components(const Graph& g) {
  std::vector<std::int64_t> root(static_cast<std::size_t>(g.n));
  std::iota(root.begin(), root.end(), 0);
  auto find = [&](std::int64_t x) {
    while (root[static_cast<std::size_t>(x)] != x) {
      root[static_cast<std::size_t>(x)] = root[static_cast<std::size_t>(root[static_cast<std::size_t>(x)])];
      x = root[static_cast<std::size_t>(x)];
    }
    return x;
  };
  for (const auto& e : g.edges) {
    const auto a = find(e.from), b = find(e.to);
    if (a != b) root[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
  }
  std::vector<std::int64_t> label(static_cast<std::size_t>(g.n));
  for (std::int64_t i = 0; i < g.n; ++i) label[static_cast<std::size_t>(i)] = find(i);
  return label;
}

// Triangles of the undirected simple graph underlying g (self-loops dropped).
inline std::int64_t triangles(const Graph& g) {
  std::vector<std::set<std::int64_t>> nb(static_cast<std::size_t>(g.n));
  for (const auto& e : g.edges)
    if (e.from != e.to) {
      nb[static_cast<std::size_t>(e.from)].insert(e.to);
      nb[static_cast<std::size_t>(e.to)].insert(e.from);
    }
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < g.n; ++i)
    for (auto j : nb[static_cast<std::size_t>(i)]) {
      if (j <= i) continue;
      for (auto k : nb[static_cast<std::size_t>(j)])
        if (k > j && nb[static_cast<std::size_t>(i)].count(k)) ++count;
    }
  return count;
}

// PageRank by power iteration with Eigen's sparse product: r <- d P' r + (d * dangling
// mass + 1 - d) p, p the teleport distribution; until the L1 change is below tol.
inline Eigen::VectorXd pagerank(const Graph& g, const Eigen::VectorXd& teleport, double damping, bool weighted,
                                double tol = 1e-13) {
  const auto n = static_cast<Eigen::Index>(g.n);
  std::vector<double> outw(static_cast<std::size_t>(g.n), 0.0);
  for (const auto& e : g.edges) outw[static_cast<std::size_t>(e.from)] += weighted ? e.weight : 1.0;
  std::vector<Eigen::Triplet<double>> t;
  for (const auto& e : g.edges)
    if (outw[static_cast<std::size_t>(e.from)] > 0)
      t.emplace_back(e.to, e.from, (weighted ? e.weight : 1.0) / outw[static_cast<std::size_t>(e.from)]);
  Eigen::SparseMatrix<double> PT(n, n);
  PT.setFromTriplets(t.begin(), t.end());
  Eigen::VectorXd r = teleport;
  for (int it = 0; it < 10000; ++it) {
    double dangling = 0;
    for (Eigen::Index i = 0; i < n; ++i)
      if (!(outw[static_cast<std::size_t>(i)] > 0)) dangling += r(i);
    Eigen::VectorXd next = damping * (PT * r) + (damping * dangling + 1 - damping) * teleport;
    const double change = (next - r).lpNorm<1>();
    r = next;
    if (change < tol) break;
  }
  return r;
}

}  // namespace oracle
