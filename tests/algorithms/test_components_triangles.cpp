// Connected components against union-find and triangle counts against brute-force
// enumeration, on random, generated and real graphs: hubs, isolated vertices,
// self-loops, duplicate entries, edges stored in one direction only, long paths with
// scrambled ids (long union-find chains), and the caching of the oriented pattern that
// triangle counting keeps with A.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "algorithms/generated.hpp"
#include "algorithms/graphs.hpp"
#include "geblas/detail/derived_stats.hpp"
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

TEST_CASE("triangle count keeps its oriented pattern with A until A changes", "[algo][tc][cache]") {
  auto g = algotest::hub_graph(400, 2, 91);
  auto A = algotest::to_matrix<float>(g);
  const auto before = detail::derived_builds();
  const auto first = algo::triangle_count(A);
  CHECK(first == oracle::triangles(g));
  const auto after_first = detail::derived_builds();
  CHECK(after_first > before);
  CHECK(algo::triangle_count(A) == first);
  CHECK(detail::derived_builds() == after_first);  // the second call built nothing
  // Close new triangles (v, v + 1, v + 100): an operation writing A drops its cache,
  // and the count follows.
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
  const auto mark = detail::derived_builds();
  CHECK(algo::triangle_count(A) == second);
  CHECK(detail::derived_builds() > mark);  // rebuilt for the new A
}
