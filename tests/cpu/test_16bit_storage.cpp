// half / bfloat16 matrices on the host: every constructor keeps the exact bits it was
// given (checked entry by entry against the inputs), duplicates are rejected or
// combined in float and rounded once, random values are floats rounded once, and the
// operations that do not compute on 16-bit values refuse them with NotImplemented
// naming the type.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

template <class H>
std::vector<H> random_bits(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<H> v(n);
  for (auto& x : v) x = H::from_bits(static_cast<std::uint16_t>(rng()));
  return v;
}

template <class E, class F>
void expect_error(F&& f, const std::vector<std::string>& pieces) {
  try {
    f();
    FAIL("no exception; expected one mentioning " << pieces.front());
  } catch (const E& e) {
    const std::string what = e.what();
    INFO("message: " << what);
    for (const auto& p : pieces) CHECK(what.find(p) != std::string::npos);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("16-bit sparse matrices are built from tuples and CSR with their exact bits",
                   "[16bit][storage][cpu]", half, bfloat16) {
  using H = TestType;
  const std::uint64_t seed = 4242;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const Index m = 37, n = 23;
  // Unique random positions in random order, with random bit patterns (NaNs included).
  std::vector<Index> rows, cols;
  std::vector<std::vector<bool>> taken(m, std::vector<bool>(n));
  for (int k = 0; k < 300; ++k) {
    const Index i = static_cast<Index>(rng() % m), j = static_cast<Index>(rng() % n);
    if (taken[i][j]) continue;
    taken[i][j] = true;
    rows.push_back(i);
    cols.push_back(j);
  }
  const auto vals = random_bits<H>(rows.size(), seed + 1);
  const auto A = SparseMatrix<H>::from_tuples(m, n, rows, cols, vals);
  REQUIRE(A.nvals() == static_cast<Index>(rows.size()));
  // Every tuple is found with its bits.
  std::vector<std::vector<std::int32_t>> where(m, std::vector<std::int32_t>(n, -1));
  for (std::size_t k = 0; k < rows.size(); ++k) where[rows[k]][cols[k]] = static_cast<std::int32_t>(k);
  const auto t = A.extract_tuples();
  for (std::size_t p = 0; p < t.size(); ++p) {
    const std::int32_t k = where[t[p].row][t[p].col];
    REQUIRE(k >= 0);
    CHECK(t[p].value.bits == vals[static_cast<std::size_t>(k)].bits);
    if (p > 0) CHECK((t[p - 1].row < t[p].row || (t[p - 1].row == t[p].row && t[p - 1].col < t[p].col)));
  }
  // The Tuple overload and from_csr give the same matrix.
  std::vector<Tuple<H>> tuples;
  for (std::size_t k = 0; k < rows.size(); ++k) tuples.push_back({rows[k], cols[k], vals[k]});
  const auto B = SparseMatrix<H>::from_tuples(m, n, tuples, Duplicates::error());
  const auto C = SparseMatrix<H>::from_csr(m, n, A.row_offsets(), A.col_indices(), A.values());
  for (const auto* X : {&B, &C}) {
    CHECK(X->row_offsets() == A.row_offsets());
    CHECK(X->col_indices() == A.col_indices());
    const auto xv = X->values(), av = A.values();
    REQUIRE(xv.size() == av.size());
    for (std::size_t k = 0; k < xv.size(); ++k) CHECK(xv[k].bits == av[k].bits);
  }
  // A copy is independent of the original.
  SparseMatrix<H> D = A;
  CHECK(D.values().size() == A.values().size());
}

TEMPLATE_TEST_CASE("16-bit duplicates are rejected, or combined in float and rounded once", "[16bit][storage][cpu]",
                   half, bfloat16) {
  using H = TestType;
  const std::vector<Index> rows = {1, 0, 1, 1}, cols = {2, 0, 2, 2};
  const std::vector<H> vals = {H(1.0f), H(2.0f), H(1.0f / 1024), H(1.0f / 1024)};
  expect_error<InvalidValue>([&] { SparseMatrix<H>::from_tuples(2, 3, rows, cols, vals); }, {"duplicate", "(1, 2)"});
  const auto A = SparseMatrix<H>::from_tuples(2, 3, rows, cols, vals, binop::plus<float>{});
  const auto t = A.extract_tuples();
  REQUIRE(t.size() == 2);
  // 1 + 2^-10 + 2^-10 in float, then one rounding (half keeps 1 + 2^-9 exactly; bfloat16
  // rounds it to 1).
  CHECK(t[1].value.bits == H(1.0f + 2.0f / 1024).bits);
  const auto mx = SparseMatrix<H>::from_tuples(2, 3, rows, cols, vals, binop::max<float>{});
  CHECK(mx.extract_tuples()[1].value.bits == H(1.0f).bits);
}

TEMPLATE_TEST_CASE("16-bit dense matrices keep their bits in both layouts", "[16bit][storage][cpu]", half, bfloat16) {
  using H = TestType;
  const Index m = 5, n = 7;
  const auto vals = random_bits<H>(static_cast<std::size_t>(m * n), 99);
  const auto R = DenseMatrix<H>::from_row_major(m, n, vals);
  const auto C = DenseMatrix<H>::from_col_major(m, n, vals);
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j) {
      CHECK(R.at(i, j).bits == vals[static_cast<std::size_t>(i * n + j)].bits);
      CHECK(C.at(i, j).bits == vals[static_cast<std::size_t>(j * m + i)].bits);
    }
  const auto rr = C.to_row_major();
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j) CHECK(rr[static_cast<std::size_t>(i * n + j)].bits == C.at(i, j).bits);
  const auto K = DenseMatrix<H>::constant(3, 4, H(-2.5f), Device::cpu(), Layout::col_major);
  for (const H& x : K.to_row_major()) CHECK(x.bits == H(-2.5f).bits);
  // random(): a float in [0, 1) rounded once, per entry, the same for a seed.
  const auto X = DenseMatrix<H>::random(9, 11, Device::cpu(), 17);
  const auto Y = DenseMatrix<H>::random(9, 11, Device::cpu(), 17);
  const auto F = DenseMatrix<float>::random(9, 11, Device::cpu(), 17);
  const auto xv = X.to_row_major(), yv = Y.to_row_major();
  const auto fv = F.to_row_major();
  bool varied = false;
  for (std::size_t k = 0; k < xv.size(); ++k) {
    CHECK(xv[k].bits == yv[k].bits);
    CHECK(xv[k].bits == H(fv[k]).bits);
    CHECK(static_cast<float>(xv[k]) >= 0.0f);
    CHECK(static_cast<float>(xv[k]) <= 1.0f);
    varied = varied || xv[k].bits != xv[0].bits;
  }
  CHECK(varied);
}

TEST_CASE("operations that do not compute on 16-bit values refuse them, naming the type", "[16bit][errors][cpu]") {
  const auto A = SparseMatrix<half>::from_tuples(3, 3, std::vector<Tuple<half>>{{0, 1, half(1.0f)}, {2, 2, half(3.0f)}});
  SparseMatrix<half> C(3, 3);
  expect_error<NotImplemented>([&] { ewise_add(C, A, A, binop::plus<half>{}); }, {"float16"});
  expect_error<NotImplemented>([&] { apply(C, A, unop::abs<half>{}); }, {"float16"});
  Vector<half> w(3);
  expect_error<NotImplemented>([&] { reduce(w, A, monoid::plus<half>{}); }, {"float16"});
  const auto Bb = SparseMatrix<bfloat16>::from_tuples(3, 3, std::vector<Tuple<bfloat16>>{{1, 0, bfloat16(2.0f)}});
  SparseMatrix<bfloat16> Cb(3, 3);
  expect_error<NotImplemented>([&] { mxm(Cb, Bb, Bb, semiring::plus_times<bfloat16>{}); }, {"bfloat16"});
  expect_error<NotImplemented>([&] { transpose(Cb, Bb); }, {"bfloat16"});
  // Nothing was written.
  CHECK(C.nvals() == 0);
  CHECK(Cb.nvals() == 0);
}

TEMPLATE_TEST_CASE("16-bit vectors are built, densified and converted with their exact bits", "[16bit][storage][cpu]",
                   half, bfloat16) {
  using H = TestType;
  const auto vals = random_bits<H>(4, 5);
  const std::vector<Index> idx = {7, 2, 9, 0};
  const auto u = Vector<H>::from_tuples(10, idx, vals);
  REQUIRE(u.nvals() == 4);
  const auto t = u.extract_tuples();
  const std::vector<std::size_t> by_index = {3, 1, 0, 2};  // input positions of indices 0, 2, 7, 9
  for (std::size_t p = 0; p < t.size(); ++p) {
    CHECK(t[p].first == idx[by_index[p]]);
    CHECK(t[p].second.bits == vals[by_index[p]].bits);
  }
  const H fill = H(-1.0f);
  const auto d = u.densified(fill).to_std_vector();
  for (Index i = 0; i < 10; ++i) {
    const auto it = std::find(idx.begin(), idx.end(), i);
    CHECK(d[static_cast<std::size_t>(i)].bits ==
          (it == idx.end() ? fill.bits : vals[static_cast<std::size_t>(it - idx.begin())].bits));
  }
  const auto w = Vector<H>::dense(3, H(0.5f)).to_std_vector();
  for (const H& x : w) CHECK(x.bits == H(0.5f).bits);
  // convert keeps the indices and rounds each value once.
  const auto f = Vector<float>::from_tuples(10, idx, std::vector<float>{1.0f / 3, 70000.0f, -1e-9f, 2.0f});
  const auto c = convert<H>(f).extract_tuples();
  const auto fe = f.extract_tuples();
  REQUIRE(c.size() == fe.size());
  for (std::size_t p = 0; p < c.size(); ++p) {
    CHECK(c[p].first == fe[p].first);
    CHECK(c[p].second.bits == H(fe[p].second).bits);
  }
}
