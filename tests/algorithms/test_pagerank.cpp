// PageRank and personalized PageRank against power iteration on Eigen (oracles.hpp),
// on random graphs with dangling and isolated vertices and on real graphs, weighted and
// unweighted; every vertex's rank is compared.
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/graphs.hpp"
#include "geblas/detail/derived_stats.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

// Ranks agree to 1e-9 when geblas iterates to 1e-12 (the L1 error after convergence is
// about tol * d / (1 - d)).
void check_ranks(const std::vector<double>& got, const Eigen::VectorXd& want, const std::string& what) {
  REQUIRE(static_cast<Eigen::Index>(got.size()) == want.size());
  int bad = 0;
  double sum = 0;
  for (Eigen::Index i = 0; i < want.size(); ++i) {
    sum += got[static_cast<std::size_t>(i)];
    if (std::abs(got[static_cast<std::size_t>(i)] - want(i)) > 1e-9) {
      if (bad++ < 5) UNSCOPED_INFO(what << ": vertex " << i << " got " << got[i] << " want " << want(i));
    }
  }
  CHECK(bad == 0);
  CHECK(std::abs(sum - 1.0) < 1e-9);
}

void run_pagerank(const oracle::Graph& g, bool weighted, const std::string& what) {
  algo::PageRankOptions o;
  o.tolerance = 1e-12;
  o.max_iterations = 1000;
  o.weighted = weighted;
  const auto A = algotest::to_matrix<double>(g);
  const auto r = algo::pagerank(A, o);
  INFO(what << " n=" << g.n << " weighted=" << weighted << " iterations=" << r.iterations);
  CHECK(r.converged);
  CHECK(r.ranks.device() == algotest::device());
  const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(g.n, 1.0 / static_cast<double>(g.n));
  check_ranks(r.ranks.to_std_vector(), oracle::pagerank(g, uniform, 0.85, weighted), what);
}

}  // namespace

TEST_CASE("pagerank matches power iteration on random graphs", "[algo][pagerank]") {
  for (std::uint64_t seed : {1, 2, 3})
    for (std::int64_t n : {1, 7, 64, 500})
      for (bool weighted : {false, true}) {
        const auto g = algotest::random_graph(n, 3.0, seed);
        run_pagerank(g, weighted, "random seed " + std::to_string(seed));
      }
}

TEST_CASE("pagerank matches power iteration on real graphs", "[algo][pagerank][data]") {
  for (const std::string name : {"karate.mtx.gz", "email-Eu-core.mtx.gz", "wiki-Vote.mtx.gz", "astro-ph-weighted.mtx.gz"}) {
    const auto g = algotest::real_graph(name);
    if (g.n < 0) {
      WARN("skipped: " << name << " not found under " << geblas::test::data_dir());
      continue;
    }
    run_pagerank(g, name.find("weighted") != std::string::npos, name);
  }
}

TEST_CASE("pagerank in single precision stays close", "[algo][pagerank]") {
  const auto g = algotest::random_graph(300, 4.0, 11);
  const auto r = algo::pagerank(algotest::to_matrix<float>(g));
  const Eigen::VectorXd want = oracle::pagerank(g, Eigen::VectorXd::Constant(300, 1.0 / 300), 0.85, false);
  const auto got = r.ranks.to_std_vector();
  for (int i = 0; i < 300; ++i) CHECK(std::abs(got[i] - want(i)) < 1e-5);
}

TEST_CASE("personalized pagerank: every column matches its own power iteration", "[algo][pagerank]") {
  const auto g = algotest::random_graph(400, 3.0, 21);
  std::vector<std::vector<Index>> seeds;
  for (Index j = 0; j < 33; ++j) seeds.push_back({(j * 37) % 400, (j * 11 + 5) % 400});
  seeds.push_back({399});  // an isolated vertex (the last tenth is isolated)
  seeds.push_back({3, 3, 7});  // a repeated seed weighs twice
  algo::PageRankOptions o;
  o.tolerance = 1e-12;
  o.max_iterations = 1000;
  const auto r = algo::personalized_pagerank(algotest::to_matrix<double>(g), seeds, o);
  CHECK(r.converged);
  REQUIRE(r.ranks.nrows() == 400);
  REQUIRE(r.ranks.ncols() == static_cast<Index>(seeds.size()));
  const auto all = r.ranks.to_col_major();
  for (std::size_t j = 0; j < seeds.size(); ++j) {
    Eigen::VectorXd p = Eigen::VectorXd::Zero(400);
    for (Index s : seeds[j]) p(s) += 1.0 / static_cast<double>(seeds[j].size());
    const std::vector<double> col(all.begin() + static_cast<std::ptrdiff_t>(j * 400),
                                  all.begin() + static_cast<std::ptrdiff_t>((j + 1) * 400));
    check_ranks(col, oracle::pagerank(g, p, 0.85, false), "seed set " + std::to_string(j));
  }
}

TEST_CASE("pagerank edge cases and errors", "[algo][pagerank][errors]") {
  const auto dev = algotest::device();
  // A single vertex with a self-loop, and one without: rank 1 either way.
  for (bool loop : {false, true}) {
    oracle::Graph g{1, {}};
    if (loop) g.edges.push_back({0, 0, 1.0});
    const auto r = algo::pagerank(algotest::to_matrix<double>(g));
    CHECK(r.ranks.to_std_vector() == std::vector<double>{1.0});
  }
  // No edges at all: uniform.
  const auto r = algo::pagerank(SparseMatrix<double>(5, 5, dev));
  for (double x : r.ranks.to_std_vector()) CHECK(std::abs(x - 0.2) < 1e-15);
  CHECK_THROWS_AS(algo::pagerank(SparseMatrix<double>(3, 4, dev)), DimensionMismatch);
  CHECK_THROWS_AS(algo::pagerank(SparseMatrix<double>(3, 3, dev), {.damping = 1.0}), InvalidValue);
  CHECK_THROWS_AS(algo::pagerank(SparseMatrix<double>(3, 3, dev), {.max_iterations = 0}), InvalidValue);
  oracle::Graph neg{2, {{0, 1, -1.0}}};
  CHECK_THROWS_AS(algo::pagerank(algotest::to_matrix<double>(neg), {.weighted = true}), InvalidValue);
  CHECK_NOTHROW(algo::pagerank(algotest::to_matrix<double>(neg)));  // the pattern ignores values
  CHECK_THROWS_AS(algo::personalized_pagerank(SparseMatrix<double>(3, 3, dev), {{0}, {3}}), IndexOutOfBounds);
  CHECK_THROWS_AS(algo::personalized_pagerank(SparseMatrix<double>(3, 3, dev), {{0}, {}}), InvalidValue);
  CHECK_THROWS_AS(algo::personalized_pagerank(SparseMatrix<double>(3, 3, dev), {}), InvalidValue);
}

TEST_CASE("personalized pagerank with one seed set matches power iteration", "[algo][pagerank]") {
  // One seed set runs the fused iterations (not the SpMM of k sets): check it alone, with
  // seeds on a hub, on a dangling vertex and on an isolated one.
  const auto g = algotest::random_graph(700, 3.0, 23);
  for (const std::vector<Index>& set : std::vector<std::vector<Index>>{{5}, {699}, {1, 2, 2, 650}}) {
    algo::PageRankOptions o;
    o.tolerance = 1e-12;
    o.max_iterations = 1000;
    const auto r = algo::personalized_pagerank(algotest::to_matrix<double>(g), {set}, o);
    CHECK(r.converged);
    REQUIRE(r.ranks.ncols() == 1);
    Eigen::VectorXd p = Eigen::VectorXd::Zero(700);
    for (Index s : set) p(s) += 1.0 / static_cast<double>(set.size());
    check_ranks(r.ranks.to_col_major(), oracle::pagerank(g, p, 0.85, false), "one seed set");
  }
}

TEST_CASE("pagerank on hub graphs: rows far longer than the mean", "[algo][pagerank]") {
  // A star into vertex 0 (in-degree n - 1) and out of vertex 1, on top of a sparse random
  // graph: the GPU cuts such rows of A' into chunks, which this checks element by element.
  for (std::int64_t n : {3000, 20000}) {
    auto g = algotest::random_graph(n, 2.0, 31);
    std::set<std::pair<std::int64_t, std::int64_t>> present;
    for (const auto& e : g.edges) present.emplace(e.from, e.to);
    for (std::int64_t v = 2; v < n; ++v) {
      if (present.emplace(v, 0).second) g.edges.push_back({v, 0, 1.0 + static_cast<double>(v % 3)});
      if (v % 2 && present.emplace(1, v).second) g.edges.push_back({1, v, 2.0});
    }
    for (bool weighted : {false, true}) run_pagerank(g, weighted, "hub graph n=" + std::to_string(n));
  }
}

TEST_CASE("pagerank on rows of every length: empty, short, warp-wide, long and chunked", "[algo][pagerank]") {
  // In-degrees on both sides of each boundary where the GPU changes how a row of A' is
  // summed (one thread, a warp, a tile's worth, one chunk, several chunks), on top of a
  // sparse random graph whose last tenth is isolated (runs of empty rows); vertices
  // at the boundaries sit next to each other so that short tiles meet long rows.
  const std::int64_t n = 12000;
  auto g = algotest::random_graph(n, 1.5, 51);
  const std::vector<std::int64_t> degrees = {31, 32, 33, 64, 1023, 1024, 1025, 2047, 2048, 2049, 4096, 4097, 9000};
  const auto first_target = std::int64_t{100}, end_target = first_target + static_cast<std::int64_t>(degrees.size());
  std::erase_if(g.edges, [&](const oracle::Edge& e) { return e.to >= first_target && e.to < end_target; });
  std::uint64_t next = 7;
  for (std::size_t k = 0; k < degrees.size(); ++k) {
    const auto target = first_target + static_cast<std::int64_t>(k);
    std::int64_t added = 0;
    for (std::int64_t from = 0; from < n && added < degrees[k]; ++from) {
      next = next * 6364136223846793005ULL + 1442695040888963407ULL;
      if ((next >> 33) % 5 == 0) continue;  // a gap now and then, so the rows differ
      g.edges.push_back({from, target, 1.0 + static_cast<double>(from % 4)});
      ++added;
    }
    REQUIRE(added == degrees[k]);
  }
  for (bool weighted : {false, true}) run_pagerank(g, weighted, "row lengths");
  // The same graph in single precision: float ranks, float sums.
  const auto r = algo::pagerank(algotest::to_matrix<float>(g), {.tolerance = 1e-6, .max_iterations = 300});
  const Eigen::VectorXd want = oracle::pagerank(g, Eigen::VectorXd::Constant(n, 1.0 / static_cast<double>(n)), 0.85, false);
  const auto got = r.ranks.to_std_vector();
  REQUIRE(static_cast<std::int64_t>(got.size()) == n);
  int bad = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (!(std::abs(got[static_cast<std::size_t>(i)] - want(i)) <= 1e-6 + 1e-4 * want(i)) && bad++ < 5)
      UNSCOPED_INFO("float: vertex " << i << " got " << got[static_cast<std::size_t>(i)] << " want " << want(i));
  CHECK(bad == 0);
}

TEST_CASE("pagerank stops at the first iteration below the tolerance and reports every one", "[algo][pagerank]") {
  // The iterations run in batches sized from the changes seen so far; whatever the
  // batches, the run must stop at the first change below the tolerance (or at the cap)
  // and call back once per iteration, in order, with that iteration's change.
  const auto g = algotest::random_graph(3000, 4.0, 71);
  const auto A = algotest::to_matrix<double>(g);
  for (double tol : {1e-2, 1e-5, 1e-9, 1e-13})
    for (int cap : {1, 3, 7, 1000}) {
      std::vector<std::pair<int, double>> seen;
      const auto r = algo::pagerank(A, {.tolerance = tol,
                                        .max_iterations = cap,
                                        .on_iteration = [&](int it, double d) { seen.emplace_back(it, d); }});
      INFO("tolerance " << tol << " cap " << cap << " iterations " << r.iterations);
      REQUIRE(static_cast<int>(seen.size()) == r.iterations);
      for (std::size_t j = 0; j < seen.size(); ++j) CHECK(seen[j].first == static_cast<int>(j + 1));
      for (std::size_t j = 0; j + 1 < seen.size(); ++j) CHECK(seen[j].second >= tol);
      CHECK(r.delta == seen.back().second);
      CHECK(r.converged == (seen.back().second < tol));
      if (!r.converged) CHECK(r.iterations == cap);
      CHECK(r.iterations <= cap);
    }
}

TEST_CASE("pagerank's set-up is cached with A and rebuilt when A changes", "[algo][pagerank][cache]") {
  auto g = algotest::random_graph(500, 3.0, 41);
  auto A = algotest::to_matrix<double>(g);
  algo::PageRankOptions o;
  o.tolerance = 1e-12;
  o.max_iterations = 1000;
  const auto before = detail::derived_builds();
  const auto first = algo::pagerank(A, o).ranks.to_std_vector();
  const auto after_first = detail::derived_builds();
  CHECK(after_first > before);  // A' and 1/out were built
  const auto second = algo::pagerank(A, o).ranks.to_std_vector();
  CHECK(detail::derived_builds() == after_first);  // nothing rebuilt
  CHECK(first == second);
  // Change A through an operation: every edge into vertex 3 doubles its weight. The
  // cache goes with the old storage, and the weighted ranks follow the new weights.
  SparseMatrix<double> scaled(A.nrows(), A.ncols(), A.device());
  apply(scaled, A, binop::times<double>{}, 2.0);
  SparseMatrix<double> column(A.nrows(), 1, A.device());
  extract(column, scaled, IndexList::all(), IndexList{3});
  assign(A, column, IndexList::all(), IndexList{3});
  for (auto& e : g.edges)
    if (e.to == 3) e.weight *= 2;
  o.weighted = true;
  const auto mark = detail::derived_builds();
  const auto r = algo::pagerank(A, o);
  CHECK(detail::derived_builds() > mark);
  const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(g.n, 1.0 / static_cast<double>(g.n));
  check_ranks(r.ranks.to_std_vector(), oracle::pagerank(g, uniform, 0.85, true), "after the change");
}

TEST_CASE("weighted pagerank refuses infinite weights and overflowing row sums", "[algo][pagerank][errors]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // The graph of the reproduction: row 0 has two out-edges, rows 1 and 2 one each.
  const auto graph = [](double w01, double w02) {
    return oracle::Graph{3, {{0, 1, w01}, {0, 2, w02}, {1, 0, 1}, {2, 0, 1}}};
  };
  const auto message_of = [](const auto& A, const std::string& algorithm) {
    try {
      if (algorithm == "pagerank") algo::pagerank(A, {.weighted = true});
      else algo::personalized_pagerank(A, {{0}, {1, 2}}, {.weighted = true});
    } catch (const InvalidValue& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (std::string algorithm : {"pagerank", "personalized_pagerank"}) {
    INFO(algorithm);
    for (double bad : {inf, -inf, nan}) {
      const std::string m = message_of(algotest::to_matrix<double>(graph(bad, 1)), algorithm);
      CHECK_THAT(m, test::contains("weight A(0, 1)"));
      CHECK_THAT(m, test::contains("finite weights >= 0"));
    }
    // Finite weights whose sum is not: the row is named.
    const std::string m = message_of(algotest::to_matrix<double>(graph(1e308, 1e308)), algorithm);
    CHECK_THAT(m, test::contains("out-weights of row 0 sum past the largest float64"));
    const std::string mf = message_of(algotest::to_matrix<float>(graph(3e38, 3e38)), algorithm);
    CHECK_THAT(mf, test::contains("out-weights of row 0 sum past the largest float32"));
  }
  // Near the limit every weight and sum is fine, and the ranks equal those of equal
  // weights (the reproduction's 0.486 / 0.257 / 0.257).
  const algo::PageRankOptions o{.tolerance = 1e-12, .max_iterations = 1000, .weighted = true};
  const auto big = algo::pagerank(algotest::to_matrix<double>(graph(1e307, 1e307)), o);
  const auto equal = algo::pagerank(algotest::to_matrix<double>(graph(1, 1)), o);
  REQUIRE(big.converged);
  REQUIRE(equal.converged);
  const auto b = big.ranks.to_std_vector(), e = equal.ranks.to_std_vector();
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(std::isfinite(b[i]));
    CHECK(std::abs(b[i] - e[i]) < 1e-12);
  }
  const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(3, 1.0 / 3);
  check_ranks(e, oracle::pagerank(graph(1, 1), uniform, 0.85, true), "equal weights");
}

TEST_CASE("pagerank: a one-shot call equals a repeated one, on a graph large enough to split A' over threads",
          "[algo][pagerank][cache]") {
  // 20000 vertices, about 120k entries, hubs among them: the first call builds A' (on the
  // host, on several threads); the second reuses it. Both must be the oracle's ranks, and
  // equal to each other bit for bit.
  auto g = algotest::random_graph(20000, 4.0, 43);
  std::set<std::pair<std::int64_t, std::int64_t>> present;
  for (const auto& e : g.edges) present.emplace(e.from, e.to);
  for (std::int64_t v = 2; v < 20000; v += 3)  // a hub with many in-edges
    if (present.emplace(v, 1).second) g.edges.push_back({v, 1, 1.0 + static_cast<double>(v % 4)});
  algo::PageRankOptions o;
  o.tolerance = 1e-12;
  o.max_iterations = 1000;
  for (bool weighted : {false, true}) {
    o.weighted = weighted;
    const auto A = algotest::to_matrix<double>(g);
    const auto one_shot = algo::pagerank(A, o).ranks.to_std_vector();
    const auto repeated = algo::pagerank(A, o).ranks.to_std_vector();
    CHECK(one_shot == repeated);
    const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(g.n, 1.0 / static_cast<double>(g.n));
    check_ranks(one_shot, oracle::pagerank(g, uniform, 0.85, weighted), weighted ? "weighted" : "unweighted");
  }
}

TEST_CASE("pagerank on a pattern known to be symmetric pulls through A itself", "[algo][pagerank][cache]") {
  // Symmetric pattern, weights that differ between (i, j) and (j, i). Once the pattern is
  // known symmetric (the host's BFS tests it and keeps the answer with A), an unweighted
  // PageRank needs no A' (its pull reads only the pattern, which A' shares); a weighted
  // one still needs A' for the values. Every rank is checked against power iteration.
  auto g = algotest::random_graph(3000, 4.0, 31, /*symmetric=*/true);
  for (auto& e : g.edges)
    if (e.from < e.to) e.weight += 7;
  const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(g.n, 1.0 / static_cast<double>(g.n));
  algo::PageRankOptions o;
  o.tolerance = 1e-12;
  o.max_iterations = 1000;
  auto builds_of = [&](const SparseMatrix<double>& A, bool weighted) {
    o.weighted = weighted;
    const auto before = detail::derived_builds();
    const auto r = algo::pagerank(A, o);
    const auto builds = detail::derived_builds() - before;
    check_ranks(r.ranks.to_std_vector(), oracle::pagerank(g, uniform, 0.85, weighted),
                weighted ? "weighted" : "unweighted");
    return builds;
  };
  const auto unknown = algotest::to_matrix<double>(g);
  const auto known = algotest::to_matrix<double>(g);
  (void)algo::bfs(known, 0);  // on the host: the pattern's symmetry tested and kept with A
  const auto unknown_builds = builds_of(unknown, false);
  const auto known_builds = builds_of(known, false);
  // The host tests an unknown pattern itself (one build) rather than transposing: a
  // directed pattern of the same size costs that test and A'.
  oracle::Graph directed = g;
  std::erase_if(directed.edges, [](const auto& e) { return e.from > e.to && (e.from + e.to) % 3 == 0; });
  const auto D = algotest::to_matrix<double>(directed);
  o.weighted = false;
  const auto before = detail::derived_builds();
  check_ranks(algo::pagerank(D, o).ranks.to_std_vector(), oracle::pagerank(directed, uniform, 0.85, false), "directed");
  const auto directed_builds = detail::derived_builds() - before;
  if (algotest::device().is_cpu()) {
    CHECK(known_builds + 1 == unknown_builds);     // the test, no transpose
    CHECK(unknown_builds + 1 == directed_builds);  // the test and the transpose
  }
  (void)builds_of(known, true);
}
