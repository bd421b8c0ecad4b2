// Generated graphs with the shapes that break graph kernels: hubs, isolated vertices,
// self-loops, edges stored in one direction only, duplicate entries, and long paths over
// scrambled vertex ids.
#pragma once

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "algorithms/graphs.hpp"

namespace algotest {

// `hubs` vertices joined to about half of the others, a sparse random rest, self-loops
// on every 7th vertex, the last n/10 vertices isolated; each edge is stored in one
// random direction only.
inline oracle::Graph hub_graph(std::int64_t n, std::int64_t hubs, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  oracle::Graph g;
  g.n = n;
  const std::int64_t active = n - n / 10;
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  auto add = [&](std::int64_t a, std::int64_t b) {
    if (rng() % 2) std::swap(a, b);
    if (!seen.count({b, a}) && seen.emplace(a, b).second) g.edges.push_back({a, b, 1});
  };
  for (std::int64_t h = 0; h < hubs && h < active; ++h) {
    const std::int64_t hub = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(active));
    for (std::int64_t v = 0; v < active; ++v)
      if (v != hub && rng() % 2) add(hub, v);
  }
  for (std::int64_t k = 0; k < active; ++k) {
    const auto a = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(active));
    const auto b = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(active));
    if (a != b) add(a, b);
  }
  for (std::int64_t v = 0; v < active; v += 7) add(v, v);
  return g;
}

// Paths of `length` vertices, `count` of them, over scrambled ids, each edge stored in
// one direction (from the larger id to the smaller when `downward`, else at random):
// min-label propagation would need `length` rounds; union-find builds long chains.
inline oracle::Graph paths(std::int64_t length, std::int64_t count, std::uint64_t seed, bool downward) {
  std::mt19937_64 rng(seed);
  oracle::Graph g;
  g.n = length * count;
  std::vector<std::int64_t> id(static_cast<std::size_t>(g.n));
  std::iota(id.begin(), id.end(), 0);
  std::shuffle(id.begin(), id.end(), rng);
  for (std::int64_t p = 0; p < count; ++p)
    for (std::int64_t k = 0; k + 1 < length; ++k) {
      std::int64_t a = id[static_cast<std::size_t>(p * length + k)], b = id[static_cast<std::size_t>(p * length + k + 1)];
      if (downward ? a < b : rng() % 2 == 0) std::swap(a, b);
      g.edges.push_back({a, b, 1});
    }
  return g;
}

// The graph's edges, each stored `copies` times, combined by plus when the matrix is built.
template <class T>
geblas::SparseMatrix<T> with_duplicates(const oracle::Graph& g, int copies) {
  std::vector<geblas::Tuple<T>> t;
  for (int c = 0; c < copies; ++c)
    for (const auto& e : g.edges) t.push_back({e.from, e.to, static_cast<T>(1)});
  return geblas::SparseMatrix<T>::from_tuples(g.n, g.n, t, geblas::binop::plus<T>{}, device());
}

}  // namespace algotest
