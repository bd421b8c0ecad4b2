// select on the GPU against the reference of tests/reference/operations.hpp and the CPU
// backend: every position and value predicate, sparse and dense vectors, masks,
// accumulators, replace, empty objects.
#include <functional>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "cuda/gpu_ops_support.hpp"

using namespace geblas;
using geblas::test::MaskCase;
using geblas::test::MaskKind;
using geblas::test::Shape;

namespace {

// Runs f(predicate object, reference predicate) for every predicate with offset/threshold.
template <class T, class F>
void each_predicate(F&& f) {
  using P = std::function<bool(Index, Index, T)>;
  for (Index k : {Index{-2}, Index{0}, Index{3}}) {
    f(selectop::tril{k}, P([k](Index i, Index j, T) { return j <= i + k; }), "tril");
    f(selectop::triu{k}, P([k](Index i, Index j, T) { return j >= i + k; }), "triu");
    f(selectop::diag{k}, P([k](Index i, Index j, T) { return j == i + k; }), "diag");
    f(selectop::offdiag{k}, P([k](Index i, Index j, T) { return j != i + k; }), "offdiag");
    f(selectop::row_le{k + 20}, P([k](Index i, Index, T) { return i <= k + 20; }), "row_le");
    f(selectop::row_gt{k + 20}, P([k](Index i, Index, T) { return i > k + 20; }), "row_gt");
    f(selectop::col_le{k + 20}, P([k](Index, Index j, T) { return j <= k + 20; }), "col_le");
    f(selectop::col_gt{k + 20}, P([k](Index, Index j, T) { return j > k + 20; }), "col_gt");
  }
  const T y = T(1);
  f(selectop::value_eq<T>{y}, P([y](Index, Index, T x) { return x == y; }), "value_eq");
  f(selectop::value_ne<T>{y}, P([y](Index, Index, T x) { return x != y; }), "value_ne");
  f(selectop::value_lt<T>{y}, P([y](Index, Index, T x) { return x < y; }), "value_lt");
  f(selectop::value_le<T>{y}, P([y](Index, Index, T x) { return x <= y; }), "value_le");
  f(selectop::value_gt<T>{y}, P([y](Index, Index, T x) { return x > y; }), "value_gt");
  f(selectop::value_ge<T>{y}, P([y](Index, Index, T x) { return x >= y; }), "value_ge");
  f(selectop::nonzero{}, P([](Index, Index, T x) { return x != T(0); }), "nonzero");
}

}  // namespace

TEMPLATE_TEST_CASE("select on the GPU", "[select][gpu]", float, double, std::int32_t, std::int64_t, bool) {
  using T = TestType;
  std::uint64_t seed = 600;
  each_predicate<T>([&](auto pred, const std::function<bool(Index, Index, T)>& keep, const char* name) {
    for (Shape sh : {Shape::uniform, Shape::heavy_row, Shape::empty}) {
      const auto A = test::random_mat<T>(80, 60, 0.15, sh, ++seed);
      SparseMatrix<T> Cg(80, 60, test::gpu()), Cc(80, 60);
      select(Cg, test::from_ref(A, test::gpu()), pred);
      select(Cc, test::from_ref(A), pred);
      INFO("select " << name << " " << type_traits<T>::name << " shape=" << test::to_string(sh) << " seed=" << seed);
      CHECK(test::compare(test::to_ref(Cg), ref::select(A, keep)) == "");
      CHECK(test::compare(test::to_ref(Cg), test::to_ref(Cc)) == "");
    }
    for (bool dense : {false, true}) {
      const auto u = test::random_vec<T>(120, dense ? 1.0 : 0.3, ++seed);
      Vector<T> ug = dense ? test::from_ref(u).densified(T{}).to(test::gpu()) : test::from_ref(u, test::gpu());
      Vector<T> wg(120, test::gpu());
      select(wg, ug, pred);
      ref::Vec<T> want{120, {}};
      for (auto& [i, x] : u.e)
        if (keep(i, 0, x)) want.e[i] = x;
      INFO("select vector " << name << " " << type_traits<T>::name << " dense=" << dense << " seed=" << seed);
      CHECK(test::compare(test::to_ref(wg), want) == "");
    }
  });
  // masks, accumulators and replace on the sparse write-back
  for (MaskKind mk : test::all_masks)
    for (const auto& acc : test::accum_names)
      for (bool replace : {false, true}) {
        const auto A = test::random_mat<T>(50, 50, 0.2, Shape::uniform, ++seed);
        const auto C0 = test::random_mat<T>(50, 50, 0.2, Shape::uniform, seed + 1);
        const MaskCase mask(mk, 50, 50, false, seed + 2);
        SparseMatrix<T> Cg = test::from_ref(C0, test::gpu()), Cc = test::from_ref(C0);
        test::with_accum<T>(acc, [&](Accum a) {
          select(Cg, test::from_ref(A, test::gpu()), selectop::tril{0},
                 {.mask = mask.mask(true), .accum = a, .replace = replace});
          select(Cc, test::from_ref(A), selectop::tril{0}, {.mask = mask.mask(false), .accum = a, .replace = replace});
        });
        const auto t = ref::select<T>(A, [](Index i, Index j, T) { return j <= i; });
        INFO("select tril mask=" << test::to_string(mk) << " accum='" << acc << "' replace=" << replace
                                 << " seed=" << seed);
        CHECK(test::compare(test::to_ref(Cg), ref::write_sparse(C0, t, mask.fn(), test::accum_ref<T>(acc), replace)) ==
              "");
        CHECK(test::compare(test::to_ref(Cg), test::to_ref(Cc)) == "");
      }
}
