// User-defined semirings on the GPU through <geblas/cuda.cuh> (deprecated in favour of
// run-time semirings, still supported): the product, with transposes, accumulators and
// both layouts of B, against a plain loop over the host CSR written here (independent of
// src/ and of the header's kernel), every entry of C checked after C was poisoned.
#include <geblas/cuda.cuh>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "support/catch.hpp"

namespace {

using namespace geblas;

// Widest path: add = max (identity 0), mul = min.
struct Widest {
  using value_type = double;
  static GEBLAS_HD double identity() { return 0.0; }
  static GEBLAS_HD double add(double a, double b) { return a > b ? a : b; }
  static GEBLAS_HD double mul(double a, double b) { return a < b ? a : b; }
};

// A plus_times written by hand (not the built-in), float.
struct MyPlusTimes {
  using value_type = float;
  static GEBLAS_HD float identity() { return 0.0f; }
  static GEBLAS_HD float add(float a, float b) { return a + b; }
  static GEBLAS_HD float mul(float a, float b) { return a * b; }
};

// Integer (max, b + 1) that never reads A's values: one more than the largest B value
// among a row's neighbours (a hop count).
struct MaxHop {
  using value_type = std::int64_t;
  static constexpr bool reads_a = false;
  static GEBLAS_HD std::int64_t identity() { return INT64_MIN; }
  static GEBLAS_HD std::int64_t add(std::int64_t a, std::int64_t b) { return a > b ? a : b; }
  static GEBLAS_HD std::int64_t mul(std::int64_t, std::int64_t b) { return b + 1; }
};

// Random pattern with empty rows and, when `heavy`, one row holding about half the entries.
template <class T>
SparseMatrix<T> random_matrix(Index rows, Index cols, Index per_row, bool heavy, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Tuple<T>> t;
  for (Index i = 0; i < rows; ++i) {
    if (i % 5 == 3) continue;  // empty rows
    const Index count = heavy && i == rows / 2 ? cols : static_cast<Index>(rng() % static_cast<std::uint64_t>(per_row + 1));
    for (Index k = 0; k < count; ++k) {
      const Index j = heavy && i == rows / 2 ? k : static_cast<Index>(rng() % static_cast<std::uint64_t>(cols));
      t.push_back({i, j, static_cast<T>(1 + rng() % 9)});
    }
  }
  return SparseMatrix<T>::from_tuples(rows, cols, t, Duplicates{binop::max<T>{}});
}

// geblas::cuda_mxm with a user-defined semiring type, its deprecation warning silenced
// here only: this test keeps the deprecated path working for the code that still uses
// it, and the build is otherwise warning-free. Every call of the tests goes through here.
template <class T, class S>
void user_cuda_mxm(DenseMatrix<T>& C, const SparseMatrix<T>& A, const DenseMatrix<T>& B, S semiring,
                   const Options& options = {}) {
#pragma nv_diagnostic push
#pragma nv_diag_suppress 1444  // nvcc's front end: "declared deprecated"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // the host compiler
  cuda_mxm(C, A, B, semiring, options);
#pragma GCC diagnostic pop
#pragma nv_diagnostic pop
}

template <class T>
std::vector<T> random_values(Index count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(static_cast<std::size_t>(count));
  for (auto& x : v) x = static_cast<T>(1 + rng() % 13);
  return v;
}

// C = A (+).(x) B by the definition, over the host copies; B row-major (k x n).
template <class S, class T>
std::vector<T> reference(const SparseMatrix<T>& A, const std::vector<T>& B, Index n) {
  const auto tuples = A.to(Device::cpu()).extract_tuples();
  std::vector<T> C(static_cast<std::size_t>(A.nrows() * n), S::identity());
  // Entries in row order, columns ascending: the order the kernel meets them.
  for (const auto& e : tuples)
    for (Index j = 0; j < n; ++j) {
      T& c = C[static_cast<std::size_t>(e.row * n + j)];
      c = S::add(c, S::mul(e.value, B[static_cast<std::size_t>(e.col * n + j)]));
    }
  return C;
}

template <class T>
void check_all(const std::vector<T>& got, const std::vector<T>& want, double rel, const std::string& what) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  std::string first;
  for (std::size_t k = 0; k < got.size(); ++k) {
    const double g = static_cast<double>(got[k]), w = static_cast<double>(want[k]);
    const bool ok = rel == 0 ? got[k] == want[k] : std::abs(g - w) <= rel * std::max(1.0, std::abs(w));
    if (!ok && bad++ == 0) first = "entry " + std::to_string(k) + ": got " + std::to_string(g) + " want " + std::to_string(w);
  }
  INFO(what);
  INFO(first);
  CHECK(bad == 0);
}

template <class S>
void run_case(Index rows, Index cols, Index n, bool heavy, Layout layout, std::uint64_t seed, double rel) {
  using T = typename S::value_type;
  const Device gpu = Device::cuda(0);
  const auto A = random_matrix<T>(rows, cols, 6, heavy, seed);
  const auto b = random_values<T>(cols * n, seed + 1);
  const auto want = reference<S>(A, b, n);
  std::vector<T> b_col(b.size());
  for (Index k = 0; k < cols; ++k)
    for (Index j = 0; j < n; ++j) b_col[static_cast<std::size_t>(j * cols + k)] = b[static_cast<std::size_t>(k * n + j)];
  const auto B = layout == Layout::col_major ? DenseMatrix<T>::from_col_major(cols, n, b_col, gpu)
                                             : DenseMatrix<T>::from_row_major(cols, n, b, gpu);
  // Poisoned C: every entry must be written.
  auto C = DenseMatrix<T>::from_row_major(rows, n, std::vector<T>(static_cast<std::size_t>(rows * n), T(77)), gpu);
  user_cuda_mxm(C, A.to(gpu), B, S{});
  check_all(C.to_row_major(), want, rel,
            "rows " + std::to_string(rows) + " cols " + std::to_string(cols) + " N " + std::to_string(n) +
                (heavy ? " heavy row" : "") + (layout == Layout::col_major ? " B col-major" : "") + " seed " +
                std::to_string(seed));
}

}  // namespace

TEST_CASE("user-defined semirings on the GPU match the definition", "[user][gpu]") {
  std::uint64_t seed = 900;
  for (Index n : {1, 7, 31, 32, 33, 64, 100}) {
    for (bool heavy : {false, true}) {
      for (Layout layout : {Layout::row_major, Layout::col_major}) {
        run_case<Widest>(57, 40, n, heavy, layout, ++seed, 0);
        run_case<MyPlusTimes>(61, 45, n, heavy, layout, ++seed, 1e-5);
        run_case<MaxHop>(50, 50, n, heavy, layout, ++seed, 0);
      }
    }
  }
}

TEST_CASE("user-defined semirings on the GPU: transpose, accumulator, empty shapes", "[user][gpu]") {
  const Device gpu = Device::cuda(0);
  const auto A = random_matrix<double>(30, 44, 5, true, 71);
  const auto b = random_values<double>(30 * 9, 72);
  // A' (max.min) B with A' formed on the host, against the transposed product.
  const auto At_host = [&] {
    std::vector<Tuple<double>> t;
    for (const auto& e : A.extract_tuples()) t.push_back({e.col, e.row, e.value});
    return SparseMatrix<double>::from_tuples(44, 30, t);
  }();
  const auto want = reference<Widest>(At_host, b, 9);
  auto B = DenseMatrix<double>::from_row_major(30, 9, b, gpu);
  DenseMatrix<double> C(44, 9, gpu);
  user_cuda_mxm(C, A.to(gpu), B, Widest{}, {.transpose_a = true});
  check_all(C.to_row_major(), want, 0, "transpose_a");

  // C = max(C, A' B): the accumulator applied after the user product.
  std::vector<double> old(44 * 9);
  for (std::size_t k = 0; k < old.size(); ++k) old[k] = static_cast<double>(k % 11);
  auto C2 = DenseMatrix<double>::from_row_major(44, 9, old, gpu);
  user_cuda_mxm(C2, A.to(gpu), B, Widest{}, {.accum = binop::max<double>{}, .transpose_a = true});
  std::vector<double> want2 = want;
  for (std::size_t k = 0; k < want2.size(); ++k) want2[k] = std::max(want2[k], old[k]);
  check_all(C2.to_row_major(), want2, 0, "accum max");

  // Zero rows, zero columns of B.
  DenseMatrix<double> E(0, 4, gpu);
  user_cuda_mxm(E, SparseMatrix<double>(0, 30, gpu), DenseMatrix<double>(30, 4, gpu), Widest{});
  DenseMatrix<double> Z(30, 0, gpu);
  user_cuda_mxm(Z, A.to(gpu), DenseMatrix<double>(44, 0, gpu), Widest{});
  CHECK(Z.ncols() == 0);
}

TEST_CASE("user-defined semirings on the GPU: forms other than sparse x dense are NotImplemented", "[user][gpu]") {
  const Device gpu = Device::cuda(0);
  const auto A = random_matrix<double>(10, 10, 3, false, 5).to(gpu);
  SparseMatrix<double> C(10, 10, gpu);
  CHECK_THROWS_AS(mxm(C, A, A, Widest{}), NotImplemented);
}

TEST_CASE("geblas::mxm means the same with <geblas/cuda.cuh> included: a user semiring on the GPU is NotImplemented",
          "[user][gpu]") {
  // Only geblas::cuda_mxm brings the user kernel; geblas::mxm must not change with an
  // include (the old macro switch made it differ between translation units).
  const Device gpu = Device::cuda(0);
  const auto A = random_matrix<double>(10, 10, 3, false, 5).to(gpu);
  const auto B = DenseMatrix<double>::from_row_major(10, 2, std::vector<double>(20, 1.0), gpu);
  DenseMatrix<double> C(10, 2, gpu);
  try {
    mxm(C, A, B, Widest{});
    FAIL("geblas::mxm ran a user-defined semiring on the GPU");
  } catch (const NotImplemented& e) {
    CHECK(std::string(e.what()).find("geblas::jit::semiring") != std::string::npos);  // the replacement
    CHECK(std::string(e.what()).find("geblas::cuda_mxm") != std::string::npos);
  }
  // Built-in semirings pass through geblas::cuda_mxm to the library's kernels (not
  // deprecated: no warning to silence here).
  cuda_mxm(C, A, B, semiring::plus_times<double>{});
  CHECK(last_dispatch().backend == "cuda");
}
