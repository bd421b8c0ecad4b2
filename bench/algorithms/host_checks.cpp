// Host oracles of bench_algorithms (see the header): textbook algorithms on CSR arrays.
#include "host_checks.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <string>
#include <utility>

#include "geblas/error.hpp"

namespace geblas::bench {

bool HostCsr::has_edge(Index i, Index j) const {
  const auto b = ci.begin() + ro[static_cast<std::size_t>(i)], e = ci.begin() + ro[static_cast<std::size_t>(i + 1)];
  return std::binary_search(b, e, static_cast<ColIndex>(j));
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

float edge_weight(Index i, Index j) {
  const auto lo = static_cast<std::uint64_t>(std::min(i, j)), hi = static_cast<std::uint64_t>(std::max(i, j));
  return static_cast<float>(1 + splitmix64((lo << 32) | hi) % 100);
}

std::vector<Index> pick_roots(const HostCsr& g, std::uint64_t seed, Index count) {
  if (g.ci.empty()) throw InvalidValue("pick_roots: the graph has no edges");
  std::vector<Index> roots;
  for (std::uint64_t a = 0; static_cast<Index>(roots.size()) < count; ++a) {
    const auto v = static_cast<Index>(splitmix64((seed << 32) | a) % static_cast<std::uint64_t>(g.n));
    if (g.out_degree(v) > 0) roots.push_back(v);
  }
  return roots;
}

std::vector<std::int64_t> bfs_levels(const HostCsr& g, Index source) {
  std::vector<std::int64_t> level(static_cast<std::size_t>(g.n), -1);
  std::vector<Index> queue{source};
  level[static_cast<std::size_t>(source)] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const Index u = queue[head];
    for (Index e = g.ro[static_cast<std::size_t>(u)]; e < g.ro[static_cast<std::size_t>(u + 1)]; ++e) {
      const auto v = static_cast<std::size_t>(g.ci[static_cast<std::size_t>(e)]);
      if (level[v] < 0) {
        level[v] = level[static_cast<std::size_t>(u)] + 1;
        queue.push_back(static_cast<Index>(v));
      }
    }
  }
  return level;
}

std::vector<double> dijkstra(const HostCsr& g, Index source) {
  std::vector<double> dist(static_cast<std::size_t>(g.n), std::numeric_limits<double>::infinity());
  using Item = std::pair<double, Index>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  dist[static_cast<std::size_t>(source)] = 0;
  heap.push({0, source});
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d > dist[static_cast<std::size_t>(u)]) continue;
    for (Index e = g.ro[static_cast<std::size_t>(u)]; e < g.ro[static_cast<std::size_t>(u + 1)]; ++e) {
      const Index v = g.ci[static_cast<std::size_t>(e)];
      const double nd = d + edge_weight(u, v);
      if (nd < dist[static_cast<std::size_t>(v)]) {
        dist[static_cast<std::size_t>(v)] = nd;
        heap.push({nd, v});
      }
    }
  }
  return dist;
}

std::vector<std::int64_t> component_labels(const HostCsr& g) {
  std::vector<std::int64_t> parent(static_cast<std::size_t>(g.n));
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](std::int64_t x) {
    while (parent[static_cast<std::size_t>(x)] != x) {
      parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
      x = parent[static_cast<std::size_t>(x)];
    }
    return x;
  };
  for (Index u = 0; u < g.n; ++u)
    for (Index e = g.ro[static_cast<std::size_t>(u)]; e < g.ro[static_cast<std::size_t>(u + 1)]; ++e) {
      const std::int64_t a = find(u), b = find(g.ci[static_cast<std::size_t>(e)]);
      // the smaller root wins, so every root is its component's smallest vertex
      if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    }
  for (Index u = 0; u < g.n; ++u) parent[static_cast<std::size_t>(u)] = find(u);
  return parent;
}

HostCsr degree_oriented(const HostCsr& g) {
  // the undirected simple graph: both directions, no self-loops, no duplicates
  std::vector<Index> deg(static_cast<std::size_t>(g.n), 0);
  for (Index u = 0; u < g.n; ++u)
    for (Index e = g.ro[static_cast<std::size_t>(u)]; e < g.ro[static_cast<std::size_t>(u + 1)]; ++e)
      if (const Index v = g.ci[static_cast<std::size_t>(e)]; v != u) {
        ++deg[static_cast<std::size_t>(u)];
        ++deg[static_cast<std::size_t>(v)];
      }
  HostCsr s;
  s.n = g.n;
  s.ro.assign(static_cast<std::size_t>(g.n + 1), 0);
  for (Index u = 0; u < g.n; ++u)
    s.ro[static_cast<std::size_t>(u + 1)] = s.ro[static_cast<std::size_t>(u)] + deg[static_cast<std::size_t>(u)];
  s.ci.resize(static_cast<std::size_t>(s.ro.back()));
  std::vector<Index> fill(s.ro.begin(), s.ro.end() - 1);
  for (Index u = 0; u < g.n; ++u)
    for (Index e = g.ro[static_cast<std::size_t>(u)]; e < g.ro[static_cast<std::size_t>(u + 1)]; ++e)
      if (const Index v = g.ci[static_cast<std::size_t>(e)]; v != u) {
        s.ci[static_cast<std::size_t>(fill[static_cast<std::size_t>(u)]++)] = static_cast<ColIndex>(v);
        s.ci[static_cast<std::size_t>(fill[static_cast<std::size_t>(v)]++)] = static_cast<ColIndex>(u);
      }
  // dedupe each row, then keep the neighbours below in the (degree, id) order
  std::vector<Index> sdeg(static_cast<std::size_t>(g.n));
  std::vector<std::vector<ColIndex>> rows(static_cast<std::size_t>(g.n));
  for (Index u = 0; u < g.n; ++u) {
    auto& r = rows[static_cast<std::size_t>(u)];
    r.assign(s.ci.begin() + s.ro[static_cast<std::size_t>(u)], s.ci.begin() + s.ro[static_cast<std::size_t>(u + 1)]);
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    sdeg[static_cast<std::size_t>(u)] = static_cast<Index>(r.size());
  }
  HostCsr L;
  L.n = g.n;
  L.ro.assign(static_cast<std::size_t>(g.n + 1), 0);
  for (Index u = 0; u < g.n; ++u) {
    const auto key_u = std::make_pair(sdeg[static_cast<std::size_t>(u)], u);
    for (ColIndex v : rows[static_cast<std::size_t>(u)])
      if (std::make_pair(sdeg[static_cast<std::size_t>(v)], static_cast<Index>(v)) < key_u) L.ci.push_back(v);
    L.ro[static_cast<std::size_t>(u + 1)] = static_cast<Index>(L.ci.size());
    std::vector<ColIndex>().swap(rows[static_cast<std::size_t>(u)]);
  }
  return L;
}

std::int64_t triangles(const HostCsr& g) { return triangles_oriented(degree_oriented(g)); }

std::int64_t triangles_oriented(const HostCsr& L) {
  std::int64_t count = 0;
  for (Index a = 0; a < L.n; ++a)
    for (Index e = L.ro[static_cast<std::size_t>(a)]; e < L.ro[static_cast<std::size_t>(a + 1)]; ++e) {
      const Index b = L.ci[static_cast<std::size_t>(e)];
      // |N_L(a) ∩ N_L(b)| by merging two sorted rows
      Index p = L.ro[static_cast<std::size_t>(a)], q = L.ro[static_cast<std::size_t>(b)];
      const Index pe = L.ro[static_cast<std::size_t>(a + 1)], qe = L.ro[static_cast<std::size_t>(b + 1)];
      while (p < pe && q < qe) {
        const ColIndex x = L.ci[static_cast<std::size_t>(p)], y = L.ci[static_cast<std::size_t>(q)];
        if (x == y) {
          ++count;
          ++p;
          ++q;
        } else if (x < y) {
          ++p;
        } else {
          ++q;
        }
      }
    }
  return count;
}

double pagerank_residual(const HostCsr& g, const std::vector<float>& r, double damping,
                         const std::vector<Index>& seeds) {
  const auto n = static_cast<std::size_t>(g.n);
  std::vector<double> next(n, 0.0);
  double dangling = 0;
  for (Index u = 0; u < g.n; ++u) {
    const Index d = g.out_degree(u);
    if (d == 0) {
      dangling += r[static_cast<std::size_t>(u)];
      continue;
    }
    const double share = damping * r[static_cast<std::size_t>(u)] / static_cast<double>(d);
    for (Index e = g.ro[static_cast<std::size_t>(u)]; e < g.ro[static_cast<std::size_t>(u + 1)]; ++e)
      next[static_cast<std::size_t>(g.ci[static_cast<std::size_t>(e)])] += share;
  }
  const double spread = damping * dangling + 1 - damping;
  if (seeds.empty()) {
    for (double& x : next) x += spread / static_cast<double>(n);
  } else {
    for (Index s : seeds) next[static_cast<std::size_t>(s)] += spread / static_cast<double>(seeds.size());
  }
  double l1 = 0;
  for (std::size_t i = 0; i < n; ++i) l1 += std::abs(next[i] - r[i]);
  return l1;
}

void gcn_row(const HostCsr& g, const std::vector<float>& X, Index f, Index i, std::vector<double>& out) {
  // d = |row(i) ∪ {i}|
  auto degree = [&](Index v) { return g.out_degree(v) + (g.has_edge(v, v) ? 0 : 1); };
  out.assign(static_cast<std::size_t>(f), 0.0);
  const double di = static_cast<double>(degree(i));
  auto add = [&](Index j) {
    const double w = 1.0 / std::sqrt(di * static_cast<double>(degree(j)));
    for (Index c = 0; c < f; ++c) out[static_cast<std::size_t>(c)] += w * X[static_cast<std::size_t>(j * f + c)];
  };
  for (Index e = g.ro[static_cast<std::size_t>(i)]; e < g.ro[static_cast<std::size_t>(i + 1)]; ++e)
    add(g.ci[static_cast<std::size_t>(e)]);
  if (!g.has_edge(i, i)) add(i);
}

void sage_mean_row(const HostCsr& g, const std::vector<float>& X, Index f, Index i, std::vector<double>& out) {
  out.assign(static_cast<std::size_t>(f), 0.0);
  const Index d = g.out_degree(i);
  for (Index e = g.ro[static_cast<std::size_t>(i)]; e < g.ro[static_cast<std::size_t>(i + 1)]; ++e)
    for (Index c = 0; c < f; ++c)
      out[static_cast<std::size_t>(c)] += X[static_cast<std::size_t>(g.ci[static_cast<std::size_t>(e)] * f + c)];
  if (d > 0)
    for (double& x : out) x /= static_cast<double>(d);
}

void sage_max_row(const HostCsr& g, const std::vector<float>& X, Index f, Index i, std::vector<double>& out) {
  out.assign(static_cast<std::size_t>(f), -std::numeric_limits<double>::infinity());
  for (Index e = g.ro[static_cast<std::size_t>(i)]; e < g.ro[static_cast<std::size_t>(i + 1)]; ++e)
    for (Index c = 0; c < f; ++c) {
      double& o = out[static_cast<std::size_t>(c)];
      o = std::max(o, static_cast<double>(X[static_cast<std::size_t>(g.ci[static_cast<std::size_t>(e)] * f + c)]));
    }
}

}  // namespace geblas::bench
