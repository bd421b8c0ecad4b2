// GNN aggregation against Eigen and plain loops: GCN normalisation and product, and
// GraphSAGE mean and max aggregation, on random graphs and on Cora with its features.
#include <string>
#include <vector>

#include "algorithms/graphs.hpp"
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

void check_graph(const oracle::Graph& g, const RowMat& X, const std::string& what) {
  const auto n = static_cast<Eigen::Index>(g.n);
  const auto dev = algotest::device();
  const auto A = algotest::to_matrix<double>(g);
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
  algo::sage_max_aggregate(Y, A, Xg);
  check(Y, mx, what + " sage max");
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
