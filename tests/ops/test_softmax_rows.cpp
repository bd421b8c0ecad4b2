// softmax_rows and softmax_rows_backward on test::device() against host loops in long
// double: random patterns with empty rows, a row of thousands of entries, values large
// enough to overflow exp without the shift, -inf entries and an all -inf row (zeros),
// NaN (its row NaN), float, double and the 16-bit types; the backward also against
// central finite differences; the pattern checks of the backward and the type checks.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/catch.hpp"
#include "support/device.hpp"

using namespace geblas;

namespace {

struct Csr {
  Index n = 0, m = 0;
  std::vector<Index> ro;
  std::vector<ColIndex> ci;
  std::vector<double> v;
};

constexpr double inf = std::numeric_limits<double>::infinity();

// n rows over m columns: about a fifth empty, row `long_row` with `long_len` entries,
// values uniform in [-scale, scale], and every tenth value -inf when `with_inf`.
Csr random_csr(Index n, Index m, std::uint64_t seed, double scale, Index long_row, Index long_len, bool with_inf) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-scale, scale);
  Csr c;
  c.n = n;
  c.m = m;
  c.ro.push_back(0);
  for (Index i = 0; i < n; ++i) {
    Index len = rng() % 5 == 0 ? 0 : Index(rng() % 40);
    if (i == long_row) len = long_len;
    std::vector<ColIndex> cols;
    for (Index j = 0; j < m && Index(cols.size()) < len; ++j)
      if (Index(rng() % std::uint64_t(m)) < len) cols.push_back(ColIndex(j));
    for (ColIndex j : cols) {
      c.ci.push_back(j);
      c.v.push_back(with_inf && rng() % 10 == 0 ? -inf : val(rng));
    }
    c.ro.push_back(Index(c.ci.size()));
  }
  return c;
}

std::vector<double> host_softmax(const Csr& c) {
  std::vector<double> out(c.v.size());
  for (Index i = 0; i < c.n; ++i) {
    long double mx = -inf;
    for (Index k = c.ro[i]; k < c.ro[i + 1]; ++k) mx = std::max<long double>(mx, c.v[k]);
    long double sum = 0;
    for (Index k = c.ro[i]; k < c.ro[i + 1]; ++k) sum += std::exp(static_cast<long double>(c.v[k]) - mx);
    for (Index k = c.ro[i]; k < c.ro[i + 1]; ++k)
      out[k] = std::isinf(mx) && mx < 0 ? 0.0 : double(std::exp(static_cast<long double>(c.v[k]) - mx) / sum);
  }
  return out;
}

template <class T>
SparseMatrix<T> to_matrix(const Csr& c, const std::vector<double>& values) {
  std::vector<T> v(values.size());
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<T>(values[k]);
  return SparseMatrix<T>::from_csr(c.n, c.m, c.ro, c.ci, v, test::device());
}

template <class T>
std::vector<double> values_of(const SparseMatrix<T>& A) {
  std::vector<double> out;
  for (const auto& t : A.extract_tuples()) out.push_back(static_cast<double>(static_cast<float>(t.value)));
  return out;
}
template <>
std::vector<double> values_of(const SparseMatrix<double>& A) {
  std::vector<double> out;
  for (const auto& t : A.extract_tuples()) out.push_back(t.value);
  return out;
}

// Every entry within tol (relative to max(1, |want|)); NaN only where NaN is wanted.
int count_bad(const std::vector<double>& got, const std::vector<double>& want, double tol, const std::string& what) {
  int bad = 0;
  if (got.size() != want.size()) {
    UNSCOPED_INFO(what << ": " << got.size() << " values, want " << want.size());
    return 1;
  }
  for (std::size_t k = 0; k < want.size(); ++k) {
    const bool ok =
        std::isnan(want[k]) ? std::isnan(got[k]) : std::abs(got[k] - want[k]) <= tol * std::max(1.0, std::abs(want[k]));
    if (!ok && bad++ < 5) UNSCOPED_INFO(what << " entry " << k << ": got " << got[k] << " want " << want[k]);
  }
  return bad;
}

template <class T>
void check_forward(const Csr& c, double tol, const std::string& what) {
  const auto S = to_matrix<T>(c, c.v);
  // The reference sees the values as stored in T (the 16-bit types round them).
  Csr rounded = c;
  rounded.v = values_of(S);
  const auto P = softmax_rows(S);
  CHECK(P.nrows() == c.n);
  CHECK(P.ncols() == c.m);
  const auto tuples = P.extract_tuples();
  REQUIRE(tuples.size() == c.v.size());
  int moved = 0;  // the pattern is S's
  for (Index i = 0, k = 0; i < c.n; ++i)
    for (Index q = c.ro[i]; q < c.ro[i + 1]; ++q, ++k) moved += tuples[k].row != i || tuples[k].col != c.ci[q];
  CHECK(moved == 0);
  CHECK(count_bad(values_of(P), host_softmax(rounded), tol, what) == 0);
  CHECK(last_dispatch().operation == "softmax_rows");
  CHECK(last_dispatch().variant == (test::device().is_cpu() ? "rows" : "warp_per_row"));
}

}  // namespace

TEST_CASE("softmax_rows matches host loops", "[ops][softmax]") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    for (double scale : {1.0, 1000.0}) {
      const Csr c = random_csr(300, 6000, seed, scale, 7, 5000, seed != 1);
      const std::string what =
          "seed=" + std::to_string(seed) + " scale=" + std::to_string(scale) + " on " + test::device().str();
      INFO(what);
      check_forward<double>(c, 1e-13, what + " double");
      check_forward<float>(c, 2e-6, what + " float");
      check_forward<half>(c, 2e-3, what + " half");
      check_forward<bfloat16>(c, 1.6e-2, what + " bfloat16");
    }
  }
}

TEST_CASE("softmax_rows on special rows", "[ops][softmax]") {
  // Rows: empty; all -inf (zeros); a NaN (the row NaN); one entry (1); +/-1e300 (no
  // overflow with the shift); -inf beside finite values (0 there).
  Csr c;
  c.n = 6;
  c.m = 4;
  c.ro = {0, 0, 2, 4, 5, 7, 10};
  c.ci = {0, 3, 1, 2, 2, 0, 1, 0, 1, 3};
  c.v = {-inf, -inf, 1.0, std::nan(""), 5.0, 1e300, -1e300, 2.0, -inf, 2.0};
  const auto P = softmax_rows(to_matrix<double>(c, c.v));
  const std::vector<double> want = {0, 0, std::nan(""), std::nan(""), 1, 1, 0, 0.5, 0, 0.5};
  CHECK(count_bad(values_of(P), want, 1e-15, "special rows") == 0);
  const auto Pf = softmax_rows(to_matrix<float>(c, c.v));  // 1e300 is inf in float: its row is NaN
  const auto pf = values_of(Pf);
  CHECK(pf[7] == 0.5);
  CHECK(pf[0] == 0);
  CHECK(std::isnan(pf[3]));
}

TEST_CASE("softmax_rows_backward matches the formula and finite differences", "[ops][softmax]") {
  for (std::uint64_t seed : {4u, 5u}) {
    const Csr c = random_csr(200, 3000, seed, 3.0, 11, 2500, false);
    INFO("seed=" << seed << " on " << test::device().str());
    std::mt19937_64 rng(seed + 100);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> w(c.v.size());
    for (double& x : w) x = u(rng);
    const auto P = softmax_rows(to_matrix<double>(c, c.v));
    const auto p = values_of(P);
    std::vector<double> want(c.v.size());
    for (Index i = 0; i < c.n; ++i) {
      long double dot = 0;
      for (Index k = c.ro[i]; k < c.ro[i + 1]; ++k) dot += static_cast<long double>(p[k]) * w[k];
      for (Index k = c.ro[i]; k < c.ro[i + 1]; ++k) want[k] = double(p[k] * (w[k] - dot));
    }
    SparseMatrix<double> dS(c.n, c.m, test::device());
    softmax_rows_backward(dS, P, to_matrix<double>(c, w));
    const auto ds = values_of(dS);
    CHECK(count_bad(ds, want, 1e-13, "backward") == 0);
    CHECK(last_dispatch().operation == "softmax_rows_backward");
    // d/dS_k of L = sum w . softmax(S), by central differences on a few entries.
    const auto loss = [&](const std::vector<double>& s) {
      Csr cs = c;
      cs.v = s;
      const auto q = host_softmax(cs);
      long double l = 0;
      for (std::size_t k = 0; k < q.size(); ++k) l += static_cast<long double>(w[k]) * q[k];
      return double(l);
    };
    int bad = 0;
    for (std::size_t k = 0; k < c.v.size(); k += c.v.size() / 40 + 1) {
      const double h = 1e-6;
      auto sp = c.v, sm = c.v;
      sp[k] += h;
      sm[k] -= h;
      const double fd = (loss(sp) - loss(sm)) / (2 * h);
      if (std::abs(fd - ds[k]) > 1e-7 && bad++ < 5) UNSCOPED_INFO("entry " << k << ": fd " << fd << " got " << ds[k]);
    }
    CHECK(bad == 0);
    // float against the same formula
    SparseMatrix<float> dSf(c.n, c.m, test::device());
    softmax_rows_backward(dSf, to_matrix<float>(c, p), to_matrix<float>(c, w));
    CHECK(count_bad(values_of(dSf), want, 1e-5, "backward float") == 0);
    // bfloat16 (computed in float): against the formula on the rounded inputs
    const auto Pb = to_matrix<bfloat16>(c, p), Wb = to_matrix<bfloat16>(c, w);
    const auto pb = values_of(Pb), wb = values_of(Wb);
    std::vector<double> want_b(c.v.size());
    for (Index i = 0; i < c.n; ++i) {
      long double dot = 0;
      for (Index k = c.ro[i]; k < c.ro[i + 1]; ++k) dot += static_cast<long double>(pb[k]) * wb[k];
      for (Index k = c.ro[i]; k < c.ro[i + 1]; ++k) want_b[k] = double(pb[k] * (wb[k] - dot));
    }
    SparseMatrix<bfloat16> dSb(c.n, c.m, test::device());
    softmax_rows_backward(dSb, Pb, Wb);
    CHECK(count_bad(values_of(dSb), want_b, 8e-3, "backward bfloat16") == 0);
  }
}

TEST_CASE("softmax_rows rejects bad operands", "[ops][softmax][errors]") {
  Csr c;
  c.n = 2;
  c.m = 3;
  c.ro = {0, 2, 3};
  c.ci = {0, 2, 1};
  c.v = {1, 2, 3};
  const auto I = SparseMatrix<std::int32_t>::from_csr(2, 3, c.ro, c.ci, {1, 2, 3}, test::device());
  CHECK_THROWS_AS(softmax_rows(I), DomainMismatch);
  const auto P = to_matrix<double>(c, c.v);
  SparseMatrix<double> wrong(3, 3, test::device());
  CHECK_THROWS_AS(softmax_rows(wrong, P), DimensionMismatch);
  SparseMatrix<double> dS(2, 3, test::device());
  // dP with other row lengths (the same count) and with another count
  const auto other_rows = SparseMatrix<double>::from_csr(2, 3, {0, 1, 3}, {0, 1, 2}, {1, 2, 3}, test::device());
  CHECK_THROWS_AS(softmax_rows_backward(dS, P, other_rows), InvalidValue);
  const auto fewer = SparseMatrix<double>::from_csr(2, 3, {0, 1, 2}, {0, 1}, {1, 2}, test::device());
  CHECK_THROWS_AS(softmax_rows_backward(dS, P, fewer), InvalidValue);
  SparseMatrix<double> bigger(2, 4, test::device());
  CHECK_THROWS_AS(softmax_rows_backward(dS, P, bigger), DimensionMismatch);
}
