// Shortest paths against a heap Dijkstra: one source (vxm rounds) and many sources
// (min_plus SpMM rounds), random and real graphs, unreachable vertices, negative
// weights and cycles, sources out of range.
#include <string>
#include <vector>

#include "algorithms/graphs.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

template <class T>
void check_distances(const std::vector<T>& got, const std::vector<double>& want, const std::string& what) {
  REQUIRE(got.size() == want.size());
  int bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    const bool ok = std::isinf(want[i]) ? std::isinf(g) : std::abs(g - want[i]) <= 1e-9 * std::max(1.0, want[i]);
    if (!ok && bad++ < 5) UNSCOPED_INFO(what << ": vertex " << i << " got " << g << " want " << want[i]);
  }
  CHECK(bad == 0);
}

void check_graph(const oracle::Graph& g, const std::vector<Index>& sources, const std::string& what) {
  const auto A = algotest::to_matrix<double>(g);
  INFO(what << " n=" << g.n << " edges=" << g.edges.size());
  for (Index s : sources) {
    const auto r = algo::sssp(A, s);
    CHECK(r.distances.device() == algotest::device());
    check_distances(r.distances.to_std_vector(), oracle::dijkstra(g, s), what + " source " + std::to_string(s));
  }
  const auto m = algo::sssp(A, sources);
  REQUIRE(m.distances.ncols() == static_cast<Index>(sources.size()));
  const auto all = m.distances.to_col_major();
  for (std::size_t j = 0; j < sources.size(); ++j) {
    const std::vector<double> col(all.begin() + static_cast<std::ptrdiff_t>(j * g.n),
                                  all.begin() + static_cast<std::ptrdiff_t>((j + 1) * g.n));
    check_distances(col, oracle::dijkstra(g, sources[j]), what + " multi column " + std::to_string(j));
  }
}

}  // namespace

TEST_CASE("sssp matches Dijkstra on random graphs", "[algo][sssp]") {
  for (std::uint64_t seed : {5, 6, 7})
    for (std::int64_t n : {1, 10, 200, 1000}) {
      const auto g = algotest::random_graph(n, 2.5, seed);
      std::vector<Index> sources;
      for (Index k = 0; k < std::min<Index>(n, 9); ++k) sources.push_back((k * 7919) % n);
      check_graph(g, sources, "random seed " + std::to_string(seed));
    }
}

TEST_CASE("sssp matches Dijkstra on real graphs", "[algo][sssp][data]") {
  for (const std::string name : {"astro-ph-weighted.mtx.gz", "power.mtx.gz", "email-Eu-core.mtx.gz", "west0067.mtx.gz"}) {
    const auto g = algotest::real_graph(name);
    if (g.n < 0) {
      WARN("skipped: " << name << " not found under " << geblas::test::data_dir());
      continue;
    }
    check_graph(g, {0, g.n / 3, g.n - 1, 5 % g.n}, name);
  }
}

TEST_CASE("sssp in single precision with integer weights is exact", "[algo][sssp]") {
  const auto g = algotest::random_graph(300, 3.0, 9);
  const auto r = algo::sssp(algotest::to_matrix<float>(g), {0, 17, 42});
  const auto all = r.distances.to_col_major();
  const std::vector<Index> s{0, 17, 42};
  for (std::size_t j = 0; j < 3; ++j) {
    const auto want = oracle::dijkstra(g, s[j]);
    for (Index i = 0; i < 300; ++i) CHECK(static_cast<double>(all[j * 300 + i]) == want[i]);
  }
}

TEST_CASE("sssp with negative weights and negative cycles", "[algo][sssp][errors]") {
  // 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (-2): shortest 0 -> 1 is -1.
  oracle::Graph g{3, {{0, 1, 4}, {0, 2, 1}, {2, 1, -2}}};
  const auto A = algotest::to_matrix<double>(g);
  CHECK_THROWS_AS(algo::sssp(A, 0), InvalidValue);
  const auto r = algo::sssp(A, 0, {.allow_negative = true});
  CHECK(r.distances.to_std_vector() == std::vector<double>{0, -1, 1});
  oracle::Graph cyc{4, {{0, 1, 1}, {1, 2, -3}, {2, 1, 1}, {2, 3, 1}}};
  const auto C = algotest::to_matrix<double>(cyc);
  CHECK_THROWS_AS(algo::sssp(C, 0, {.allow_negative = true}), InvalidValue);
  CHECK_THROWS_AS(algo::sssp(C, std::vector<Index>{3, 0}, {.allow_negative = true}), InvalidValue);
  // The cycle is not reachable from 3: no error.
  CHECK(algo::sssp(C, 3, {.allow_negative = true}).distances.to_std_vector()[0] == oracle::inf);
}

TEST_CASE("sssp edge cases and errors", "[algo][sssp][errors]") {
  const auto dev = algotest::device();
  oracle::Graph one{1, {{0, 0, 2.0}}};  // a self-loop never shortens anything
  CHECK(algo::sssp(algotest::to_matrix<double>(one), 0).distances.to_std_vector() == std::vector<double>{0});
  SparseMatrix<double> A(4, 4, dev);
  CHECK_THROWS_AS(algo::sssp(A, 4), IndexOutOfBounds);
  CHECK_THROWS_AS(algo::sssp(A, -1), IndexOutOfBounds);
  CHECK_THROWS_AS(algo::sssp(A, std::vector<Index>{0, 9}), IndexOutOfBounds);
  CHECK_THROWS_AS(algo::sssp(A, std::vector<Index>{}), InvalidValue);
  CHECK_THROWS_AS(algo::sssp(SparseMatrix<double>(3, 4, dev), 0), DimensionMismatch);
  const auto d = algo::sssp(A, 2).distances.to_std_vector();
  CHECK(d == std::vector<double>{oracle::inf, oracle::inf, 0, oracle::inf});
}
