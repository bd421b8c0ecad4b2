// mxm(sparse x dense) on the CPU against the Eigen reference: every built-in semiring
// and type, shapes with empty and heavy rows, N across the off-by-one sizes, both
// layouts, transposes, masks and accumulators. Outputs are poisoned first.
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/catch.hpp"
#include "support/compare.hpp"
#include "support/random.hpp"

using namespace geblas;
using geblas::test::Shape;

namespace {

const std::vector<std::string> semiring_names = {"plus_times", "max_times", "min_plus",   "max_plus",
                                                 "min_times",  "max_min",   "min_max",    "plus_pair",
                                                 "min_second", "plus_second"};

template <class T>
void check_case(const std::string& name, Index m, Index k, Index n, Shape shape, std::uint64_t seed,
                Layout layout) {
  const auto As = test::random_sparse<T>(m, k, 0.08, shape, seed);
  const ref::Dense<T> Bd = test::random_dense<T>(k, n, seed + 1);
  const auto want = ref::spmm<T>(As.eigen(), Bd, ref::semiring<T>(name));
  SparseMatrix<T> A = As.geblas();
  DenseMatrix<T> B = test::to_geblas(Bd, layout);
  DenseMatrix<T> C = DenseMatrix<T>::constant(m, n, test::poison<T>(), Device::cpu(), layout);
  const SemiringId id = semiring_from_string(name.c_str());
  visit_semiring<T>(id, [&]<class S>() { mxm(C, A, B, S{}); });
  INFO(name << " " << type_traits<T>::name << " m=" << m << " k=" << k << " n=" << n << " shape="
            << test::to_string(shape) << " seed=" << seed << " layout=" << (layout == Layout::row_major ? "row" : "col"));
  CHECK(test::compare_dense(C, want) == "");
}

// (max, +) on doubles written by hand, without an id: runs through the templates.
struct MyMaxPlus {
  using value_type = double;
  static double identity() { return -1e300; }
  static double add(double a, double b) { return a > b ? a : b; }
  static double mul(double a, double b) { return a + b; }
};

}  // namespace

TEMPLATE_TEST_CASE("mxm sparse x dense matches the reference", "[mxm][cpu]", float, double, std::int32_t,
                   std::int64_t) {
  std::uint64_t seed = 1000;
  for (const auto& name : semiring_names)
    for (Shape shape : {Shape::uniform, Shape::empty_rows, Shape::heavy_row, Shape::empty})
      for (Index n : {1, 5, 31, 32, 33, 64, 65, 128, 257})
        check_case<TestType>(name, 37, 41, n, shape, ++seed, (seed % 2) ? Layout::row_major : Layout::col_major);
}

TEST_CASE("mxm sparse x dense with an accumulator keeps rows without entries", "[mxm][cpu]") {
  const auto As = test::random_sparse<double>(50, 30, 0.1, Shape::empty_rows, 7);
  const ref::Dense<double> Bd = test::random_dense<double>(30, 16, 8);
  const ref::Dense<double> C0 = test::random_dense<double>(50, 16, 9);
  for (std::string name : {"plus_times", "min_plus"}) {
    auto s = ref::semiring<double>(name);
    ref::Dense<double> T = ref::spmm<double>(As.eigen(), Bd, s);
    ref::Dense<double> want = C0;
    auto E = As.eigen();
    for (Index i = 0; i < 50; ++i)
      if (E.outerIndexPtr()[i + 1] > E.outerIndexPtr()[i])
        for (Index j = 0; j < 16; ++j) want(i, j) = s.add(C0(i, j), T(i, j));
    auto A = As.geblas();
    auto B = test::to_geblas(Bd);
    // fused path (accum = the semiring's add) and the general path (accum = plus on min_plus)
    DenseMatrix<double> C = test::to_geblas(C0);
    if (name == "plus_times") mxm(C, A, B, semiring::plus_times<double>{}, {.accum = binop::plus<double>{}});
    else mxm(C, A, B, semiring::min_plus<double>{}, {.accum = binop::min<double>{}});
    CHECK(test::compare_dense(C, want, 1e-12) == "");
  }
}

TEST_CASE("mxm sparse x dense honours masks, complement and replace", "[mxm][cpu]") {
  const auto As = test::random_sparse<float>(40, 25, 0.1, Shape::empty_rows, 21);
  const ref::Dense<float> Bd = test::random_dense<float>(25, 9, 22);
  const ref::Dense<float> C0 = test::random_dense<float>(40, 9, 23);
  const auto Ms = test::random_sparse<float>(40, 9, 0.3, Shape::uniform, 24);
  const ref::Dense<float> T = ref::spmm<float>(As.eigen(), Bd, ref::semiring<float>("plus_times"));
  const auto E = As.eigen();
  const auto ME = Ms.eigen();
  for (bool structural : {false, true})
    for (bool complement : {false, true})
      for (bool replace : {false, true}) {
        ref::Dense<float> want = C0;
        for (Index i = 0; i < 40; ++i)
          for (Index j = 0; j < 9; ++j) {
            const bool present_in_mask = ME.coeff(i, j) != 0 || (structural && ME.isCompressed() && false);
            bool allowed = false;
            for (ref::Sparse<float>::InnerIterator it(ME, i); it; ++it)
              if (it.col() == j) allowed = structural || it.value() != 0;
            (void)present_in_mask;
            if (complement) allowed = !allowed;
            const bool row_has = E.outerIndexPtr()[i + 1] > E.outerIndexPtr()[i];
            if (allowed) want(i, j) = row_has ? T(i, j) : 0.0f;
            else if (replace) want(i, j) = 0.0f;
          }
        auto A = As.geblas();
        auto B = test::to_geblas(Bd);
        auto M = Ms.geblas();
        DenseMatrix<float> C = test::to_geblas(C0);
        Mask mask = structural ? Mask::structure(M) : Mask(M);
        if (complement) mask = mask.complement();
        mxm(C, A, B, semiring::plus_times<float>{}, {.mask = mask, .replace = replace});
        INFO("structural=" << structural << " complement=" << complement << " replace=" << replace);
        CHECK(test::compare_dense(C, want) == "");
      }
}

TEST_CASE("mxm sparse x dense with transposed operands", "[mxm][cpu]") {
  const auto As = test::random_sparse<double>(23, 40, 0.1, Shape::heavy_row, 31);
  const ref::Dense<double> Bd = test::random_dense<double>(17, 23, 32);  // B' is 23 x 17
  ref::Sparse<double> At = As.eigen().transpose();
  const ref::Dense<double> Bt = Bd.transpose();
  const auto want = ref::spmm<double>(At, Bt, ref::semiring<double>("max_plus"));
  auto A = As.geblas();
  auto B = test::to_geblas(Bd);
  DenseMatrix<double> C(40, 17);
  mxm(C, A, B, semiring::max_plus<double>{}, {.transpose_a = true, .transpose_b = true});
  CHECK(test::compare_dense(C, want) == "");
}

TEST_CASE("mxm sparse x dense rejects bad operands with the right error", "[mxm][cpu][errors]") {
  SparseMatrix<float> A(4, 5);
  DenseMatrix<float> B(6, 3), C(4, 3);
  CHECK_THROWS_AS(mxm(C, A, B, semiring::plus_times<float>{}), DimensionMismatch);
  DenseMatrix<float> B2(5, 3), C2(5, 3);
  CHECK_THROWS_AS(mxm(C2, A, B2, semiring::plus_times<float>{}), DimensionMismatch);
  DenseMatrix<float> C3(4, 3);
  CHECK_THROWS_AS(mxm(C3, A, B2, semiring::plus_times<float>{}, {.variant = "no_such_kernel"}), InvalidValue);
  SparseMatrix<bool> Ab(4, 5);
  DenseMatrix<bool> Bb(5, 3), Cb(4, 3);
  CHECK_THROWS_AS(mxm(Cb, Ab, Bb, semiring::plus_times<bool>{}), DomainMismatch);
  mxm(Cb, Ab, Bb, semiring::lor_land<bool>{});
  DenseMatrix<float> M(3, 3);
  CHECK_THROWS_AS(mxm(C3, A, B2, semiring::plus_times<float>{}, {.mask = M}), DimensionMismatch);
}

TEST_CASE("mxm sparse x dense with a user-defined semiring", "[mxm][cpu]") {
  const auto As = test::random_sparse<double>(30, 20, 0.15, Shape::empty_rows, 41);
  const ref::Dense<double> Bd = test::random_dense<double>(20, 7, 42);
  auto s = ref::semiring<double>("max_plus");
  s.identity = -1e300;
  const auto want = ref::spmm<double>(As.eigen(), Bd, s);
  auto A = As.geblas();
  auto B = test::to_geblas(Bd);
  DenseMatrix<double> C = DenseMatrix<double>::constant(30, 7, test::poison<double>());
  mxm(C, A, B, MyMaxPlus{});
  CHECK(test::compare_dense(C, want) == "");
}
