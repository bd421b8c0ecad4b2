// Transposes on the GPU (sparse, dense in both layouts) and the dense write-back with
// masks, accumulators and replace, against the reference of
// tests/reference/operations.hpp and the CPU backend; includes shapes that are not
// multiples of the 32 x 32 tiles, empty matrices, and real graphs when present.
#include <string>
#include <vector>

#include "geblas/io.hpp"
#include "support/catch.hpp"
#include "support/data.hpp"
#include "cuda/gpu_ops_support.hpp"

using namespace geblas;
using geblas::test::MaskCase;
using geblas::test::MaskKind;
using geblas::test::Shape;

TEMPLATE_TEST_CASE("transpose on the GPU", "[transpose][gpu]", float, double, std::int32_t, std::int64_t, bool) {
  using T = TestType;
  std::uint64_t seed = 900;
  for (auto [m, n] : {std::pair<Index, Index>{1, 1}, {70, 45}, {33, 129}, {0, 7}, {300, 2}})
    for (Shape sh : {Shape::uniform, Shape::heavy_row, Shape::empty}) {
      const auto A = test::random_mat<T>(m, n, 0.1, sh, ++seed);
      SparseMatrix<T> Cg(n, m, test::gpu());
      transpose(Cg, test::from_ref(A, test::gpu()));
      INFO("transpose sparse " << m << "x" << n << " " << type_traits<T>::name << " seed=" << seed);
      CHECK(test::compare(test::to_ref(Cg), ref::transpose(A)) == "");
    }
  for (MaskKind mk : test::all_masks)
    for (const auto& acc : test::accum_names)
      for (bool replace : {false, true}) {
        const auto A = test::random_mat<T>(40, 40, 0.15, Shape::uniform, ++seed);
        const auto C0 = test::random_mat<T>(40, 40, 0.15, Shape::uniform, seed + 1);
        const MaskCase mask(mk, 40, 40, false, seed + 2);
        SparseMatrix<T> Cg = test::from_ref(C0, test::gpu()), Cc = test::from_ref(C0);
        test::with_accum<T>(acc, [&](Accum a) {
          transpose(Cg, test::from_ref(A, test::gpu()), {.mask = mask.mask(true), .accum = a, .replace = replace});
          transpose(Cc, test::from_ref(A), {.mask = mask.mask(false), .accum = a, .replace = replace});
        });
        INFO("transpose sparse mask=" << test::to_string(mk) << " accum='" << acc << "' replace=" << replace
                                      << " seed=" << seed);
        CHECK(test::compare(test::to_ref(Cg), ref::write_sparse(C0, ref::transpose(A), mask.fn(),
                                                                test::accum_ref<T>(acc), replace)) == "");
        CHECK(test::compare(test::to_ref(Cg), test::to_ref(Cc)) == "");
      }
  // dense: every layout pair, odd shapes, and the dense write-back with masks
  for (auto [m, n] : {std::pair<Index, Index>{1, 1}, {70, 45}, {33, 129}, {0, 7}, {5, 0}})
    for (Layout la : {Layout::row_major, Layout::col_major})
      for (Layout lc : {Layout::row_major, Layout::col_major}) {
        const ref::Dense<T> A = test::random_dense<T>(m, n, ++seed);
        DenseMatrix<T> Cg = DenseMatrix<T>::constant(n, m, test::poison<T>(), test::gpu(), lc);
        transpose(Cg, test::to_geblas(A, la, test::gpu()));
        const ref::Dense<T> At = A.transpose();
        INFO("transpose dense " << m << "x" << n << " " << type_traits<T>::name << " seed=" << seed);
        CHECK(test::compare_dense(Cg.to(Device::cpu()), At) == "");
      }
  for (MaskKind mk : test::all_masks)
    for (const auto& acc : test::accum_names)
      for (bool replace : {false, true}) {
        const ref::Dense<T> A = test::random_dense<T>(37, 37, ++seed), C0 = test::random_dense<T>(37, 37, seed + 1);
        const MaskCase mask(mk, 37, 37, false, seed + 2);
        DenseMatrix<T> Cg = test::to_geblas(C0, Layout::col_major, test::gpu());
        DenseMatrix<T> Cc = test::to_geblas(C0, Layout::col_major);
        test::with_accum<T>(acc, [&](Accum a) {
          transpose(Cg, test::to_geblas(A, Layout::row_major, test::gpu()),
                    {.mask = mask.mask(true), .accum = a, .replace = replace});
          transpose(Cc, test::to_geblas(A), {.mask = mask.mask(false), .accum = a, .replace = replace});
        });
        const auto allow = mask.fn();
        const auto accum = test::accum_ref<T>(acc);
        ref::Dense<T> want = C0;
        for (Index i = 0; i < 37; ++i)
          for (Index j = 0; j < 37; ++j) {
            if (!allow || allow(i, j)) want(i, j) = accum ? accum(C0(i, j), A(j, i)) : A(j, i);
            else if (replace) want(i, j) = T{};
          }
        INFO("transpose dense mask=" << test::to_string(mk) << " accum='" << acc << "' replace=" << replace
                                     << " seed=" << seed);
        CHECK(test::compare_dense(Cg.to(Device::cpu()), want) == "");
        CHECK(test::compare(Cg.to(Device::cpu()).to_row_major(), Cc.to_row_major()) == "");
      }
}

TEST_CASE("transpose on the GPU: real graphs", "[transpose][gpu]") {
  const auto graphs = test::data_graphs();
  if (graphs.empty()) {
    WARN("no graphs in " << test::data_dir() << ": real-graph transposes not run");
    return;
  }
  int done = 0;
  for (const auto& g : graphs) {
    if (done == 3) break;
    const auto A = io::read_matrix_market<double>(test::data_file(g));
    if (A.nvals() > 3'000'000) continue;
    ++done;
    const auto Ag = A.to(test::gpu());
    SparseMatrix<double> Tg(A.ncols(), A.nrows(), test::gpu()), Tc(A.ncols(), A.nrows());
    transpose(Tg, Ag);
    transpose(Tc, A);
    INFO(g);
    CHECK(Tg.to(Device::cpu()).row_offsets() == Tc.row_offsets());
    CHECK(Tg.to(Device::cpu()).col_indices() == Tc.col_indices());
    CHECK(Tg.to(Device::cpu()).values() == Tc.values());
  }
}
