// The fused GAT aggregation (algo::gat_attention and its backward) against host loops in
// long double: random graphs with isolated rows and one row of thousands of entries,
// scores large enough to overflow exp without the shift, a row whose scores are all
// -inf (alpha and Y zero), H = 1, 2, 8 heads of F = 1, 7, 16, 64 features, float and
// double; the backward also against central finite differences, and the argument checks.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "algorithms/graphs.hpp"
#include "geblas/algorithms/gnn.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

using LD = long double;
constexpr double inf = std::numeric_limits<double>::infinity();

struct Graph {
  Index n = 0;
  std::vector<Index> ro;
  std::vector<ColIndex> ci;
};

// About a fifth of the rows empty, the others up to 20 neighbours, row `long_row` with
// `long_len` of them.
Graph random_graph(Index n, std::uint64_t seed, Index long_row, Index long_len) {
  std::mt19937_64 rng(seed);
  Graph g;
  g.n = n;
  g.ro.push_back(0);
  for (Index i = 0; i < n; ++i) {
    const Index len = i == long_row ? long_len : (rng() % 5 == 0 ? 0 : Index(rng() % 20));
    for (Index j = 0; j < n; ++j)
      if (Index(rng() % std::uint64_t(n)) < len) g.ci.push_back(ColIndex(j));
    g.ro.push_back(Index(g.ci.size()));
  }
  return g;
}

struct Problem {
  Index H = 1, F = 1;
  double slope = 0.2;
  std::vector<double> el, er, V, dY;
};

Problem random_problem(const Graph& g, Index H, Index F, double scale, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Problem p;
  p.H = H;
  p.F = F;
  p.el.resize(std::size_t(g.n * H));
  p.er.resize(std::size_t(g.n * H));
  p.V.resize(std::size_t(g.n * H * F));
  p.dY.resize(std::size_t(g.n * H * F));
  for (double& x : p.el) x = scale * u(rng);
  for (double& x : p.er) x = scale * u(rng);
  for (double& x : p.V) x = u(rng);
  for (double& x : p.dY) x = u(rng);
  return p;
}

LD leaky(LD x, LD slope) { return x > 0 ? x : x * slope; }

struct Forward {
  std::vector<LD> Y, alpha;
};

Forward host_forward(const Graph& g, const Problem& p) {
  const Index H = p.H, F = p.F, HF = H * F;
  Forward r;
  r.Y.assign(std::size_t(g.n * HF), 0);
  r.alpha.assign(g.ci.size() * std::size_t(H), 0);
  for (Index i = 0; i < g.n; ++i)
    for (Index h = 0; h < H; ++h) {
      LD mx = -inf;
      for (Index k = g.ro[i]; k < g.ro[i + 1]; ++k)
        mx = std::max(mx, leaky(LD(p.el[i * H + h]) + p.er[g.ci[k] * H + h], p.slope));
      if (std::isinf(mx) && mx < 0) continue;  // all -inf: alpha and Y stay 0
      LD sum = 0;
      for (Index k = g.ro[i]; k < g.ro[i + 1]; ++k)
        sum += std::exp(leaky(LD(p.el[i * H + h]) + p.er[g.ci[k] * H + h], p.slope) - mx);
      for (Index k = g.ro[i]; k < g.ro[i + 1]; ++k) {
        const LD a = std::exp(leaky(LD(p.el[i * H + h]) + p.er[g.ci[k] * H + h], p.slope) - mx) / sum;
        r.alpha[k * H + h] = a;
        for (Index f = 0; f < F; ++f) r.Y[i * HF + h * F + f] += a * p.V[g.ci[k] * HF + h * F + f];
      }
    }
  return r;
}

struct Backward {
  std::vector<LD> dV, d_el, d_er;
};

// Written from the chain rule edge by edge (scatter form), independently of the kernels'
// row / column organisation.
Backward host_backward(const Graph& g, const Problem& p, const Forward& fw) {
  const Index H = p.H, F = p.F, HF = H * F;
  Backward b;
  b.dV.assign(std::size_t(g.n * HF), 0);
  b.d_el.assign(std::size_t(g.n * H), 0);
  b.d_er.assign(std::size_t(g.n * H), 0);
  std::vector<LD> da(g.ci.size() * std::size_t(H));
  for (Index i = 0; i < g.n; ++i)
    for (Index k = g.ro[i]; k < g.ro[i + 1]; ++k)
      for (Index h = 0; h < H; ++h) {
        LD d = 0;
        for (Index f = 0; f < F; ++f) {
          d += LD(p.dY[i * HF + h * F + f]) * p.V[g.ci[k] * HF + h * F + f];
          b.dV[g.ci[k] * HF + h * F + f] += fw.alpha[k * H + h] * p.dY[i * HF + h * F + f];
        }
        da[k * H + h] = d;
      }
  for (Index i = 0; i < g.n; ++i)
    for (Index h = 0; h < H; ++h) {
      LD dot = 0;
      for (Index k = g.ro[i]; k < g.ro[i + 1]; ++k) dot += fw.alpha[k * H + h] * da[k * H + h];
      for (Index k = g.ro[i]; k < g.ro[i + 1]; ++k) {
        const LD s = LD(p.el[i * H + h]) + p.er[g.ci[k] * H + h];
        const LD ds = fw.alpha[k * H + h] * (da[k * H + h] - dot) * (s > 0 ? 1 : p.slope);
        b.d_el[i * H + h] += ds;
        b.d_er[g.ci[k] * H + h] += ds;
      }
    }
  return b;
}

template <class T>
DenseMatrix<T> dense(Index r, Index c, const std::vector<double>& v) {
  std::vector<T> t(v.begin(), v.end());
  return DenseMatrix<T>::from_row_major(r, c, t, algotest::device());
}

template <class T, class W>
int count_bad(const DenseMatrix<T>& got, const std::vector<W>& want, double tol, const std::string& what) {
  const auto g = got.to_row_major();
  if (g.size() != want.size()) {
    UNSCOPED_INFO(what << ": " << g.size() << " values, want " << want.size());
    return 1;
  }
  int bad = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    const double w = double(want[k]), x = double(g[k]);
    if (!(std::abs(x - w) <= tol * std::max(1.0, std::abs(w))) && bad++ < 5)
      UNSCOPED_INFO(what << " [" << k << "]: got " << x << " want " << w);
  }
  return bad;
}

template <class T>
void check_case(const Graph& g, const Problem& p, double tol, const std::string& what) {
  const Index n = g.n, H = p.H, HF = p.H * p.F;
  std::vector<T> ones(g.ci.size(), T(1));
  const auto A = SparseMatrix<T>::from_csr(n, n, g.ro, g.ci, ones, algotest::device());
  const auto el = dense<T>(n, H, p.el), er = dense<T>(n, H, p.er), V = dense<T>(n, HF, p.V);
  DenseMatrix<T> Y, alpha;
  algo::gat_attention(Y, alpha, A, el, er, V, p.slope);
  CHECK(last_dispatch().operation == "gat_attention");
  CHECK(last_dispatch().variant == (algotest::device().is_cpu() ? "rows" : "warp_per_row"));
  const Forward fw = host_forward(g, p);
  CHECK(count_bad(Y, fw.Y, tol, what + " Y") == 0);
  CHECK(count_bad(alpha, fw.alpha, tol, what + " alpha") == 0);
  DenseMatrix<T> dV, d_el, d_er;
  algo::gat_attention_backward(dV, d_el, d_er, A, el, er, V, alpha, dense<T>(n, HF, p.dY), p.slope);
  const Backward bw = host_backward(g, p, fw);
  // The gradients sum up to a row's (or a column's) worth of terms: a looser bound.
  CHECK(count_bad(dV, bw.dV, 20 * tol, what + " dV") == 0);
  CHECK(count_bad(d_el, bw.d_el, 20 * tol, what + " d_el") == 0);
  CHECK(count_bad(d_er, bw.d_er, 20 * tol, what + " d_er") == 0);
}

}  // namespace

TEST_CASE("GAT attention matches host loops", "[algo][gnn][gat]") {
  const Graph g = random_graph(3100, 42, 5, 3000);
  int combo = 0;
  for (Index H : {1, 2, 8})
    for (Index F : {1, 7, 16, 64}) {
      ++combo;
      const double scale = combo % 3 == 0 ? 1000.0 : 2.0;  // 1000: exp overflows without the shift
      Problem p = random_problem(g, H, F, scale, 1000 + combo);
      if (combo % 2 == 0)
        for (Index h = 0; h < H; ++h) p.el[5 * H + h] = p.el[9 * H + h] = -inf;  // rows with all scores -inf
      const std::string what = "H=" + std::to_string(H) + " F=" + std::to_string(F) +
                               " scale=" + std::to_string(scale) + " on " + algotest::device().str();
      INFO(what);
      check_case<double>(g, p, 1e-12, what + " double");
      // float: at scores of 1000 the rounding of el + er alone moves alpha by 1e-4, so
      // the float cases take the small scores (the shift is checked in double, where
      // exp(1000) overflows too).
      if (F <= 16 && scale < 10) check_case<float>(g, p, 2e-5, what + " float");
    }
}

TEST_CASE("GAT attention backward matches finite differences", "[algo][gnn][gat]") {
  const Graph g = random_graph(40, 7, 3, 30);
  for (Index H : {1, 3}) {
    const Index F = 5, n = g.n, HF = H * F;
    Problem p = random_problem(g, H, F, 2.0, 77 + H);
    p.slope = 0.1;
    std::vector<double> ones(g.ci.size(), 1.0);
    const auto A = SparseMatrix<double>::from_csr(n, n, g.ro, g.ci, ones, algotest::device());
    // L = sum dY . Y, so dL/dx is the backward of dY.
    const auto loss = [&](const Problem& q) {
      const Forward fw = host_forward(g, q);
      LD l = 0;
      for (std::size_t k = 0; k < fw.Y.size(); ++k) l += fw.Y[k] * q.dY[k];
      return double(l);
    };
    DenseMatrix<double> Y, alpha, dV, d_el, d_er;
    const auto el = dense<double>(n, H, p.el), er = dense<double>(n, H, p.er), V = dense<double>(n, HF, p.V);
    algo::gat_attention(Y, alpha, A, el, er, V, p.slope);
    algo::gat_attention_backward(dV, d_el, d_er, A, el, er, V, alpha, dense<double>(n, HF, p.dY), p.slope);
    const auto check_fd = [&](std::vector<double> Problem::*field, const DenseMatrix<double>& grad, const char* name) {
      const auto got = grad.to_row_major();
      int bad = 0;
      for (std::size_t k = 0; k < (p.*field).size(); ++k) {
        Problem a = p, b = p;
        const double h = 1e-6;
        (a.*field)[k] += h;
        (b.*field)[k] -= h;
        const double fd = (loss(a) - loss(b)) / (2 * h);
        if (std::abs(fd - got[k]) > 1e-6 && bad++ < 5)
          UNSCOPED_INFO(name << "[" << k << "]: fd " << fd << " got " << got[k]);
      }
      CHECK(bad == 0);
    };
    INFO("H=" << H << " on " << algotest::device().str());
    check_fd(&Problem::V, dV, "dV");
    check_fd(&Problem::el, d_el, "d_el");
    check_fd(&Problem::er, d_er, "d_er");
  }
}

TEST_CASE("GAT attention rejects bad arguments", "[algo][gnn][gat][errors]") {
  const auto dev = algotest::device();
  const auto A = SparseMatrix<double>::from_csr(3, 3, {0, 1, 2, 3}, {1, 2, 0}, {1, 1, 1}, dev);
  const auto el = dense<double>(3, 2, std::vector<double>(6, 0.5));
  DenseMatrix<double> Y, alpha;
  CHECK_THROWS_AS(algo::gat_attention(Y, alpha, A, el, el, dense<double>(3, 5, std::vector<double>(15, 1)), 0.2),
                  DimensionMismatch);  // 5 columns are not 2 heads
  CHECK_THROWS_AS(algo::gat_attention(Y, alpha, A, el, dense<double>(2, 2, std::vector<double>(4, 1)),
                                      dense<double>(3, 4, std::vector<double>(12, 1)), 0.2),
                  DimensionMismatch);  // er has 2 rows
  const auto R = SparseMatrix<double>::from_csr(2, 3, {0, 1, 2}, {1, 2}, {1, 1}, dev);
  CHECK_THROWS_AS(algo::gat_attention(Y, alpha, R, el, el, dense<double>(3, 4, std::vector<double>(12, 1)), 0.2),
                  DimensionMismatch);  // not square
  // The detail entry takes its outputs as given: a Y of the wrong shape is refused.
  DenseMatrix<double> Ybad(3, 3, dev), al(3, 2, dev);
  CHECK_THROWS_AS(detail::gat_attention(Ybad.storage(), al.storage(), A.storage(), el.storage(), el.storage(),
                                        dense<double>(3, 4, std::vector<double>(12, 1)).storage(), 0.2),
                  DimensionMismatch);
}
