// mxv and vxm on the GPU (pull and push) against the reference of
// tests/reference/operations.hpp and against the CPU backend: every built-in semiring
// and type, dense and sparse u (frontiers small enough to push), masks of every flavour,
// accumulators, replace, sparse and dense w, empty objects. Every entry is checked.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "cuda/gpu_ops_support.hpp"

using namespace geblas;
using geblas::test::MaskCase;
using geblas::test::MaskKind;
using geblas::test::Shape;

namespace {

template <class T>
std::vector<std::string> semirings_for() {
  if constexpr (std::is_same_v<T, bool>) return {"lor_land", "any_second"};
  else
    return {"plus_times", "max_times", "min_plus", "max_plus", "min_times", "max_min",
            "min_max", "plus_pair", "min_second", "any_second", "plus_second"};
}

// One mxv (or vxm) call on objects of `device`; returns w.
template <class T>
Vector<T> run(bool vxm_form, const std::string& sname, Vector<T> w, const SparseMatrix<T>& A, const Vector<T>& u,
              const Options& o) {
  visit_semiring<T>(semiring_from_string(sname.c_str()), [&]<class S>() {
    if constexpr (supports_semiring(S::id, type_id<T>)) {
      if (vxm_form) vxm(w, u, A, S{}, o);
      else mxv(w, A, u, S{}, o);
    }
  });
  return w;
}

struct Case {
  Index m, n;
  Shape shape;
  double u_density;
  bool u_dense;
  bool vxm_form;
  std::string variant;  // "", "push", "pull"
};

template <class T>
void check(const Case& c, const std::string& sname, MaskKind mk, const std::string& acc, bool replace, bool w_dense,
           std::uint64_t seed) {
  const auto Aref = test::random_mat<T>(c.m, c.n, 0.1, c.shape, seed);
  // mxv: t = A u (u of size n, w of size m); vxm: t = A' u (u of size m, w of size n)
  const Index usize = c.vxm_form ? c.m : c.n, wsize = c.vxm_form ? c.n : c.m;
  auto uref = test::random_vec<T>(usize, c.u_dense ? 1.0 : c.u_density, seed + 1);
  const auto s = ref::semiring<T>(sname);
  std::map<Index, std::vector<T>> terms;
  const ref::Mat<T> M = c.vxm_form ? ref::transpose(Aref) : Aref;
  const ref::Vec<T> t = ref::mxv(M, uref, s, c.vxm_form, &terms);
  const MaskCase mask(mk, wsize, 1, true, seed + 2);
  const auto w0 = test::random_vec<T>(wsize, 0.5, seed + 3);

  Vector<T> u_cpu = c.u_dense ? test::from_ref(uref).densified(T{}) : test::from_ref(uref);
  Vector<T> w_cpu = w_dense ? test::from_ref(w0).densified(T{}) : test::from_ref(w0);
  const SparseMatrix<T> A_cpu = test::from_ref(Aref);
  Vector<T> got_gpu, got_cpu;
  test::with_accum<T>(acc, [&](Accum a) {
    Options o_cpu{.mask = mask.mask(false), .accum = a, .replace = replace, .variant = c.variant};
    Options o_gpu{.mask = mask.mask(true), .accum = a, .replace = replace, .variant = c.variant};
    got_cpu = run<T>(c.vxm_form, sname, w_cpu, A_cpu, u_cpu, o_cpu);
    got_gpu = run<T>(c.vxm_form, sname, w_cpu.to(test::gpu()), A_cpu.to(test::gpu()), u_cpu.to(test::gpu()), o_gpu);
  });
  INFO(sname << " " << type_traits<T>::name << " m=" << c.m << " n=" << c.n << " shape=" << test::to_string(c.shape)
             << " u_dense=" << c.u_dense << " u_density=" << c.u_density << " vxm=" << c.vxm_form << " variant='"
             << c.variant << "' mask=" << test::to_string(mk) << " accum='" << acc << "' replace=" << replace
             << " w_dense=" << w_dense << " seed=" << seed << " gpu variant=" << last_dispatch().variant);
  REQUIRE(got_gpu.device() == test::gpu());
  REQUIRE(got_gpu.is_dense() == w_dense);
  if (sname == "any_second") {
    // any term may be chosen: the pattern must match and each value be one of the terms
    REQUIRE(mk == MaskKind::none);
    REQUIRE(acc.empty());
    const ref::Vec<T> g = test::to_ref(got_gpu);
    for (Index i = 0; i < wsize; ++i) {
      const bool want = t.e.count(i) > 0;
      const bool has = g.e.count(i) > 0;
      if (!w_dense) CHECK(has == want);
      if (want) {
        const auto& cand = terms[i];
        CHECK(std::find(cand.begin(), cand.end(), g.e.at(i)) != cand.end());
      } else if (w_dense) {
        CHECK(g.e.at(i) == s.identity);
      }
    }
    return;
  }
  const auto fn = mask.fn();
  const auto accum = test::accum_ref<T>(acc);
  if (w_dense) {
    std::vector<T> wd(static_cast<std::size_t>(wsize), T{});
    for (auto& [i, x] : w0.e) wd[static_cast<std::size_t>(i)] = x;
    const auto want = ref::write_dense_vector(wd, t, fn, accum, replace, s.identity);
    CHECK(test::compare(test::dense_values(got_gpu), want) == "");
    CHECK(test::compare(test::dense_values(got_gpu), test::dense_values(got_cpu)) == "");
  } else {
    const auto want = ref::write_vector(w0, t, fn, accum, replace);
    CHECK(test::compare(test::to_ref(got_gpu), want) == "");
    CHECK(test::compare(test::to_ref(got_gpu), test::to_ref(got_cpu)) == "");
  }
}

template <class T>
void every_semiring() {
  std::uint64_t seed = 7000;
  const std::vector<Case> cases = {
      {300, 200, Shape::uniform, 1.0, true, false, ""},      // pull, dense u
      {300, 200, Shape::heavy_row, 0.3, false, false, ""},   // pull, sparse u
      {300, 200, Shape::empty_rows, 0.02, false, false, ""}, // push (small frontier)
      {257, 129, Shape::uniform, 0.02, false, true, ""},     // vxm push
      {257, 129, Shape::heavy_row, 1.0, true, true, ""},     // vxm pull
      {64, 65, Shape::uniform, 0.3, false, false, "push"},   // forced push of a large frontier
      {0, 0, Shape::empty, 1.0, true, false, ""},            // empty
      {33, 17, Shape::empty, 0.5, false, true, ""},          // no entries
  };
  for (const auto& name : semirings_for<T>())
    for (const auto& c : cases)
      for (bool w_dense : {false, true}) check<T>(c, name, MaskKind::none, "", false, w_dense, ++seed);
}

template <class T>
void masks_and_accumulators(const std::string& sname) {
  std::uint64_t seed = 9000;
  const std::vector<Case> cases = {
      {200, 150, Shape::uniform, 1.0, true, false, ""},
      {200, 150, Shape::empty_rows, 0.03, false, false, ""},
      {150, 200, Shape::heavy_row, 0.03, false, true, ""},
  };
  for (const auto& c : cases)
    for (MaskKind mk : test::all_masks)
      for (const auto& acc : test::accum_names)
        for (bool replace : {false, true})
          for (bool w_dense : {false, true}) check<T>(c, sname, mk, acc, replace, w_dense, ++seed);
}

}  // namespace

TEMPLATE_TEST_CASE("mxv/vxm on the GPU: every semiring matches the reference and the CPU", "[mxv][gpu]", float,
                   double, std::int32_t, std::int64_t, bool) {
  every_semiring<TestType>();
}

TEMPLATE_TEST_CASE("mxv/vxm on the GPU: masks, accumulators, replace", "[mxv][gpu]", float, double, std::int32_t,
                   std::int64_t) {
  masks_and_accumulators<TestType>("min_plus");
  masks_and_accumulators<TestType>("plus_times");
}

TEST_CASE("mxv on the GPU: bool masks and accumulators with lor_land", "[mxv][gpu]") {
  masks_and_accumulators<bool>("lor_land");
}
