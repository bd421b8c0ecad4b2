// reduce on the GPU (rows of sparse and dense matrices to a vector, whole objects to a
// scalar) against the reference of tests/reference/operations.hpp and the CPU backend:
// every monoid and type, empty rows and objects, masks, accumulators, replace.
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "cuda/gpu_ops_support.hpp"

using namespace geblas;
using geblas::test::MaskCase;
using geblas::test::MaskKind;
using geblas::test::Shape;

namespace {

const std::vector<std::pair<std::string, MonoidId>> monoids = {
    {"plus", MonoidId::plus}, {"times", MonoidId::times}, {"min", MonoidId::min},
    {"max", MonoidId::max},   {"lor", MonoidId::lor},     {"land", MonoidId::land}};

template <class T>
void rows_case(const std::string& mname, MonoidId mid, Index m, Index n, Shape shape, MaskKind mk,
               const std::string& acc, bool replace, bool w_dense, std::uint64_t seed) {
  const auto A = test::random_mat<T>(m, n, 0.1, shape, seed);
  const auto mon = ref::monoid<T>(mname);
  const auto t = ref::reduce_rows(A, mon);
  const auto w0 = test::random_vec<T>(m, w_dense ? 1.0 : 0.4, seed + 1);
  const MaskCase mask(mk, m, 1, true, seed + 2);
  Vector<T> wc = w_dense ? test::from_ref(w0).densified(T{}) : test::from_ref(w0);
  Vector<T> wg = wc.to(test::gpu());
  const auto Ac = test::from_ref(A);
  const auto Ag = Ac.to(test::gpu());
  visit_monoid<T>(mid, [&]<class M>() {
    test::with_accum<T>(acc, [&](Accum a) {
      reduce(wc, Ac, M{}, {.mask = mask.mask(false), .accum = a, .replace = replace});
      reduce(wg, Ag, M{}, {.mask = mask.mask(true), .accum = a, .replace = replace});
    });
  });
  INFO("reduce rows " << mname << " " << type_traits<T>::name << " " << m << "x" << n << " shape="
                      << test::to_string(shape) << " mask=" << test::to_string(mk) << " accum='" << acc
                      << "' replace=" << replace << " w_dense=" << w_dense << " seed=" << seed);
  REQUIRE(wg.device() == test::gpu());
  if (w_dense) {
    std::vector<T> wd(static_cast<std::size_t>(m), T{});
    for (auto& [i, x] : w0.e) wd[static_cast<std::size_t>(i)] = x;
    CHECK(test::compare(test::dense_values(wg),
                        ref::write_dense_vector(wd, t, mask.fn(), test::accum_ref<T>(acc), replace, mon.identity)) ==
          "");
    CHECK(test::compare(test::dense_values(wg), test::dense_values(wc)) == "");
  } else {
    CHECK(test::compare(test::to_ref(wg), ref::write_vector(w0, t, mask.fn(), test::accum_ref<T>(acc), replace)) ==
          "");
    CHECK(test::compare(test::to_ref(wg), test::to_ref(wc)) == "");
  }
}

}  // namespace

TEMPLATE_TEST_CASE("reduce rows and scalars on the GPU", "[reduce][gpu]", float, double, std::int32_t, std::int64_t,
                   bool) {
  using T = TestType;
  std::uint64_t seed = 500;
  for (const auto& [name, id] : monoids)
    for (Shape sh : {Shape::uniform, Shape::empty_rows, Shape::heavy_row, Shape::empty})
      for (bool w_dense : {false, true}) rows_case<T>(name, id, 90, 300, sh, MaskKind::none, "", false, w_dense, ++seed);
  for (MaskKind mk : test::all_masks)
    for (const auto& acc : test::accum_names)
      for (bool replace : {false, true})
        for (bool w_dense : {false, true})
          rows_case<T>("plus", MonoidId::plus, 70, 50, Shape::empty_rows, mk, acc, replace, w_dense, ++seed);
  rows_case<T>("max", MonoidId::max, 0, 0, Shape::empty, MaskKind::none, "", false, false, ++seed);

  // dense rows (both layouts, including a 0-column matrix) and scalars
  for (const auto& [name, id] : monoids) {
    const auto mon = ref::monoid<T>(name);
    for (Index n : {Index{0}, Index{1}, Index{33}, Index{300}}) {
      const ref::Dense<T> D = test::random_dense<T>(45, n, ++seed);
      std::vector<T> want(45, mon.identity);
      T all = mon.identity;
      for (Index i = 0; i < 45; ++i)
        for (Index j = 0; j < n; ++j) {
          want[static_cast<std::size_t>(i)] = mon.op(want[static_cast<std::size_t>(i)], D(i, j));
          all = mon.op(all, D(i, j));
        }
      const auto Dg = test::to_geblas(D, (seed % 2) ? Layout::row_major : Layout::col_major, test::gpu());
      Vector<T> wg = Vector<T>::dense(45, T{}, test::gpu());
      T got{};
      visit_monoid<T>(id, [&]<class M>() {
        reduce(wg, Dg, M{});
        got = reduce(Dg, M{});
      });
      INFO("reduce dense " << name << " " << type_traits<T>::name << " n=" << n << " seed=" << seed);
      CHECK(test::compare(test::dense_values(wg), want) == "");
      CHECK(test::close(got, all, test::tol<T>()));
    }
    for (Shape sh : {Shape::uniform, Shape::empty}) {
      const auto A = test::random_mat<T>(200, 300, 0.05, sh, ++seed);
      T want = mon.identity;
      for (auto& [k, x] : A.e) want = mon.op(want, x);
      const auto u = test::random_vec<T>(5000, 0.3, seed + 1);
      T vwant = mon.identity;
      for (auto& [i, x] : u.e) vwant = mon.op(vwant, x);
      T got{}, vgot{}, cpu{};
      visit_monoid<T>(id, [&]<class M>() {
        got = reduce(test::from_ref(A, test::gpu()), M{});
        cpu = reduce(test::from_ref(A), M{});
        vgot = reduce(test::from_ref(u, test::gpu()), M{});
      });
      INFO("reduce scalar " << name << " " << type_traits<T>::name << " seed=" << seed);
      CHECK(test::close(got, want, test::tol<T>()));
      CHECK(test::close(got, cpu, test::tol<T>()));
      CHECK(test::close(vgot, vwant, test::tol<T>()));
    }
  }
}
