// The max / min SpMM with its argument (geblas/detail/spmm_arg.hpp) on the GPU against
// loops over the tuples: every value and every argument, with many ties (small integer
// values), empty rows, unit and general values, widths that take the scalar and the
// 16-byte paths, rows long enough to be cut into pieces (ties and NaNs across pieces),
// and a caller's stream. Its backward scatter against a loop, with and without A's
// values. Bad operands raise the named error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_runtime.h>

#include "geblas/detail/spmm_arg.hpp"
#include "geblas/geblas.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

struct Case {
  Index m, k, f;
  bool unit;
  std::uint64_t seed;
  double nan_share = 0;    // the share of X's elements that are NaN
  bool nan_first = false;  // every row's first entry in column 0, and X(0, :) NaN
};

struct Data {
  std::vector<std::tuple<Index, Index, float>> entries;  // sorted by (row, column)
  std::vector<float> X;                                  // k x f, row-major
};

Data make(const Case& c) {
  Data d;
  std::mt19937_64 rng(c.seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> aval(-2, 3), xval(-2, 2);  // few values: many ties
  for (Index i = 0; i < c.m; ++i) {
    if (i % 7 == 3) continue;                         // empty rows
    const double density = i % 11 == 0 ? 0.6 : 0.05;  // a few long rows
    for (Index j = 0; j < c.k; ++j)
      if (u(rng) < density || (c.nan_first && j == 0)) {
        int a = c.unit ? 1 : aval(rng);
        if (a == 0) a = 1;
        d.entries.emplace_back(i, j, static_cast<float>(a));
      }
  }
  d.X.resize(static_cast<std::size_t>(c.k * c.f));
  for (float& x : d.X)
    x = u(rng) < c.nan_share ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(xval(rng));
  if (c.nan_first) std::fill(d.X.begin(), d.X.begin() + c.f, std::numeric_limits<float>::quiet_NaN());
  return d;
}

// The first best term of each row in column order: the documented tie rule.
void reference(const Case& c, const Data& d, bool max, std::vector<float>& Y, std::vector<int>& arg) {
  Y.assign(static_cast<std::size_t>(c.m * c.f), 0.0f);
  arg.assign(static_cast<std::size_t>(c.m * c.f), -1);
  for (const auto& [i, j, a] : d.entries)
    for (Index f = 0; f < c.f; ++f) {
      const auto o = static_cast<std::size_t>(i * c.f + f);
      const float t = a * d.X[static_cast<std::size_t>(j * c.f + f)];
      if (arg[o] < 0 || (max ? t > Y[o] : t < Y[o])) {
        Y[o] = t;
        arg[o] = static_cast<int>(j);
      }
    }
}

void run_case(const Case& c, bool max, void* stream) {
  const Device gpu = Device::cuda(0);
  const Data d = make(c);
  std::vector<Index> rows, cols;
  std::vector<float> vals;
  for (const auto& [i, j, a] : d.entries) {
    rows.push_back(i);
    cols.push_back(j);
    vals.push_back(a);
  }
  std::vector<float> want_y;
  std::vector<int> want_arg;
  reference(c, d, max, want_y, want_arg);

  std::vector<float> got_y;
  std::vector<int> got_arg;
  {
    std::optional<cuda::StreamGuard> on;
    if (stream) on.emplace(gpu, stream);
    const auto A = SparseMatrix<float>::from_tuples(c.m, c.k, rows, cols, vals, Duplicates::error(), gpu);
    const auto X = DenseMatrix<float>::from_row_major(c.k, c.f, d.X, gpu);
    // Outputs start as garbage-like values, so that an unwritten element shows.
    auto Y = DenseMatrix<float>::constant(c.m, c.f, 12345.0f, gpu);
    auto arg = DenseMatrix<std::int32_t>::constant(c.m, c.f, 777, gpu);
    detail::cuda_spmm_arg_extreme(A.storage(), X.storage(), Y.storage(), arg.storage(), max);
    got_y = Y.to_row_major();
    got_arg = arg.to_row_major();
  }
  std::size_t bad = 0, first = 0;
  auto same = [](float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  for (std::size_t o = 0; o < want_y.size(); ++o)
    if (!same(got_y[o], want_y[o]) || got_arg[o] != want_arg[o])
      if (bad++ == 0) first = o;
  INFO((max ? "max" : "min") << " m=" << c.m << " k=" << c.k << " F=" << c.f << (c.unit ? " unit" : "") << ": " << bad
                             << " of " << want_y.size() << " differ; first at row " << first / c.f << " col "
                             << first % c.f << ": got (" << (bad ? got_y[first] : 0) << ", "
                             << (bad ? got_arg[first] : 0) << "), want (" << (bad ? want_y[first] : 0) << ", "
                             << (bad ? want_arg[first] : 0) << ")");
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("spmm with argument: values and arguments, ties to the smallest column", "[spmm_arg][sanitize]") {
  for (const Index f : {1, 3, 4, 32, 33, 36, 128, 130})
    for (const bool unit : {true, false})
      for (const bool max : {true, false}) run_case({97, 83, f, unit, 7 + static_cast<std::uint64_t>(f)}, max, nullptr);
}

TEST_CASE("spmm with argument: rows cut into pieces, ties and NaNs across pieces", "[spmm_arg][sanitize]") {
  // Rows i % 11 == 0 hold about 0.6 k entries: 2-4 pieces at k = 1500 (a NaN of a later
  // piece must not win over the row's earlier terms; a NaN first term of the row must).
  for (const Index f : {4, 16, 33, 64})  // 8, 4, 1 and 2 entry slots per warp
    for (const bool max : {true, false}) {
      run_case({60, 1500, f, false, 41 + static_cast<std::uint64_t>(f)}, max, nullptr);
      run_case({60, 1500, f, true, 43 + static_cast<std::uint64_t>(f), 0.05}, max, nullptr);
    }
  // Every row's first entry in column 0, and X(0, :) NaN: each long row starts with a NaN.
  for (const Index f : {8, 32})
    for (const bool max : {true, false}) run_case({30, 1200, f, true, 5, 0.02, true}, max, nullptr);
}

TEST_CASE("spmm with argument: larger rows and widths, on a caller's stream", "[spmm_arg]") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  for (const Index f : {64, 257, 512})
    for (const bool max : {true, false}) run_case({3000, 2500, f, true, 99}, max, s);
  run_case({3000, 2500, 64, false, 98}, true, s);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
}

TEST_CASE("spmm with argument: the backward scatter adds each gradient at its argument", "[spmm_arg][sanitize]") {
  const Device gpu = Device::cuda(0);
  for (const Index f : {1, 5, 64}) {
    const Index m = 300, k = 120;
    std::mt19937_64 rng(17 + static_cast<std::uint64_t>(f));
    std::uniform_int_distribution<int> who(-1, static_cast<int>(k) - 1), g(-3, 3);
    std::vector<std::int32_t> arg(static_cast<std::size_t>(m * f));
    std::vector<float> grad(arg.size());
    for (std::size_t o = 0; o < arg.size(); ++o) {
      arg[o] = who(rng);
      grad[o] = static_cast<float>(g(rng));  // small integers: every order of the adds is exact
    }
    std::vector<float> want(static_cast<std::size_t>(k * f), 0.0f);
    for (std::size_t o = 0; o < arg.size(); ++o)
      if (arg[o] >= 0) want[static_cast<std::size_t>(arg[o]) * f + o % f] += grad[o];
    const auto A = DenseMatrix<std::int32_t>::from_row_major(m, f, arg, gpu);
    const auto G = DenseMatrix<float>::from_row_major(m, f, grad, gpu);
    auto dX = DenseMatrix<float>::constant(k, f, 12345.0f, gpu);  // the scatter zeroes it first
    detail::cuda_spmm_arg_scatter(A.storage(), G.storage(), dX.storage());
    CHECK(dX.to_row_major() == want);
  }
  // With A's values: each gradient times A(i, arg(i, f)), found in row i.
  for (const Index f : {3, 32}) {
    const Index m = 200, k = 90;
    const Data d = make({m, k, f, false, 23 + static_cast<std::uint64_t>(f)});
    std::vector<std::vector<std::pair<int, float>>> row(static_cast<std::size_t>(m));
    std::vector<Index> rows, cols;
    std::vector<float> vals;
    for (const auto& [i, j, a] : d.entries) {
      row[static_cast<std::size_t>(i)].emplace_back(static_cast<int>(j), a);
      rows.push_back(i);
      cols.push_back(j);
      vals.push_back(a);
    }
    std::mt19937_64 rng(29);
    std::vector<std::int32_t> arg(static_cast<std::size_t>(m * f), -1);
    std::vector<float> grad(arg.size()), want(static_cast<std::size_t>(k * f), 0.0f);
    for (Index i = 0; i < m; ++i)
      for (Index c = 0; c < f; ++c) {
        const auto o = static_cast<std::size_t>(i * f + c);
        grad[o] = static_cast<float>(static_cast<int>(rng() % 7) - 3);
        const auto& r = row[static_cast<std::size_t>(i)];
        if (r.empty()) continue;  // arg -1
        const auto& [j, a] = r[rng() % r.size()];
        arg[o] = j;
        want[static_cast<std::size_t>(j * f + c)] += grad[o] * a;
      }
    const auto A = SparseMatrix<float>::from_tuples(m, k, rows, cols, vals, Duplicates::error(), gpu);
    const auto Arg = DenseMatrix<std::int32_t>::from_row_major(m, f, arg, gpu);
    const auto G = DenseMatrix<float>::from_row_major(m, f, grad, gpu);
    auto dX = DenseMatrix<float>::constant(k, f, 12345.0f, gpu);
    detail::cuda_spmm_arg_scatter(Arg.storage(), G.storage(), dX.storage(), &A.storage());
    CHECK(dX.to_row_major() == want);
    auto dX_short = DenseMatrix<float>(k - 1, f, gpu);
    CHECK_THROWS_AS(detail::cuda_spmm_arg_scatter(Arg.storage(), G.storage(), dX_short.storage(), &A.storage()),
                    DimensionMismatch);
  }
  auto arg = DenseMatrix<std::int32_t>::constant(4, 3, 0, gpu);
  auto grad = DenseMatrix<float>::constant(4, 3, 1.0f, gpu);
  auto dX = DenseMatrix<float>(2, 3, gpu);
  auto grad_wide = DenseMatrix<float>::constant(4, 4, 1.0f, gpu);
  auto grad_cpu = DenseMatrix<float>::constant(4, 3, 1.0f);
  auto arg64 = DenseMatrix<std::int64_t>::constant(4, 3, 0, gpu);
  CHECK_THROWS_AS(detail::cuda_spmm_arg_scatter(arg.storage(), grad_wide.storage(), dX.storage()), DimensionMismatch);
  CHECK_THROWS_AS(detail::cuda_spmm_arg_scatter(arg.storage(), grad_cpu.storage(), dX.storage()), DeviceMismatch);
  CHECK_THROWS_AS(detail::cuda_spmm_arg_scatter(arg64.storage(), grad.storage(), dX.storage()), DomainMismatch);
}

TEST_CASE("spmm with argument: bad operands", "[spmm_arg]") {
  const Device gpu = Device::cuda(0);
  const std::vector<Index> r = {0, 1}, c = {1, 0};
  const std::vector<float> v = {1, 2};
  const auto A = SparseMatrix<float>::from_tuples(2, 2, r, c, v, Duplicates::error(), gpu);
  auto X = DenseMatrix<float>::constant(2, 3, 1.0f, gpu);
  auto Y = DenseMatrix<float>(2, 3, gpu);
  auto arg = DenseMatrix<std::int32_t>(2, 3, gpu);
  auto X_rows = DenseMatrix<float>::constant(3, 3, 1.0f, gpu);
  auto Y_small = DenseMatrix<float>(2, 2, gpu);
  auto arg64 = DenseMatrix<std::int64_t>(2, 3, gpu);
  auto X_cpu = DenseMatrix<float>::constant(2, 3, 1.0f);
  CHECK_THROWS_AS(detail::cuda_spmm_arg_extreme(A.storage(), X_rows.storage(), Y.storage(), arg.storage(), true),
                  DimensionMismatch);
  CHECK_THROWS_AS(detail::cuda_spmm_arg_extreme(A.storage(), X.storage(), Y_small.storage(), arg.storage(), true),
                  DimensionMismatch);
  CHECK_THROWS_AS(detail::cuda_spmm_arg_extreme(A.storage(), X.storage(), Y.storage(), arg64.storage(), true),
                  DomainMismatch);
  CHECK_THROWS_AS(detail::cuda_spmm_arg_extreme(A.storage(), X_cpu.storage(), Y.storage(), arg.storage(), true),
                  DeviceMismatch);
  const auto A_cpu = A.to(Device::cpu());
  CHECK_THROWS_AS(detail::cuda_spmm_arg_extreme(A_cpu.storage(), X_cpu.storage(), Y.storage(), arg.storage(), true),
                  InvalidValue);
}
