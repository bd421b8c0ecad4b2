// The locality order (reverse Cuthill-McKee) against what it must be: a permutation of
// the vertices on every kind of graph (isolated vertices, self-loops, edges stored one
// way, several components, hubs), the band of a grid and of a path found again after
// their ids were scrambled, and the product by the renamed matrix equal, element by
// element, to the original product in the new order (through extract, as a caller
// applies it).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "algorithms/generated.hpp"
#include "algorithms/graphs.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

void check_permutation(const std::vector<Index>& order, std::int64_t n, const std::string& what) {
  INFO(what << " n=" << n);
  REQUIRE(static_cast<std::int64_t>(order.size()) == n);
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  std::int64_t bad = 0;
  for (Index v : order) {
    if (v < 0 || v >= n || seen[static_cast<std::size_t>(v)]) {
      ++bad;
      continue;
    }
    seen[static_cast<std::size_t>(v)] = 1;
  }
  CHECK(bad == 0);
}

// The largest |i - j| over the graph's edges once vertex v is renamed rank[v].
std::int64_t bandwidth(const oracle::Graph& g, const std::vector<std::int64_t>& rank) {
  std::int64_t b = 0;
  for (const auto& e : g.edges)
    b = std::max<std::int64_t>(b,
                               std::abs(rank[static_cast<std::size_t>(e.from)] - rank[static_cast<std::size_t>(e.to)]));
  return b;
}

std::vector<std::int64_t> rank_of(const std::vector<Index>& order) {
  std::vector<std::int64_t> rank(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    rank[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  return rank;
}

// g with vertex v renamed perm[v].
oracle::Graph renamed(const oracle::Graph& g, const std::vector<std::int64_t>& perm) {
  oracle::Graph h;
  h.n = g.n;
  for (const auto& e : g.edges)
    h.edges.push_back({perm[static_cast<std::size_t>(e.from)], perm[static_cast<std::size_t>(e.to)], e.weight});
  return h;
}

std::vector<std::int64_t> random_permutation(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), std::mt19937_64(seed));
  return p;
}

oracle::Graph grid(std::int64_t k) {
  oracle::Graph g;
  g.n = k * k;
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t c = 0; c < k; ++c) {
      const std::int64_t v = r * k + c;
      if (c + 1 < k) g.edges.push_back({v, v + 1, 1}), g.edges.push_back({v + 1, v, 1});
      if (r + 1 < k) g.edges.push_back({v, v + k, 1}), g.edges.push_back({v + k, v, 1});
    }
  return g;
}

// P = A(order, order) by extract and P * B' with B'(i, :) = B(order[i], :) against
// (A * B)(order[i], :), every element; integer weights and values, so plus_times sums
// are exact in double and the two orders of addition give the same bits.
void check_product(const oracle::Graph& graph, const std::vector<Index>& order, const std::string& what) {
  INFO(what);
  oracle::Graph g = graph;  // integer weights in [1, 9] (real graphs have others)
  for (auto& e : g.edges) e.weight = static_cast<double>(1 + (e.from * 31 + e.to * 7) % 9);
  const Index n = g.n, f = 5;
  const auto A = algotest::to_matrix<double>(g);
  SparseMatrix<double> P(n, n, algotest::device());
  extract(P, A, order, order);
  REQUIRE(P.nvals() == A.nvals());
  std::vector<double> b(static_cast<std::size_t>(n * f)), bp(b.size());
  std::mt19937_64 rng(7);
  for (auto& x : b) x = static_cast<double>(rng() % 17) - 8;
  for (Index i = 0; i < n; ++i)
    for (Index c = 0; c < f; ++c)
      bp[static_cast<std::size_t>(i * f + c)] = b[static_cast<std::size_t>(order[static_cast<std::size_t>(i)] * f + c)];
  const auto B = DenseMatrix<double>::from_row_major(n, f, b, algotest::device());
  const auto Bp = DenseMatrix<double>::from_row_major(n, f, bp, algotest::device());
  DenseMatrix<double> C(n, f, algotest::device()), Cp(n, f, algotest::device());
  mxm(C, A, B, semiring::plus_times<double>{});
  mxm(Cp, P, Bp, semiring::plus_times<double>{});
  const auto c = C.to_row_major(), cp = Cp.to_row_major();
  std::int64_t bad = 0;
  for (Index i = 0; i < n; ++i)
    for (Index k = 0; k < f; ++k) {
      const double want = c[static_cast<std::size_t>(order[static_cast<std::size_t>(i)] * f + k)];
      const double got = cp[static_cast<std::size_t>(i * f + k)];
      if (got != want && bad++ < 5)
        UNSCOPED_INFO("row " << i << " column " << k << ": got " << got << " want " << want);
    }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("locality_order is a permutation of the vertices", "[algo][order]") {
  for (std::uint64_t seed : {61, 62})
    for (std::int64_t n : {1, 2, 9, 300, 3000})
      for (double degree : {0.0, 0.5, 3.0})
        for (bool symmetric : {false, true}) {
          const auto g = algotest::random_graph(n, degree, seed, symmetric);
          check_permutation(algo::locality_order(algotest::to_matrix<float>(g)), n,
                            "random seed=" + std::to_string(seed) + " degree=" + std::to_string(degree));
        }
  const auto h = algotest::hub_graph(5000, 3, 71);
  check_permutation(algo::locality_order(algotest::to_matrix<bool>(h)), h.n, "hubs as bool");
  check_permutation(algo::locality_order(algotest::with_duplicates<std::int32_t>(h, 3)), h.n, "hubs with duplicates");
  const auto p = algotest::paths(500, 7, 72, false);
  check_permutation(algo::locality_order(algotest::to_matrix<std::int64_t>(p)), p.n,
                    "paths stored in random directions");
  CHECK(algo::locality_order(SparseMatrix<double>(0, 0, algotest::device())).empty());
  // the same order wherever A lives
  const auto g = algotest::random_graph(400, 2.0, 63);
  CHECK(algo::locality_order(algotest::to_matrix<double>(g)) ==
        algo::locality_order(algotest::to_matrix<double>(g, Device::cpu())));
}

TEST_CASE("locality_order finds the band of a scrambled grid and path", "[algo][order]") {
  for (std::int64_t k : {7, 40}) {
    const auto g = grid(k);
    const auto scrambled = renamed(g, random_permutation(g.n, 5 + static_cast<std::uint64_t>(k)));
    const auto order = algo::locality_order(algotest::to_matrix<double>(scrambled));
    check_permutation(order, g.n, "grid");
    std::vector<std::int64_t> same(static_cast<std::size_t>(g.n));
    std::iota(same.begin(), same.end(), 0);
    const auto before = bandwidth(scrambled, same);
    const auto after = bandwidth(scrambled, rank_of(order));
    INFO("k=" << k << " bandwidth scrambled " << before << ", ordered " << after);
    // a corner start gives the anti-diagonals as levels: neighbours at most two levels
    // of k vertices apart
    CHECK(after <= 2 * k);
    if (k == 40) CHECK(before > 10 * k);
  }
  // one path: the peripheral search starts at an end, each vertex next to its neighbours
  oracle::Graph path;
  path.n = 1000;
  for (std::int64_t v = 0; v + 1 < path.n; ++v) path.edges.push_back({v, v + 1, 1});
  const auto scrambled = renamed(path, random_permutation(path.n, 9));
  CHECK(bandwidth(scrambled, rank_of(algo::locality_order(algotest::to_matrix<float>(scrambled)))) == 1);
}

TEST_CASE("a product by the renamed matrix is the product in the new order", "[algo][order]") {
  for (std::uint64_t seed : {81, 82}) {
    const auto g = algotest::random_graph(700, 4.0, seed);
    check_product(g, algo::locality_order(algotest::to_matrix<double>(g)), "random seed=" + std::to_string(seed));
  }
  const auto h = algotest::hub_graph(3000, 3, 83);
  check_product(h, algo::locality_order(algotest::to_matrix<double>(h)), "hubs");
}

TEST_CASE("locality_order on real graphs", "[algo][order][data]") {
  for (const std::string name : {"luxembourg_osm.mtx.gz", "bcsstk16.mtx.gz", "wiki-Vote.mtx.gz"}) {
    const auto g = algotest::real_graph(name);
    if (g.n < 0) {
      WARN("skipped: " << name << " not found under " << geblas::test::data_dir());
      continue;
    }
    const auto order = algo::locality_order(algotest::to_matrix<float>(g));
    check_permutation(order, g.n, name);
    check_product(g, order, name);
    // the band of the graph with its ids scrambled comes back to within 2x of the band
    // of the order computed from its own ids (the search depends on the ids only through
    // ties)
    const auto scrambled = renamed(g, random_permutation(g.n, 11));
    const auto own = bandwidth(g, rank_of(order));
    const auto again = bandwidth(scrambled, rank_of(algo::locality_order(algotest::to_matrix<float>(scrambled))));
    INFO(name << ": bandwidth in the order from its ids " << own << ", from scrambled ids " << again);
    CHECK(again <= 2 * own + 16);
  }
}

TEST_CASE("locality_order refuses a matrix that is not square", "[algo][order]") {
  CHECK_THROWS_AS(algo::locality_order(SparseMatrix<double>(3, 4, algotest::device())), DimensionMismatch);
}
