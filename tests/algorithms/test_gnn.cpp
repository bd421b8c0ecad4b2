// GNN aggregation against Eigen and plain loops: GCN normalisation and product, and
// GraphSAGE mean and max aggregation, on random and generated graphs (hubs, isolated
// vertices, self-loops, duplicate entries), a rectangular A, and Cora with its
// features; and the caching of the GraphSAGE mean matrix with A until A changes.
#include <string>
#include <vector>

#include "algorithms/generated.hpp"
#include "algorithms/graphs.hpp"
#include "geblas/detail/derived_stats.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void check(const DenseMatrix<double>& Y, const RowMat& want, const std::string& what) {
  const auto got = Y.to_row_major();
  REQUIRE(static_cast<Eigen::Index>(got.size()) == want.size());
  int bad = 0;
  for (Eigen::Index i = 0; i < want.rows(); ++i)
    for (Eigen::Index j = 0; j < want.cols(); ++j) {
      const double g = got[static_cast<std::size_t>(i * want.cols() + j)], w = want(i, j);
      const bool ok = std::isinf(w) ? g == w : std::abs(g - w) <= 1e-12 * std::max(1.0, std::abs(w));
      if (!ok && bad++ < 5) UNSCOPED_INFO(what << " (" << i << "," << j << "): got " << g << " want " << w);
    }
  CHECK(bad == 0);
}

// A_in, when given, is g's pattern stored with duplicate entries combined (values
// differ from g's weights, so the max aggregation, which reads them, is skipped).
void check_graph(const oracle::Graph& g, const RowMat& X, const std::string& what,
                 const SparseMatrix<double>* A_in = nullptr) {
  const auto n = static_cast<Eigen::Index>(g.n);
  const auto dev = algotest::device();
  const auto A = A_in ? *A_in : algotest::to_matrix<double>(g);
  std::vector<double> xv(X.data(), X.data() + X.size());
  const auto Xg = DenseMatrix<double>::from_row_major(X.rows(), X.cols(), xv, dev);
  DenseMatrix<double> Y(n, X.cols(), dev);
  // GCN: D^-1/2 (A + I) D^-1/2 over the pattern (a stored diagonal counts once).
  std::vector<std::set<std::int64_t>> nb(static_cast<std::size_t>(n));
  for (const auto& e : g.edges) nb[e.from].insert(e.to);
  for (Eigen::Index i = 0; i < n; ++i) nb[i].insert(i);
  std::vector<Eigen::Triplet<double>> t;
  for (Eigen::Index i = 0; i < n; ++i)
    for (auto j : nb[i]) t.emplace_back(i, j, 1.0 / std::sqrt(double(nb[i].size()) * double(nb[j].size())));
  Eigen::SparseMatrix<double> H(n, n);
  H.setFromTriplets(t.begin(), t.end());
  algo::gcn_aggregate(Y, algo::gcn_normalize(A), Xg);
  check(Y, RowMat(H * X), what + " gcn");
  // GraphSAGE mean and max over out-neighbours (a self-loop is a neighbour).
  const auto adj = g.out();
  RowMat mean = RowMat::Zero(n, X.cols()), mx = RowMat::Constant(n, X.cols(), -oracle::inf);
  for (Eigen::Index i = 0; i < n; ++i)
    for (auto [j, w] : adj[i])
      for (Eigen::Index c = 0; c < X.cols(); ++c) {
        mean(i, c) += X(j, c) / static_cast<double>(adj[i].size());
        mx(i, c) = std::max(mx(i, c), w * X(j, c));
      }
  algo::sage_mean_aggregate(Y, A, Xg);
  check(Y, mean, what + " sage mean");
  if (A_in) return;
  algo::sage_max_aggregate(Y, A, Xg);
  check(Y, mx, what + " sage max");
}

RowMat random_features(Eigen::Index n, Eigen::Index f, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  RowMat X(n, f);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4;
  return X;
}

}  // namespace

TEST_CASE("GNN aggregations match Eigen and loops on random graphs", "[algo][gnn]") {
  for (std::uint64_t seed : {61, 62})
    for (std::int64_t n : {1, 30, 250})
      for (Eigen::Index f : {1, 7, 33}) {
        const auto g = algotest::random_graph(n, 3.0, seed);
        std::mt19937_64 rng(seed + 100);
        RowMat X(n, f);
        for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4;
        INFO("seed=" << seed << " n=" << n << " f=" << f);
        check_graph(g, X, "random");
      }
}

TEST_CASE("GNN aggregations on generated graphs", "[algo][gnn]") {
  for (std::uint64_t seed : {63, 64}) {
    // hubs, isolated vertices, self-loops; large enough for the CPU's parallel paths
    const auto h = algotest::hub_graph(3000, 3, seed);
    const RowMat X = random_features(h.n, 16, seed);
    check_graph(h, X, "hubs");
    const auto dup = algotest::with_duplicates<double>(h, 3);
    check_graph(h, X, "hubs with duplicates", &dup);
  }
  // self-loops only and no edges at all: GCN keeps x, the mean is x on a loop, else 0
  oracle::Graph loops{5, {{0, 0, 1}, {3, 3, 1}}};
  check_graph(loops, random_features(5, 3, 65), "self-loops only");
  check_graph(oracle::Graph{6, {}}, random_features(6, 4, 66), "no edges");
}

TEST_CASE("GraphSAGE mean over a rectangular A", "[algo][gnn]") {
  // 5 targets aggregating over 7 sources; target 3 has none
  const auto dev = algotest::device();
  const std::vector<Tuple<double>> t{{0, 1, 4.0}, {0, 6, 2.0}, {1, 0, 1.0}, {2, 2, 7.0}, {2, 3, 1.0}, {2, 5, 3.0}, {4, 4, 9.0}};
  const auto A = SparseMatrix<double>::from_tuples(5, 7, t, {}, dev);
  const RowMat X = random_features(7, 3, 67);
  std::vector<double> xv(X.data(), X.data() + X.size());
  DenseMatrix<double> Y(5, 3, dev);
  algo::sage_mean_aggregate(Y, A, DenseMatrix<double>::from_row_major(7, 3, xv, dev));
  RowMat want = RowMat::Zero(5, 3);
  want.row(0) = (X.row(1) + X.row(6)) / 2;
  want.row(1) = X.row(0);
  want.row(2) = (X.row(2) + X.row(3) + X.row(5)) / 3;
  want.row(4) = X.row(4);
  check(Y, want, "rectangular sage mean");
}

TEST_CASE("GraphSAGE mean keeps its matrix with A until A changes", "[algo][gnn][cache]") {
  const auto dev = algotest::device();
  auto g = algotest::hub_graph(300, 2, 68);
  auto A = algotest::to_matrix<double>(g);
  const RowMat X = random_features(g.n, 5, 69);
  std::vector<double> xv(X.data(), X.data() + X.size());
  const auto Xg = DenseMatrix<double>::from_row_major(g.n, 5, xv, dev);
  DenseMatrix<double> Y(g.n, 5, dev);
  auto mean_of = [&](const oracle::Graph& graph) {
    const auto adj = graph.out();
    RowMat m = RowMat::Zero(graph.n, 5);
    for (Eigen::Index i = 0; i < graph.n; ++i)
      for (auto [j, w] : adj[i]) m.row(i) += X.row(j) / static_cast<double>(adj[i].size());
    return m;
  };
  const auto before = detail::derived_builds();
  algo::sage_mean_aggregate(Y, A, Xg);
  check(Y, mean_of(g), "first call");
  const auto after_first = detail::derived_builds();
  CHECK(after_first > before);
  algo::sage_mean_aggregate(Y, A, Xg);
  check(Y, mean_of(g), "second call");
  CHECK(detail::derived_builds() == after_first);  // the second call built nothing
  // Drop the edges into vertices >= 150: an operation writing A drops its cache, and
  // the means (and degrees) follow.
  select(A, A, selectop::col_le{149});
  std::erase_if(g.edges, [](const oracle::Edge& e) { return e.to > 149; });
  const auto mark = detail::derived_builds();
  algo::sage_mean_aggregate(Y, A, Xg);
  check(Y, mean_of(g), "after A changed");
  CHECK(detail::derived_builds() > mark);
}

TEST_CASE("GNN aggregations on Cora with its features", "[algo][gnn][data]") {
  const auto g = algotest::real_graph("cora.mtx.gz");
  const std::string fpath = geblas::test::data_file("cora.features.mtx.gz");
  if (g.n < 0 || fpath.empty()) {
    WARN("skipped: cora.mtx.gz or cora.features.mtx.gz not found under " << geblas::test::data_dir());
    return;
  }
  const auto F = io::read_matrix_market<double>(fpath);
  RowMat X = RowMat::Zero(F.nrows(), 24);  // the first 24 feature columns keep the test quick
  for (const auto& t : F.extract_tuples())
    if (t.col < 24) X(t.row, t.col) = t.value;
  check_graph(g, X, "cora");
}

TEST_CASE("GNN aggregation rejects mismatched shapes", "[algo][gnn][errors]") {
  const auto dev = algotest::device();
  SparseMatrix<double> A(4, 4, dev);
  DenseMatrix<double> X(4, 3, dev), Y(4, 2, dev), Z(5, 3, dev);
  CHECK_THROWS_AS(algo::sage_max_aggregate(Y, A, X), DimensionMismatch);
  CHECK_THROWS_AS(algo::sage_mean_aggregate(Z, A, X), DimensionMismatch);
  CHECK_THROWS_AS(algo::gcn_normalize(SparseMatrix<double>(3, 4, dev)), DimensionMismatch);
}
