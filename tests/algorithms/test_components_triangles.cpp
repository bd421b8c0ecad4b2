// Connected components against union-find and triangle counts against brute-force
// enumeration, on random and real graphs, with self-loops, isolated vertices and
// directed inputs (both work on the symmetrized pattern).
#include <string>
#include <vector>

#include "algorithms/graphs.hpp"
#include "support/catch.hpp"

using namespace geblas;

TEST_CASE("connected components match union-find", "[algo][cc]") {
  for (std::uint64_t seed : {41, 42, 43})
    for (std::int64_t n : {1, 9, 300, 2000})
      for (double degree : {0.4, 1.0, 3.0}) {
        const auto g = algotest::random_graph(n, degree, seed);
        const auto r = algo::connected_components(algotest::to_matrix<double>(g));
        const auto want = oracle::components(g);
        INFO("seed=" << seed << " n=" << n << " degree=" << degree << " rounds=" << r.rounds);
        CHECK(r.labels.device() == algotest::device());
        CHECK(r.labels.to_std_vector() == want);
        Index count = 0;
        for (Index i = 0; i < n; ++i) count += want[i] == i;
        CHECK(r.count == count);
      }
}

TEST_CASE("connected components on real graphs", "[algo][cc][data]") {
  for (const std::string name : {"citeseer.mtx.gz", "power.mtx.gz", "wiki-Vote.mtx.gz", "luxembourg_osm.mtx.gz"}) {
    const auto g = algotest::real_graph(name);
    if (g.n < 0) {
      WARN("skipped: " << name << " not found under " << geblas::test::data_dir());
      continue;
    }
    const auto r = algo::connected_components(algotest::to_matrix<float>(g));
    INFO(name << " rounds=" << r.rounds);
    CHECK(r.labels.to_std_vector() == oracle::components(g));
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
  CHECK_THROWS_AS(algo::triangle_count(SparseMatrix<float>(2, 3, algotest::device())), DimensionMismatch);
  CHECK_THROWS_AS(algo::connected_components(SparseMatrix<float>(2, 3, algotest::device())), DimensionMismatch);
}

TEST_CASE("triangle count on real graphs", "[algo][tc][data]") {
  for (const std::string name : {"karate.mtx.gz", "cora.mtx.gz", "facebook_combined.mtx.gz", "email-Eu-core.mtx.gz"}) {
    const auto g = algotest::real_graph(name);
    if (g.n < 0) {
      WARN("skipped: " << name << " not found under " << geblas::test::data_dir());
      continue;
    }
    INFO(name);
    CHECK(algo::triangle_count(algotest::to_matrix<double>(g)) == oracle::triangles(g));
  }
}
