// mxm(A x B) on test::device() against the Eigen references, for one form of A and B
// chosen at compile time (GEBLAS_TEST_FORM: sparse_sparse, dense_sparse or dense_dense;
// CMake builds one object library per form, so they compile in parallel and fail
// separately, each linked into a cpu and a gpu program): every built-in semiring and type
// it is built for, N across the off-by-one sizes, empty rows and a row holding half the
// entries, operands larger than a thread block, both layouts and padded leading
// dimensions of the dense operands, transposes, masks (value / structural, complemented,
// sparse / dense), accumulators, replace, and a user-defined semiring.
#include <string>

#include "ops/mxm_driver.hpp"
#include "support/catch.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

template <class T>
void check(MxmCase c) {
  c.form = Form::GEBLAS_TEST_FORM;
  const std::string e = run_case<T>(c);
  INFO(describe(c));
  CHECK(e == "");
}

}  // namespace

TEMPLATE_TEST_CASE("mxm " GEBLAS_TEST_FORM_NAME ": every semiring, type, N and shape", "[mxm]", bool, std::int32_t,
                   std::int64_t, float, double) {
  std::uint64_t seed = 2000;
  for (const auto& name : semirings_for<TestType>())
    for (Shape shape : {Shape::uniform, Shape::empty_rows, Shape::heavy_row, Shape::empty})
      for (Index n : n_sweep()) {
        MxmCase c;
        c.semiring = name;
        c.m = 19;
        c.k = 23;
        c.n = n;
        c.shape = shape;
        c.seed = ++seed;
        c.a_layout = (seed & 1) ? Layout::col_major : Layout::row_major;
        c.b_layout = (seed & 2) ? Layout::col_major : Layout::row_major;
        c.c_layout = (seed & 4) ? Layout::col_major : Layout::row_major;
        c.pad = (seed & 8) ? 3 : 0;
        check<TestType>(c);
      }
}

TEMPLATE_TEST_CASE("mxm " GEBLAS_TEST_FORM_NAME ": larger operands, every semiring and mask kind", "[mxm]", bool,
                   std::int32_t, std::int64_t, float, double) {
  std::uint64_t seed = 3000;
  for (const auto& name : semirings_for<TestType>())
    for (Shape shape : {Shape::uniform, Shape::heavy_row, Shape::empty})
      for (MaskKind mk : {MaskKind::none, MaskKind::sparse, MaskKind::dense})
        for (bool complement : {false, true}) {
          // the any_second check covers the product itself, without mask or accumulator
          if ((mk == MaskKind::none || name == "any_second") && (complement || mk != MaskKind::none)) continue;
          MxmCase c;
          c.semiring = name;
          c.m = 45;
          c.k = 60;
          c.n = 50;
          c.shape = shape;
          c.seed = ++seed;
          c.mask = mk;
          c.spec.complement = complement;
          c.b_layout = (seed & 1) ? Layout::col_major : Layout::row_major;
          check<TestType>(c);
        }
}

TEMPLATE_TEST_CASE("mxm " GEBLAS_TEST_FORM_NAME ": masks, complement, replace, accumulators", "[mxm]", std::int32_t,
                   double) {
  std::uint64_t seed = 5000;
  for (const std::string semiring : {"plus_times", "min_plus"})
    for (MaskKind mk : {MaskKind::none, MaskKind::sparse, MaskKind::dense})
      for (bool structural : {false, true})
        for (bool complement : {false, true})
          for (bool replace : {false, true})
            for (const std::string accum : {"", "plus", "min"}) {
              if (mk == MaskKind::none && (structural || complement)) continue;
              MxmCase c;
              c.semiring = semiring;
              c.m = 21;
              c.k = 17;
              c.n = 33;
              c.shape = Shape::empty_rows;
              c.seed = ++seed;
              c.mask = mk;
              c.spec.structural = structural;
              c.spec.complement = complement;
              c.replace = replace;
              c.accum = accum;
              c.c_layout = (seed & 1) ? Layout::col_major : Layout::row_major;
              check<TestType>(c);
            }
}

TEMPLATE_TEST_CASE("mxm " GEBLAS_TEST_FORM_NAME ": transposes and a user-defined semiring", "[mxm]", float,
                   std::int64_t) {
  std::uint64_t seed = 7000;
  for (const std::string name : {"plus_times", "max_times", "any_second"})
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (Index n : {1, 17, 64}) {
          MxmCase c;
          c.semiring = name;
          c.m = 13;
          c.k = 11;
          c.n = n;
          c.shape = Shape::heavy_row;
          c.seed = ++seed;
          c.transpose_a = ta;
          c.transpose_b = tb;
          c.a_layout = (seed & 1) ? Layout::col_major : Layout::row_major;
          check<TestType>(c);
        }
  for (Index n : {1, 5, 33, 64, 129}) {
    MxmCase c;
    c.user = true;
    c.m = 15;
    c.k = 12;
    c.n = n;
    c.shape = Shape::empty_rows;
    c.seed = ++seed;
    c.b_layout = (seed & 1) ? Layout::col_major : Layout::row_major;
    c.accum = (seed & 2) ? "min" : "";
    check<TestType>(c);
  }
}
