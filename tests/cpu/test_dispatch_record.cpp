// The dispatch record names the kernel that really ran, written by the CPU backend
// itself: each mxm form, chosen and forced, against a plain triple-loop product of the
// same operands (so a record that is right over a wrong result still fails).
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

constexpr Index n = 4;
// A and B as dense arrays (0 = no entry; every stored value is nonzero).
const std::vector<double> a_dense = {1, 2, 0, 0, 0, 0, 3, 0, 4, 0, 0, 5, 0, 0, 0, 0};
const std::vector<double> b_dense = {0, 5, 0, 0, 1, 6, 0, 0, 0, 0, 7, 2, 0, 0, 0, 3};

SparseMatrix<double> sparse_of(const std::vector<double>& d) {
  std::vector<Tuple<double>> t;
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j)
      if (d[i * n + j] != 0) t.push_back({i, j, d[i * n + j]});
  return SparseMatrix<double>::from_tuples(n, n, t);
}

// The plus_times product and its pattern (an entry where some A(i, k) B(k, j) exists).
struct Product {
  std::vector<double> value = std::vector<double>(n * n, 0.0);
  std::vector<bool> present = std::vector<bool>(n * n, false);
};
Product oracle() {
  Product p;
  for (Index i = 0; i < n; ++i)
    for (Index k = 0; k < n; ++k)
      for (Index j = 0; j < n; ++j)
        if (a_dense[i * n + k] != 0 && b_dense[k * n + j] != 0) {
          p.value[i * n + j] += a_dense[i * n + k] * b_dense[k * n + j];
          p.present[i * n + j] = true;
        }
  return p;
}

void check_sparse(const SparseMatrix<double>& C) {
  const Product want = oracle();
  std::vector<double> got(n * n, 0.0);
  std::vector<bool> has(n * n, false);
  for (const auto& t : C.extract_tuples()) {
    got[t.row * n + t.col] = t.value;
    has[t.row * n + t.col] = true;
  }
  for (Index e = 0; e < n * n; ++e) {
    INFO("entry " << e / n << "," << e % n);
    CHECK(has[e] == want.present[e]);
    CHECK(got[e] == want.value[e]);
  }
}

void check_dense(const DenseMatrix<double>& C) {
  const Product want = oracle();
  const std::vector<double> got = C.to_row_major();
  for (Index e = 0; e < n * n; ++e) {
    INFO("entry " << e / n << "," << e % n);
    CHECK(got[e] == want.value[e]);  // plus_times: an entry without terms is 0
  }
}

void check_record(const char* operation, const char* variant) {
  const DispatchRecord r = last_dispatch();
  CHECK(r.operation == operation);
  CHECK(r.backend == "cpu");
  CHECK(r.variant == variant);
}

}  // namespace

TEST_CASE("the CPU backend records the mxm variant it ran, chosen or forced", "[dispatch][cpu]") {
  const auto A = sparse_of(a_dense), B = sparse_of(b_dense);
  const auto Ad = DenseMatrix<double>::from_row_major(n, n, a_dense);
  const auto Bd = DenseMatrix<double>::from_row_major(n, n, b_dense);
  const semiring::plus_times<double> s{};
  for (const char* forced : {"", "gustavson"}) {
    INFO("forced '" << forced << "'");
    SparseMatrix<double> C(n, n);
    mxm(C, A, B, s, {.variant = forced});
    check_record("mxm(sparse x sparse)", "gustavson");
    check_sparse(C);
  }
  for (const char* forced : {"", "row_split"}) {
    INFO("forced '" << forced << "'");
    DenseMatrix<double> C(n, n);
    mxm(C, A, Bd, s, {.variant = forced});
    check_record("mxm(sparse x dense)", "row_split");
    check_dense(C);
  }
  DenseMatrix<double> C1(n, n), C2(n, n);
  mxm(C1, Ad, B, s);
  check_record("mxm(dense x sparse)", "row_scatter");
  check_dense(C1);
  mxm(C2, Ad, Bd, s);
  check_record("mxm(dense x dense)", "dense");
  check_dense(C2);
}

TEST_CASE("a sparse x sparse variant the CPU backend lacks is InvalidValue naming the ones it has", "[dispatch][cpu]") {
  const auto A = sparse_of(a_dense), B = sparse_of(b_dense);
  SparseMatrix<double> C(n, n);
  for (const char* forced : {"masked_dot", "crc", "hash+three_pass"}) {
    try {
      mxm(C, A, B, semiring::plus_times<double>{}, {.variant = forced});
      FAIL("no exception for variant " << forced);
    } catch (const InvalidValue& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find(forced) != std::string::npos);
      CHECK(what.find("gustavson") != std::string::npos);
    }
  }
}
