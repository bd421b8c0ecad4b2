// Connected components against union-find and triangle counts against brute-force
// enumeration, on random, generated and real graphs: hubs, isolated vertices,
// self-loops, duplicate entries, edges stored in one direction only, long paths with
// scrambled ids (long union-find chains), skewed degree distributions (which triangle
// counting ranks by degree), and the paths Afforest takes on either device (skipping the
// giant component on a pattern known to be symmetric or with A' cached, filtering its
// rows otherwise), with the cases that break its skipping: edges stored only in a giant
// vertex's row, a giant root that a later link hooks under a smaller one, no giant
// component at all, hubs outside the giant one, and sizes around the vote's sample.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "algorithms/generated.hpp"
#include "algorithms/graphs.hpp"
#include "algorithms/traversal_graphs.hpp"
#include "geblas/detail/derived_stats.hpp"
#include "geblas/io.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

template <class T>
void check_components(const SparseMatrix<T>& A, const oracle::Graph& g, const std::string& what) {
  const auto r = algo::connected_components(A);
  const auto want = oracle::components(g);
  INFO(what << " n=" << g.n << " rounds=" << r.rounds);
  CHECK(r.labels.device() == algotest::device());
  const auto got = r.labels.to_std_vector();
  REQUIRE(got.size() == want.size());
  std::int64_t bad = 0, count = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    count += want[i] == static_cast<std::int64_t>(i);
    if (got[i] != want[i] && bad++ < 5) UNSCOPED_INFO("vertex " << i << ": got " << got[i] << " want " << want[i]);
  }
  CHECK(bad == 0);
  CHECK(r.count == count);
  CHECK(r.rounds >= 1);
}

// Caches A' with A (a BFS that pulls builds it), which lets Afforest skip the giant
// component's rows on either device: A''s rows supply the in-edges.
template <class T>
void cache_transpose(const SparseMatrix<T>& A) {
  (void)algo::bfs(A, 0, {.direction = algo::BfsDirection::pull});
}

// The labels on the path that filters the giant component's rows (A fresh, nothing
// cached), then on the one that skips them with A' cached.
template <class T>
void check_both_paths(const SparseMatrix<T>& A, const oracle::Graph& g, const std::string& what) {
  check_components(A, g, what + ", rows filtered");
  CHECK(last_dispatch().reason.find("filtered") != std::string::npos);
  cache_transpose(A);
  check_components(A, g, what + ", A' cached");
  CHECK(last_dispatch().reason.find("cached A'") != std::string::npos);
}

}  // namespace

TEST_CASE("connected components match union-find", "[algo][cc]") {
  for (std::uint64_t seed : {41, 42, 43})
    for (std::int64_t n : {1, 9, 300, 2000})
      for (double degree : {0.4, 1.0, 3.0}) {
        const auto g = algotest::random_graph(n, degree, seed);
        check_components(algotest::to_matrix<double>(g), g,
                         "random seed=" + std::to_string(seed) + " degree=" + std::to_string(degree));
      }
}

TEST_CASE("connected components on generated graphs", "[algo][cc]") {
  for (std::uint64_t seed : {71, 72}) {
    // hubs with one-directional edges, self-loops and isolated vertices; big enough
    // that the CPU runs its OpenMP path
    const auto h = algotest::hub_graph(5000, 3, seed);
    check_components(algotest::to_matrix<float>(h), h, "hubs");
    check_components(algotest::to_matrix<bool>(h), h, "hubs as bool");
    check_components(algotest::with_duplicates<std::int32_t>(h, 3), h, "hubs with duplicates");
    // long paths: 20 paths of 2000 vertices, stored downward and in random directions
    const auto down = algotest::paths(2000, 20, seed, true), mixed = algotest::paths(2000, 20, seed, false);
    check_components(algotest::to_matrix<double>(down), down, "paths stored downward");
    check_components(algotest::to_matrix<std::int64_t>(mixed), mixed, "paths stored both ways");
    // one path of 100000 vertices
    const auto one = algotest::paths(100000, 1, seed, false);
    check_components(algotest::to_matrix<float>(one), one, "one long path");
  }
  // a graph with no edges: every vertex is its own component
  oracle::Graph empty{50, {}};
  check_components(algotest::to_matrix<float>(empty), empty, "no edges");
  // self-loops only
  oracle::Graph loops{4, {{0, 0, 1}, {2, 2, 1}, {3, 3, 1}}};
  check_components(algotest::to_matrix<float>(loops), loops, "self-loops only");
  const auto none = algo::connected_components(SparseMatrix<float>(0, 0, algotest::device()));
  CHECK(none.count == 0);
  CHECK(none.labels.size() == 0);
}

TEST_CASE("connected components on real graphs", "[algo][cc][data]") {
  for (const std::string name : {"citeseer.mtx.gz", "power.mtx.gz", "wiki-Vote.mtx.gz", "luxembourg_osm.mtx.gz",
                                 "p2p-Gnutella31.mtx.gz", "cit-HepPh.mtx.gz"}) {
    const auto g = algotest::real_graph(name);
    if (g.n < 0) {
      WARN("skipped: " << name << " not found under " << geblas::test::data_dir());
      continue;
    }
    check_components(algotest::to_matrix<float>(g), g, name);
  }
}

TEST_CASE("connected components on every Afforest path", "[algo][cc]") {
  // The reason the record gives for the path taken.
  auto path = [] { return last_dispatch().reason; };
  const bool host = algotest::device().is_cpu();
  for (std::uint64_t seed : {61, 62}) {
    // A giant component plus small ones: random symmetric edges among 90% of the
    // vertices, 10% isolated, a few pairs hanging off the giant component's vertices
    // through one-directional edges in the directed variant.
    const auto sym = algotest::random_graph(30000, 3.0, seed, /*symmetric=*/true);
    const auto A = algotest::to_matrix<float>(sym);
    check_components(A, sym, "symmetric, not yet known to be");
    CHECK(path().find("filtered") != std::string::npos);
    // A BFS lets the next call skip: the host's tests the pattern and caches the answer,
    // a GPU's builds A'.
    (void)algo::bfs(A, 0);
    check_components(A, sym, "symmetric");
    CHECK(path().find(host ? "symmetric pattern" : "cached A'") != std::string::npos);
    auto dir = algotest::hub_graph(30000, 2, seed);  // each edge in one direction
    // Edges from giant-component vertices (ids below 27000) to fresh pairs, stored only
    // in the giant component's rows: skipping those rows without A' would miss them.
    for (std::int64_t v = 27000; v + 1 < 30000; v += 3) {
      dir.edges.push_back({(v * 7) % 27000, v, 1});
      dir.edges.push_back({v + 1, v, 1});
    }
    const auto D = algotest::to_matrix<double>(dir);
    check_components(D, dir, "directed");
    CHECK(path().find("filtered") != std::string::npos);
    cache_transpose(D);
    check_components(D, dir, "directed with A' cached");
    CHECK(path().find("cached A'") != std::string::npos);
  }
}

TEST_CASE("connected components on random graphs around Afforest's sample size", "[algo][cc]") {
  // The vote samples min(n, 1024) vertices; sizes on both sides of that and of a warp,
  // degrees below, at and above the giant component's threshold (1 edge per vertex: many
  // small components beside it), stored one way and both ways.
  for (std::uint64_t seed : {81, 82})
    for (std::int64_t n : {2, 5, 31, 33, 1023, 1024, 1025, 2049, 60000})
      for (double degree : {0.5, 1.0, 2.5})
        for (bool symmetric : {false, true}) {
          const auto g = algotest::random_graph(n, degree, seed, symmetric);
          check_both_paths(algotest::to_matrix<float>(g), g,
                           "random seed=" + std::to_string(seed) + " degree=" + std::to_string(degree) +
                               (symmetric ? " symmetric" : " directed"));
        }
}

TEST_CASE("connected components when Afforest's skipping is tempted", "[algo][cc]") {
  for (std::uint64_t seed : {91, 92}) {
    // A giant component: a random graph over vertices 20..giant_end (random_graph leaves
    // its last tenth isolated), its edges stored both ways.
    const std::int64_t pairs_from = 46000, n = 50000, giant_end = pairs_from - pairs_from / 10;
    auto g = algotest::random_graph(pairs_from, 3.0, seed, /*symmetric=*/true);
    std::erase_if(g.edges, [](const oracle::Edge& e) { return e.from < 20 || e.to < 20; });
    g.n = n + 600;
    std::mt19937_64 rng(seed);
    auto giant_vertex = [&] { return static_cast<std::int64_t>(20 + rng() % static_cast<std::uint64_t>(giant_end - 20)); };
    // 2000 pairs with the largest ids: every other one is joined to the giant component
    // by an entry stored only in a giant vertex's row, past its sampled entries; a
    // filtering that skipped that row would leave the pair apart.
    for (std::int64_t v = pairs_from; v + 1 < n; v += 2) {
      g.edges.push_back({v + 1, v, 1});
      if (v % 4 == 0) g.edges.push_back({giant_vertex(), v, 1});
    }
    // Vertices 0..19 form a ring whose sampled entries stay inside it and whose third
    // entries, stored only in the ring's rows, lead into the giant component: linking
    // them hooks the root the vote found under 0 while the remaining entries are linked.
    for (std::int64_t v = 0; v < 20; ++v) {
      g.edges.push_back({v, (v + 1) % 20, 1});
      g.edges.push_back({v, (v + 2) % 20, 1});
      g.edges.push_back({v, giant_vertex(), 1});
    }
    // Two stars outside the giant component, on its isolated vertices, larger than a
    // warp: one stored in the hub's row, one in the leaves' rows (the hub's in-edges).
    const std::int64_t hub1 = giant_end, hub2 = giant_end + 1;
    for (std::int64_t k = 0; k < 300; ++k) {
      g.edges.push_back({hub1, n + k, 1});
      g.edges.push_back({n + 300 + k, hub2, 1});
    }
    check_both_paths(algotest::to_matrix<double>(g), g, "giant and small, seed=" + std::to_string(seed));
    // No giant component: 300 paths of 200 vertices, so the vote's winner is one path
    // among many and most rows are linked.
    const auto many = algotest::paths(200, 300, seed, false);
    check_both_paths(algotest::to_matrix<float>(many), many, "300 paths, seed=" + std::to_string(seed));
  }
}

TEST_CASE("triangle count matches brute force", "[algo][tc]") {
  for (std::uint64_t seed : {51, 52})
    for (std::int64_t n : {1, 3, 40, 400})
      for (bool symmetric : {false, true}) {
        const auto g = algotest::random_graph(n, 4.0, seed, symmetric);
        INFO("seed=" << seed << " n=" << n << " symmetric=" << symmetric);
        CHECK(algo::triangle_count(algotest::to_matrix<double>(g)) == oracle::triangles(g));
        CHECK(algo::triangle_count(algotest::to_matrix<std::int32_t>(g)) == oracle::triangles(g));
      }
  // A triangle with self-loops and both directions stored counts once.
  oracle::Graph t{3, {{0, 1, 1}, {1, 0, 1}, {1, 2, 1}, {2, 0, 1}, {0, 0, 1}, {2, 2, 1}}};
  CHECK(algo::triangle_count(algotest::to_matrix<float>(t)) == 1);
  CHECK(algo::triangle_count(SparseMatrix<float>(0, 0, algotest::device())) == 0);
  CHECK_THROWS_AS(algo::triangle_count(SparseMatrix<float>(2, 3, algotest::device())), DimensionMismatch);
  CHECK_THROWS_AS(algo::connected_components(SparseMatrix<float>(2, 3, algotest::device())), DimensionMismatch);
}

TEST_CASE("triangle count on generated graphs", "[algo][tc]") {
  // K_n: every triple is a triangle, every vertex has the same degree (ties broken by id)
  for (std::int64_t n : {4, 25, 60}) {
    oracle::Graph k{n, {}};
    for (std::int64_t a = 0; a < n; ++a)
      for (std::int64_t b = 0; b < n; ++b)
        if (a != b) k.edges.push_back({a, b, 1});
    INFO("K_" << n);
    CHECK(algo::triangle_count(algotest::to_matrix<float>(k)) == n * (n - 1) * (n - 2) / 6);
  }
  // a wheel: one hub joined to a cycle of m vertices has m triangles
  oracle::Graph wheel{301, {}};
  for (std::int64_t v = 1; v <= 300; ++v) {
    wheel.edges.push_back({0, v, 1});
    wheel.edges.push_back({v, v % 300 + 1, 1});
  }
  CHECK(algo::triangle_count(algotest::to_matrix<double>(wheel)) == 300);
  for (std::uint64_t seed : {81, 82}) {
    const auto h = algotest::hub_graph(700, 4, seed);
    const auto want = oracle::triangles(h);
    INFO("hubs seed=" << seed << " triangles=" << want);
    CHECK(want > 0);
    CHECK(algo::triangle_count(algotest::to_matrix<float>(h)) == want);
    CHECK(algo::triangle_count(algotest::to_matrix<bool>(h)) == want);
    CHECK(algo::triangle_count(algotest::with_duplicates<std::int64_t>(h, 2)) == want);
  }
}

TEST_CASE("triangle count on real graphs", "[algo][tc][data]") {
  for (const std::string name : {"karate.mtx.gz", "cora.mtx.gz", "facebook_combined.mtx.gz", "email-Eu-core.mtx.gz",
                                 "wiki-Vote.mtx.gz", "as-caida20071105.mtx.gz"}) {
    const auto g = algotest::real_graph(name);
    if (g.n < 0) {
      WARN("skipped: " << name << " not found under " << geblas::test::data_dir());
      continue;
    }
    INFO(name);
    CHECK(algo::triangle_count(algotest::to_matrix<double>(g)) == oracle::triangles(g));
  }
}

TEST_CASE("triangle count keeps nothing with A and follows its changes", "[algo][tc][cache]") {
  auto g = algotest::hub_graph(400, 2, 91);
  auto A = algotest::to_matrix<float>(g);
  const auto before = detail::derived_builds();
  const auto first = algo::triangle_count(A);
  CHECK(first == oracle::triangles(g));
  CHECK(algo::triangle_count(A) == first);
  // No set-up is cached (a one-shot call is a repeated one) beyond, for a pattern ranked
  // by id, the one fact of whether it is symmetric.
  CHECK(detail::derived_builds() <= before + 1);
  // Close new triangles (v, v + 1, v + 100): the count follows a write to A.
  oracle::Graph extra{g.n, {}};
  for (std::int64_t v = 1; v < 60; ++v) {
    extra.edges.push_back({v, v + 100, 1});
    extra.edges.push_back({v + 100, v + 1, 1});
    extra.edges.push_back({v + 1, v, 1});
  }
  ewise_add(A, A, algotest::to_matrix<float>(extra), binop::plus<float>{});
  for (const auto& e : extra.edges) g.edges.push_back(e);
  const auto second = oracle::triangles(g);
  REQUIRE(second > first);
  CHECK(algo::triangle_count(A) == second);
}

namespace {

// A power-law-like graph: vertex v joins about `degree` partners drawn with probability
// proportional to 1 / (rank + 1), so a few vertices hold most of the edges; each edge
// stored in one random direction, some twice, with self-loops on every 11th vertex.
oracle::Graph skewed_graph(std::int64_t n, std::int64_t degree, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  oracle::Graph g{n, {}};
  std::vector<double> weight(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) weight[static_cast<std::size_t>(v)] = 1.0 / static_cast<double>(v + 1);
  std::discrete_distribution<std::int64_t> pick(weight.begin(), weight.end());
  for (std::int64_t v = 0; v < n; ++v)
    for (std::int64_t d = 0; d < degree; ++d) {
      const std::int64_t u = pick(rng);
      if (rng() % 2) g.edges.push_back({u, v, 1});
      else g.edges.push_back({v, u, 1});
      if (rng() % 5 == 0) g.edges.push_back({u, v, 1});
    }
  for (std::int64_t v = 0; v < n; v += 11) g.edges.push_back({v, v, 1});
  return g;
}

// The graph as a matrix, edges given more than once summed.
template <class T>
SparseMatrix<T> summed_matrix(const oracle::Graph& g) {
  std::vector<Tuple<T>> t;
  for (const auto& e : g.edges) t.push_back({e.from, e.to, static_cast<T>(1)});
  return SparseMatrix<T>::from_tuples(g.n, g.n, t, binop::plus<T>{}, algotest::device());
}

// The ranking the last triangle count on this thread chose, from its dispatch record.
bool ranked_by_degree() {
  const auto rec = last_dispatch();
  CHECK(rec.operation == "triangle_count");
  CHECK(rec.variant == "ordered_merge");
  return rec.reason.rfind("ranked by degree", 0) == 0;
}

}  // namespace

TEST_CASE("triangle count ranks by degree only on skewed graphs", "[algo][tc]") {
  for (std::uint64_t seed : {101, 102}) {
    const auto g = skewed_graph(3000, 6, seed);
    const auto want = oracle::triangles(g);
    INFO("skewed seed=" << seed << " triangles=" << want);
    CHECK(want > 0);
    CHECK(algo::triangle_count(summed_matrix<double>(g)) == want);
    CHECK(ranked_by_degree());
  }
  // A grid with its diagonals: every degree near 8, ranks stay ids.
  const auto grid = algotest::grid_graph(120, 90, 1);
  oracle::Graph diag = grid;
  for (std::int64_t r = 0; r + 1 < 120; ++r)
    for (std::int64_t c = 0; c + 1 < 90; ++c) diag.edges.push_back({r * 90 + c, (r + 1) * 90 + c + 1, 1});
  const auto want = oracle::triangles(diag);
  CHECK(want > 0);
  CHECK(algo::triangle_count(algotest::to_matrix<float>(diag)) == want);
  CHECK_FALSE(ranked_by_degree());
}

TEST_CASE("triangle count on graphs large enough for the parallel passes", "[algo][tc]") {
  // About 400k entries: above the host's threshold for OpenMP, on both rankings.
  const auto skewed = skewed_graph(40000, 10, 103);
  CHECK(algo::triangle_count(summed_matrix<float>(skewed)) == oracle::triangles(skewed));
  CHECK(ranked_by_degree());
  const auto uniform = algotest::random_graph(60000, 7.0, 104, /*symmetric=*/false);
  CHECK(algo::triangle_count(algotest::to_matrix<std::int64_t>(uniform)) == oracle::triangles(uniform));
  CHECK_FALSE(ranked_by_degree());
}

TEST_CASE("triangle count ranked by degree on a symmetric pattern fills each list from its row", "[algo][tc]") {
  const bool host = algotest::device().is_cpu();
  auto by_rows = [] { return last_dispatch().reason.find("oriented by rows") != std::string::npos; };
  // Both directions of every edge of a skewed graph, a self-loop on every seventh vertex
  // (in both rows' ranks, never above itself), duplicates summed; below and above the
  // host's threshold for its parallel passes.
  for (const auto& [n, degree] : {std::pair<std::int64_t, std::int64_t>{3000, 6}, {40000, 10}}) {
    const auto g = skewed_graph(n, degree, 105);
    std::vector<Tuple<float>> both;
    for (const auto& e : g.edges) {
      both.push_back({e.from, e.to, 1.0f});
      both.push_back({e.to, e.from, 1.0f});
    }
    for (std::int64_t v = 0; v < n; v += 7) both.push_back({v, v, 1.0f});
    const auto S = SparseMatrix<float>::from_tuples(n, n, both, binop::plus<float>{}, algotest::device());
    INFO("n=" << n);
    CHECK(algo::triangle_count(S) == oracle::triangles(g));
    CHECK(ranked_by_degree());
    if (host) CHECK(by_rows());
  }
}

TEST_CASE("triangle count on a symmetric pattern reads A's rows in place", "[algo][tc]") {
  const bool host = algotest::device().is_cpu();
  auto in_place = [] { return last_dispatch().reason.find("oriented in place") != std::string::npos; };
  // A grid with its diagonals, both directions stored: ranked by id, oriented in place.
  oracle::Graph diag = algotest::grid_graph(60, 50, 1);
  for (std::int64_t r = 0; r + 1 < 60; ++r)
    for (std::int64_t c = 0; c + 1 < 50; ++c) diag.edges.push_back({r * 50 + c, (r + 1) * 50 + c + 1, 1});
  const auto want = oracle::triangles(diag);
  REQUIRE(want > 0);
  std::vector<Tuple<float>> both;
  for (const auto& e : diag.edges) {
    both.push_back({e.from, e.to, 1.0f});
    both.push_back({e.to, e.from, 1.0f});
  }
  const auto S = SparseMatrix<float>::from_tuples(diag.n, diag.n, both, binop::first<float>{}, algotest::device());
  CHECK(algo::triangle_count(S) == want);
  if (host) CHECK(in_place());
  // As many entries below the diagonal as above, but not mirrored: (0, 1), (1, 2) above,
  // (2, 0), (4, 3) below. The undirected graph holds the triangle 0-1-2, which the rows'
  // upper parts alone do not.
  const std::vector<Tuple<float>> skewed_halves = {{0, 1, 1}, {1, 2, 1}, {2, 0, 1}, {4, 3, 1}};
  const auto H = SparseMatrix<float>::from_tuples(5, 5, skewed_halves, {}, algotest::device());
  CHECK(algo::triangle_count(H) == 1);
  if (host) CHECK_FALSE(in_place());
}

TEST_CASE("a matrix read from a symmetric Matrix Market file is known to be symmetric", "[algo][tc][io]") {
  // The reader mirrors the file's lower triangle, so the pattern's symmetry is recorded
  // with the matrix: the host's triangle count (and BFS, CC) then test nothing. A general
  // file with the same entries is not symmetric and is not read in place.
  const auto dir = std::filesystem::temp_directory_path();
  const std::string sym = (dir / ("geblas-tc-sym-" + std::to_string(::getpid()) + ".mtx")).string();
  const std::string gen = (dir / ("geblas-tc-gen-" + std::to_string(::getpid()) + ".mtx")).string();
  {
    // K4 on vertices 1..4 plus the edge 4-5: 4 triangles.
    std::ofstream f(sym);
    f << "%%MatrixMarket matrix coordinate pattern symmetric\n5 5 7\n2 1\n3 1\n4 1\n3 2\n4 2\n4 3\n5 4\n";
    std::ofstream g(gen);
    g << "%%MatrixMarket matrix coordinate pattern general\n5 5 7\n2 1\n3 1\n4 1\n3 2\n4 2\n4 3\n5 4\n";
  }
  const auto A = io::read_matrix_market<float>(sym, {}, algotest::device());
  const auto G = io::read_matrix_market<float>(gen, {}, algotest::device());
  std::remove(sym.c_str());
  std::remove(gen.c_str());
  if (!algotest::device().is_cpu()) {
    CHECK(algo::triangle_count(A) == 4);
    return;
  }
  const auto before = detail::derived_builds();
  CHECK(algo::triangle_count(A) == 4);
  CHECK(detail::derived_builds() == before);
  CHECK(last_dispatch().reason.find("oriented in place") != std::string::npos);
  CHECK(algo::triangle_count(G) == 4);  // the lower triangle only: every edge once, not symmetric
  CHECK(last_dispatch().reason.find("oriented in place") == std::string::npos);
}

TEST_CASE("triangle count on the road graph luxembourg_osm", "[algo][tc][data]") {
  const auto g = algotest::real_graph("luxembourg_osm.mtx.gz");
  if (g.n < 0) {
    WARN("skipped: luxembourg_osm.mtx.gz not found under " << geblas::test::data_dir());
    return;
  }
  CHECK(algo::triangle_count(algotest::to_matrix<float>(g)) == oracle::triangles(g));
  CHECK_FALSE(ranked_by_degree());
}
