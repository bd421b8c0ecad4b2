// Graphs for the algorithm tests: random directed graphs with the awkward cases built
// in (isolated vertices, self-loops, vertices without out-edges), the real graphs of
// the shared data folder, and the device the test program runs on (the CPU, or CUDA
// device 0 for the gpu-labelled build of the same sources).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "algorithms/oracles.hpp"
#include "geblas/geblas.hpp"
#include "support/data.hpp"
#include "support/device.hpp"

namespace algotest {

// test::device(): the test sources are compiled once and linked into a program per
// device (geblas_add_device_tests).
inline geblas::Device device() { return geblas::test::device(); }

// n vertices, about n * degree edges with integer weights in [1, 9] (exact sums), the
// last n/10 vertices isolated, a few self-loops; `symmetric` adds every reverse edge.
inline oracle::Graph random_graph(std::int64_t n, double degree, std::uint64_t seed, bool symmetric = false) {
  std::mt19937_64 rng(seed);
  oracle::Graph g;
  g.n = n;
  const std::int64_t active = n - n / 10;
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  auto add = [&](std::int64_t a, std::int64_t b, double w) {
    if (seen.emplace(a, b).second) g.edges.push_back({a, b, w});
  };
  const auto m = static_cast<std::int64_t>(static_cast<double>(n) * degree);
  for (std::int64_t k = 0; k < m && active > 0; ++k) {
    const auto a = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(active));
    const auto b = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(active));
    const double w = static_cast<double>(1 + rng() % 9);
    add(a, b, w);
    if (symmetric) add(b, a, w);
  }
  return g;
}

template <class T>
geblas::SparseMatrix<T> to_matrix(const oracle::Graph& g, geblas::Device dev = device()) {
  std::vector<geblas::Tuple<T>> t;
  for (const auto& e : g.edges) t.push_back({e.from, e.to, static_cast<T>(e.weight)});
  return geblas::SparseMatrix<T>::from_tuples(g.n, g.n, t, {}, dev);
}

// A shared real graph as an edge list (weights = |value|), or n = -1 when absent.
inline oracle::Graph real_graph(const std::string& name) {
  oracle::Graph g;
  g.n = -1;
  const std::string path = geblas::test::data_file(name);
  if (path.empty()) return g;
  const auto A = geblas::io::read_matrix_market<double>(path);
  g.n = A.nrows();
  for (const auto& t : A.extract_tuples()) g.edges.push_back({t.row, t.col, std::abs(t.value)});
  return g;
}

}  // namespace algotest
