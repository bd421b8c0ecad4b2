// mxm(sparse x dense) on test::device() against the Eigen references: every built-in semiring
// and type it is built for, N across the off-by-one sizes around the kernel's tiles,
// empty rows and a row holding half the entries, both layouts of B and C, leading
// dimensions wider than the matrix, transposes, masks, accumulators (the fused and the
// general path), a user-defined semiring, and the shared real graphs.
#include <string>
#include <vector>

#include "ops/mxm_driver.hpp"
#include "support/catch.hpp"
#include "support/compare.hpp"
#include "support/data.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

template <class T>
void sweep(Form form, std::uint64_t seed0) {
  std::uint64_t seed = seed0;
  for (const auto& name : semirings_for<T>())
    for (Shape shape : {Shape::uniform, Shape::empty_rows, Shape::heavy_row, Shape::empty})
      for (Index n : n_sweep()) {
        MxmCase c;
        c.form = form;
        c.semiring = name;
        c.n = n;
        c.shape = shape;
        c.seed = ++seed;
        // layouts and padding cycle with the seed, so every combination is met
        c.a_layout = (seed & 1) ? Layout::col_major : Layout::row_major;
        c.b_layout = (seed & 2) ? Layout::col_major : Layout::row_major;
        c.c_layout = (seed & 4) ? Layout::col_major : Layout::row_major;
        c.pad = (seed & 8) ? 3 : 0;
        const std::string e = run_case<T>(c);
        INFO(describe(c));
        CHECK(e == "");
      }
}

template <class T>
void masks_and_accumulators(Form form, const std::string& semiring, const std::string& accum2) {
  std::uint64_t seed = 5000;
  for (MaskKind mk : {MaskKind::none, MaskKind::sparse, MaskKind::dense})
    for (bool structural : {false, true})
      for (bool complement : {false, true})
        for (bool replace : {false, true})
          for (std::string accum : {std::string(), std::string("plus"), accum2}) {
            if (mk == MaskKind::none && (structural || complement)) continue;
            MxmCase c;
            c.form = form;
            c.semiring = semiring;
            c.n = 33;
            c.shape = Shape::empty_rows;
            c.seed = ++seed;
            c.mask = mk;
            c.spec.structural = structural;
            c.spec.complement = complement;
            c.replace = replace;
            c.accum = accum;
            c.c_layout = (seed & 1) ? Layout::col_major : Layout::row_major;
            c.b_layout = (seed & 2) ? Layout::col_major : Layout::row_major;
            const std::string e = run_case<T>(c);
            INFO(describe(c));
            CHECK(e == "");
          }
}

template <class T>
void transposes(Form form) {
  std::uint64_t seed = 7000;
  for (const std::string name : {"plus_times", "min_plus", "max_times"})
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (Index n : {1, 17, 64}) {
          MxmCase c;
          c.form = form;
          c.semiring = name;
          c.m = 29;
          c.k = 23;
          c.n = n;
          c.shape = Shape::heavy_row;
          c.seed = ++seed;
          c.transpose_a = ta;
          c.transpose_b = tb;
          c.b_layout = (seed & 1) ? Layout::col_major : Layout::row_major;
          const std::string e = run_case<T>(c);
          INFO(describe(c));
          CHECK(e == "");
        }
}

template <class T>
void user_defined(Form form) {
  std::uint64_t seed = 9000;
  for (Index n : n_sweep()) {
    MxmCase c;
    c.form = form;
    c.user = true;
    c.n = n;
    c.shape = (n % 2) ? Shape::empty_rows : Shape::heavy_row;
    c.seed = ++seed;
    c.b_layout = (seed & 1) ? Layout::col_major : Layout::row_major;
    c.c_layout = (seed & 2) ? Layout::col_major : Layout::row_major;
    c.pad = (seed & 4) ? 1 : 0;
    c.accum = (seed & 8) ? "min" : "";
    const std::string e = run_case<T>(c);
    INFO(describe(c));
    CHECK(e == "");
  }
}

}  // namespace

TEMPLATE_TEST_CASE("mxm sparse x dense: every semiring, type, N, shape and layout", "[mxm]", bool, std::int32_t,
                   std::int64_t, float, double) {
  sweep<TestType>(Form::sparse_dense, 1000);
}

TEMPLATE_TEST_CASE("mxm sparse x dense: masks, complement, replace, accumulators", "[mxm]", std::int32_t, double) {
  masks_and_accumulators<TestType>(Form::sparse_dense, "plus_times", "min");  // plus: the fused path
  masks_and_accumulators<TestType>(Form::sparse_dense, "min_plus", "min");    // min: fused; plus: general
}

TEST_CASE("mxm sparse x dense: masks and accumulators on bool", "[mxm]") {
  masks_and_accumulators<bool>(Form::sparse_dense, "lor_land", "lor");
}

TEMPLATE_TEST_CASE("mxm sparse x dense: transposed operands", "[mxm]", float, std::int64_t) {
  transposes<TestType>(Form::sparse_dense);
}

TEMPLATE_TEST_CASE("mxm sparse x dense: user-defined semiring", "[mxm]", float, double, std::int32_t) {
  user_defined<TestType>(Form::sparse_dense);
}

TEST_CASE("mxm sparse x dense: larger random matrices over several row ranges", "[mxm]") {
  // big enough that the kernel splits the rows over threads
  std::uint64_t seed = 11000;
  for (const std::string name : {"plus_times", "max_times", "min_plus", "any_second"})
    for (Shape shape : {Shape::uniform, Shape::heavy_row, Shape::empty_rows})
      for (Index n : {16, 65}) {
        MxmCase c;
        c.semiring = name;
        c.m = 700;
        c.k = 300;
        c.n = n;
        c.density = 0.03;
        c.shape = shape;
        c.seed = ++seed;
        const std::string e = run_case<float>(c);
        INFO(describe(c));
        CHECK(e == "");
      }
}

TEST_CASE("mxm sparse x dense: repeated calls into the same C give the same result", "[mxm]") {
  const auto As = random_sparse<double>(300, 200, 0.05, Shape::heavy_row, 77);
  const ref::Dense<double> Bd = random_dense<double>(200, 40, 78);
  const auto want = ref::spmm<double>(As.eigen(), Bd, ref::semiring<double>("max_plus"));
  auto A = As.geblas().to(device());
  auto B = to_geblas(Bd, Layout::row_major, device());
  DenseMatrix<double> C(300, 40, device());
  for (int r = 0; r < 3; ++r) {
    mxm(C, A, B, semiring::max_plus<double>{});
    INFO("call " << r);
    CHECK(compare_dense(C.to(Device::cpu()), want) == "");
  }
}

TEST_CASE("mxm sparse x dense rejects bad operands with the right error", "[mxm][errors]") {
  const Device d = device();
  SparseMatrix<float> A(4, 5, d);
  DenseMatrix<float> B(6, 3, d), C(4, 3, d);
  CHECK_THROWS_AS(mxm(C, A, B, semiring::plus_times<float>{}), DimensionMismatch);
  DenseMatrix<float> B2(5, 3, d), C2(5, 3, d);
  CHECK_THROWS_AS(mxm(C2, A, B2, semiring::plus_times<float>{}), DimensionMismatch);
  DenseMatrix<float> C3(4, 3, d);
  CHECK_THROWS_AS(mxm(C3, A, B2, semiring::plus_times<float>{}, {.variant = "no_such_kernel"}), InvalidValue);
  mxm(C3, A, B2, semiring::plus_times<float>{}, {.variant = "row_split"});
  SparseMatrix<bool> Ab(4, 5, d);
  DenseMatrix<bool> Bb(5, 3, d), Cb(4, 3, d);
  CHECK_THROWS_AS(mxm(Cb, Ab, Bb, semiring::plus_times<bool>{}), DomainMismatch);
  mxm(Cb, Ab, Bb, semiring::lor_land<bool>{});
  DenseMatrix<float> M(3, 3, d);
  CHECK_THROWS_AS(mxm(C3, A, B2, semiring::plus_times<float>{}, {.mask = M}), DimensionMismatch);
}

TEST_CASE("mxm sparse x dense on the shared real graphs", "[mxm][data]") {
  const auto graphs = data_graphs();
  if (graphs.empty()) {
    WARN("no shared graphs in " << data_dir() << " (set GEBLAS_DATA_DIR): real-graph cases skipped");
    return;
  }
  int checked = 0;
  for (const auto& name : graphs) {
    const auto header = io::read_matrix_market_header((data_dir() / name).string());
    if (header.stored_entries > data_entry_limit(200000)) continue;  // keeps the reference loops quick; the bench covers the large ones
    const auto G = io::read_matrix_market<double>((data_dir() / name).string());
    // values 1..3 from the position, so that max and min are not trivial on pattern graphs
    std::vector<Tuple<double>> t = G.extract_tuples();
    std::vector<Eigen::Triplet<double, std::int64_t>> et;
    for (auto& x : t) {
      x.value = double(1 + (x.row * 7 + x.col * 13) % 3);
      et.emplace_back(x.row, x.col, x.value);
    }
    const auto A = SparseMatrix<double>::from_tuples(G.nrows(), G.ncols(), t).to(device());
    ref::Sparse<double> E(G.nrows(), G.ncols());
    E.setFromTriplets(et.begin(), et.end());
    for (Index n : {1, 33}) {
      const ref::Dense<double> Bd = random_dense<double>(G.ncols(), n, 4242 + n);
      const auto B = to_geblas(Bd, Layout::row_major, device());
      for (const std::string s : {"plus_times", "max_times", "min_plus"}) {
        const auto want = ref::spmm<double>(E, Bd, ref::semiring<double>(s));
        DenseMatrix<double> C = DenseMatrix<double>::constant(G.nrows(), n, poison<double>(), device());
        visit_semiring<double>(semiring_from_string(s.c_str()), [&]<class S>() { mxm(C, A, B, S{}); });
        INFO(name << " " << s << " n=" << n << " on " << device().str());
        CHECK(compare_dense(C.to(Device::cpu()), want, 1e-12) == "");
      }
    }
    ++checked;
  }
  INFO("graphs checked: " << checked);
  CHECK(checked > 0);
}
