// Generated graphs for the BFS and SSSP tests: hubs (a skewed degree distribution),
// many levels (paths, grids), duplicate input edges, zero and real-valued weights. Each
// returns an oracle::Graph (no duplicate pairs) and, where the input has duplicates,
// the raw tuple list that the matrix is built from.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "algorithms/oracles.hpp"

namespace algotest {

// Edges whose endpoints follow a power law (vertex floor(n * u^3), u uniform), so a
// few low-numbered vertices are hubs with thousands of edges while the last fifth of
// the ids never appears: isolated vertices. A few self-loops. Weights uniform in
// [w_lo, w_hi) (0 allowed); with `integer_weights` they are whole numbers (exact sums).
inline oracle::Graph hub_graph(std::int64_t n, std::int64_t edges, std::uint64_t seed, bool symmetric,
                               double w_lo = 1, double w_hi = 10, bool integer_weights = true) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::int64_t active = n - n / 5;
  auto pick = [&] {
    const double u = unit(rng);
    return std::min<std::int64_t>(active - 1, static_cast<std::int64_t>(static_cast<double>(active) * u * u * u));
  };
  std::map<std::pair<std::int64_t, std::int64_t>, double> seen;
  for (std::int64_t k = 0; k < edges; ++k) {
    const std::int64_t a = pick(), b = (k % 97 == 0) ? a : pick();
    double w = w_lo + (w_hi - w_lo) * unit(rng);
    if (integer_weights) w = std::floor(w);
    seen.emplace(std::make_pair(a, b), w);
    if (symmetric) seen.emplace(std::make_pair(b, a), w);
  }
  oracle::Graph g;
  g.n = n;
  for (const auto& [e, w] : seen) g.edges.push_back({e.first, e.second, w});
  return g;
}

// A rows x cols grid, edges both ways between neighbours (rows + cols - 2 levels from a
// corner), weights in [1, 9].
inline oracle::Graph grid_graph(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  oracle::Graph g;
  g.n = rows * cols;
  auto id = [&](std::int64_t r, std::int64_t c) { return r * cols + c; };
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      if (c + 1 < cols) {
        g.edges.push_back({id(r, c), id(r, c + 1), static_cast<double>(1 + rng() % 9)});
        g.edges.push_back({id(r, c + 1), id(r, c), static_cast<double>(1 + rng() % 9)});
      }
      if (r + 1 < rows) {
        g.edges.push_back({id(r, c), id(r + 1, c), static_cast<double>(1 + rng() % 9)});
        g.edges.push_back({id(r + 1, c), id(r, c), static_cast<double>(1 + rng() % 9)});
      }
    }
  return g;
}

// A directed path 0 -> 1 -> ... -> n-1 (n - 1 levels) with a few shortcuts that skip
// ahead and cost more than the steps they skip, weights in [1, 9].
inline oracle::Graph path_graph(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  oracle::Graph g;
  g.n = n;
  for (std::int64_t i = 0; i + 1 < n; ++i) g.edges.push_back({i, i + 1, static_cast<double>(1 + rng() % 9)});
  for (std::int64_t i = 0; i + 3 < n; i += 37) g.edges.push_back({i, i + 3, 30.0});
  return g;
}

// Input tuples with every edge of g repeated (the copies heavier, so that a min
// combiner gives g's weights back).
struct Tuples {
  std::vector<std::int64_t> rows, cols;
  std::vector<double> values;
};
inline Tuples with_duplicates(const oracle::Graph& g) {
  Tuples t;
  for (const auto& e : g.edges)
    for (int copy = 0; copy < 2; ++copy) {
      t.rows.push_back(e.from);
      t.cols.push_back(e.to);
      t.values.push_back(e.weight + copy * 5.0);
    }
  return t;
}

// The same graph with random weights in [1, 100) (the real graphs come unweighted or
// with their own weights).
inline oracle::Graph reweighted(oracle::Graph g, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> w(1.0, 100.0);
  for (auto& e : g.edges) e.weight = w(rng);
  return g;
}

}  // namespace algotest
