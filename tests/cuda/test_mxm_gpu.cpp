// mxm on the GPU other than sparse x dense: sparse x sparse (the masked dot-product
// method for plain sparse masks, expand-sort-compress for no mask, complemented and
// dense masks), dense x sparse and dense x dense, against the Eigen references of
// tests/reference/products.hpp and the CPU backend: every semiring and type, masks,
// accumulators, replace, transposes, empty operands, and triangle counting on a real
// graph (C<L> = L (+).(pair) L').
#include <algorithm>
#include <map>
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

namespace {

template <class T>
std::vector<std::string> semirings_for() {
  if constexpr (std::is_same_v<T, bool>) return {"lor_land", "any_second"};
  else
    return {"plus_times", "max_times", "min_plus", "max_plus", "min_times", "max_min",
            "min_max", "plus_pair", "min_second", "any_second", "plus_second"};
}

template <class T, class F>
void with_semiring(const std::string& name, F&& f) {
  visit_semiring<T>(semiring_from_string(name.c_str()), [&]<class S>() {
    if constexpr (supports_semiring(S::id, type_id<T>)) f.template operator()<S>();
  });
}

// For any_second: every value B(k, j) over the k where A(i, k) and B(k, j) exist.
template <class T>
std::map<std::pair<Index, Index>, std::vector<T>> any_candidates(const ref::Mat<T>& A, const ref::Mat<T>& B) {
  std::map<std::pair<Index, Index>, std::vector<T>> out;
  for (auto& [ka, a] : A.e)
    for (auto it = B.e.lower_bound({ka.second, 0}); it != B.e.end() && it->first.first == ka.second; ++it)
      out[{ka.first, it->first.second}].push_back(it->second);
  return out;
}

// The variant the CUDA backend chooses for sparse x sparse: the masked dot products
// when the mask lists the entries to compute (sparse, not complemented), else esc.
std::string chosen_spgemm(MaskKind mk) {
  return mk == MaskKind::value || mk == MaskKind::structural ? "masked_dot" : "esc";
}

template <class T>
void sparse_sparse(const std::string& sname, Index m, Index k, Index n, Shape shape, MaskKind mk,
                   const std::string& acc, bool replace, bool tb, std::uint64_t seed, const std::string& forced = "") {
  const auto A = test::random_mat<T>(m, k, 0.1, shape, seed);
  const auto B = test::random_mat<T>(tb ? n : k, tb ? k : n, 0.1, Shape::uniform, seed + 1);
  const auto C0 = test::random_mat<T>(m, n, 0.1, Shape::uniform, seed + 2);
  const MaskCase mask(mk, m, n, false, seed + 3);
  const auto s = ref::semiring<T>(sname);
  const ref::Mat<T> Bop = tb ? ref::transpose(B) : B;
  const ref::Mat<T> P = ref::from_eigen<T>(ref::spgemm<T>(ref::to_eigen(A), ref::to_eigen(Bop), s));
  SparseMatrix<T> Cg = test::from_ref(C0, test::gpu()), Cc = test::from_ref(C0);
  DispatchRecord gpu_record;
  with_semiring<T>(sname, [&]<class S>() {
    test::with_accum<T>(acc, [&](Accum a) {
      mxm(Cg, test::from_ref(A, test::gpu()), test::from_ref(B, test::gpu()), S{},
          {.mask = mask.mask(true), .accum = a, .replace = replace, .transpose_b = tb, .variant = forced});
      gpu_record = last_dispatch();
      mxm(Cc, test::from_ref(A), test::from_ref(B), S{},
          {.mask = mask.mask(false), .accum = a, .replace = replace, .transpose_b = tb});
    });
  });
  INFO("mxm sparse x sparse " << sname << " " << type_traits<T>::name << " " << m << "x" << k << "x" << n
                              << " shape=" << test::to_string(shape) << " mask=" << test::to_string(mk) << " accum='"
                              << acc << "' replace=" << replace << " transpose_b=" << tb << " seed=" << seed
                              << " forced='" << forced << "' ran=" << gpu_record.variant);
  REQUIRE(Cg.device() == test::gpu());
  // The record is the backend's own: the method that really ran.
  CHECK(gpu_record.backend == "cuda");
  CHECK(gpu_record.variant == (forced.empty() ? chosen_spgemm(mk) : forced));
  const auto got = test::to_ref(Cg);
  if (sname == "any_second") {
    // any term may be chosen: the pattern must match, each value be one of the terms
    REQUIRE(acc.empty());
    const auto want = ref::write_sparse(C0, P, mask.fn(), {}, replace);
    const auto cand = any_candidates(A, Bop);
    CHECK(got.e.size() == want.e.size());
    for (auto& [pos, x] : want.e) {
      INFO("entry " << pos.first << "," << pos.second);
      REQUIRE(got.e.count(pos));
      const auto c = cand.find(pos);
      const bool from_product = c != cand.end() && (!mask.fn() || mask.fn()(pos.first, pos.second));
      if (from_product) CHECK(std::find(c->second.begin(), c->second.end(), got.e.at(pos)) != c->second.end());
      else CHECK(got.e.at(pos) == x);
    }
    return;
  }
  CHECK(test::compare(got, ref::write_sparse(C0, P, mask.fn(), test::accum_ref<T>(acc), replace)) == "");
  CHECK(test::compare(got, test::to_ref(Cc)) == "");
}

template <class T>
void dense_products(const std::string& sname, Index m, Index k, Index n, MaskKind mk, const std::string& acc,
                    bool replace, std::uint64_t seed) {
  const auto s = ref::semiring<T>(sname);
  const ref::Dense<T> A = test::random_dense<T>(m, k, seed);
  const auto Bs = test::random_mat<T>(k, n, 0.15, Shape::empty_rows, seed + 1);
  ref::Dense<T> Bd = ref::Dense<T>::Zero(k, n);
  for (auto& [p, x] : Bs.e) Bd(p.first, p.second) = x;
  const ref::Dense<T> C0 = test::random_dense<T>(m, n, seed + 2);
  const MaskCase mask(mk, m, n, false, seed + 3);
  const auto allow = mask.fn();
  const auto accum = test::accum_ref<T>(acc);
  // dense x sparse: the terms are the entries of B; a column of B without entries gives
  // no term (the identity, or C kept under an accumulator)
  ref::Dense<T> Tds = ref::Dense<T>::Constant(m, n, s.identity);
  std::vector<bool> col_has(static_cast<std::size_t>(n), false);
  for (Index i = 0; i < m; ++i)
    for (auto& [p, x] : Bs.e) {
      const T term = s.mul(A(i, p.first), x);
      Tds(i, p.second) = s.add(Tds(i, p.second), term);
      col_has[static_cast<std::size_t>(p.second)] = true;
    }
  const ref::Dense<T> Tdd = ref::gemm<T>(A, Bd, s);
  auto write = [&](const ref::Dense<T>& Tm, bool by_column) {
    ref::Dense<T> want = C0;
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < n; ++j) {
        const bool present = !by_column || col_has[static_cast<std::size_t>(j)];
        if (!allow || allow(i, j)) {
          if (present) want(i, j) = accum ? accum(C0(i, j), Tm(i, j)) : Tm(i, j);
          else if (!accum) want(i, j) = s.identity;
        } else if (replace) {
          want(i, j) = s.identity;
        }
      }
    return want;
  };
  const Layout la = (seed % 2) ? Layout::row_major : Layout::col_major;
  DenseMatrix<T> C1 = test::to_geblas(C0, Layout::row_major, test::gpu());
  DenseMatrix<T> C2 = test::to_geblas(C0, Layout::col_major, test::gpu());
  DenseMatrix<T> C1c = test::to_geblas(C0);
  with_semiring<T>(sname, [&]<class S>() {
    test::with_accum<T>(acc, [&](Accum a) {
      const Options og{.mask = mask.mask(true), .accum = a, .replace = replace};
      mxm(C1, test::to_geblas(A, la, test::gpu()), test::from_ref(Bs, test::gpu()), S{}, og);
      CHECK(last_dispatch().variant == "dot_bt");
      mxm(C2, test::to_geblas(A, la, test::gpu()), test::to_geblas(Bd, Layout::col_major, test::gpu()), S{}, og);
      CHECK(last_dispatch().variant == "tiled");
      mxm(C1c, test::to_geblas(A, la), test::from_ref(Bs), S{},
          {.mask = mask.mask(false), .accum = a, .replace = replace});
    });
  });
  INFO("mxm dense " << sname << " " << type_traits<T>::name << " " << m << "x" << k << "x" << n << " mask="
                    << test::to_string(mk) << " accum='" << acc << "' replace=" << replace << " seed=" << seed);
  if (sname == "any_second") return;  // covered by the sparse test; any term may be chosen
  CHECK(test::compare_dense(C1.to(Device::cpu()), write(Tds, true), test::tol<T>()) == "");
  CHECK(test::compare_dense(C2.to(Device::cpu()), write(Tdd, false), test::tol<T>()) == "");
  CHECK(test::compare(C1.to(Device::cpu()).to_row_major(), C1c.to_row_major()) == "");
}

}  // namespace

TEMPLATE_TEST_CASE("mxm sparse x sparse on the GPU: every semiring", "[mxm][gpu]", float, double, std::int32_t,
                   std::int64_t, bool) {
  std::uint64_t seed = 1100;
  for (const auto& name : semirings_for<TestType>())
    for (Shape sh : {Shape::uniform, Shape::heavy_row, Shape::empty})
      for (MaskKind mk : {MaskKind::none, MaskKind::value, MaskKind::complement_value, MaskKind::dense_value})
        sparse_sparse<TestType>(name, 45, 60, 50, sh, mk, "", false, false, ++seed);
  sparse_sparse<TestType>(semirings_for<TestType>()[0], 0, 0, 0, Shape::empty, MaskKind::none, "", false, false, ++seed);
}

TEMPLATE_TEST_CASE("mxm sparse x sparse on the GPU: masks, accumulators, replace, transpose", "[mxm][gpu]", float,
                   std::int32_t, std::int64_t) {
  std::uint64_t seed = 1300;
  for (MaskKind mk : test::all_masks)
    for (const auto& acc : test::accum_names)
      for (bool replace : {false, true})
        for (bool tb : {false, true})
          sparse_sparse<TestType>("plus_times", 40, 70, 35, Shape::empty_rows, mk, acc, replace, tb, ++seed);
}

TEST_CASE("mxm sparse x sparse on the GPU: each forced variant runs and is recorded", "[mxm][gpu][dispatch]") {
  std::uint64_t seed = 1400;
  for (MaskKind mk : test::all_masks) {
    sparse_sparse<float>("plus_times", 40, 70, 35, Shape::uniform, mk, "", false, false, ++seed, "esc");
    if (chosen_spgemm(mk) == "masked_dot")
      sparse_sparse<float>("min_plus", 40, 70, 35, Shape::heavy_row, mk, "", false, true, ++seed, "masked_dot");
  }
  // masked_dot computes only listed mask entries: without them it is refused, never replaced
  const auto A = test::random_mat<float>(20, 20, 0.2, Shape::uniform, 7);
  const auto Ag = test::from_ref(A, test::gpu());
  SparseMatrix<float> C(20, 20, test::gpu());
  for (MaskKind mk : {MaskKind::none, MaskKind::complement_value, MaskKind::dense_value}) {
    const MaskCase mask(mk, 20, 20, false, 8);
    INFO("mask=" << test::to_string(mk));
    CHECK_THROWS_AS(mxm(C, Ag, Ag, semiring::plus_times<float>{}, {.mask = mask.mask(true), .variant = "masked_dot"}),
                    InvalidValue);
  }
  CHECK_THROWS_AS(mxm(C, Ag, Ag, semiring::plus_times<float>{}, {.variant = "gustavson"}), InvalidValue);
}

TEMPLATE_TEST_CASE("mxm dense x sparse and dense x dense on the GPU", "[mxm][gpu]", float, double, std::int32_t,
                   std::int64_t) {
  std::uint64_t seed = 1500;
  for (const auto& name : semirings_for<TestType>())
    dense_products<TestType>(name, 37, 21, 45, MaskKind::none, "", false, ++seed);
  for (MaskKind mk : test::all_masks)
    for (const auto& acc : test::accum_names)
      for (bool replace : {false, true})
        dense_products<TestType>("min_plus", 33, 17, 40, mk, acc, replace, ++seed);
}

TEST_CASE("triangle counting on the GPU: C<L> = L (+).(pair) L' on a real graph", "[mxm][gpu]") {
  const std::string path = test::data_file("cora.mtx.gz");
  if (path.empty()) {
    WARN("cora.mtx.gz not found in " << test::data_dir() << ": real-graph triangle count not run");
    return;
  }
  const auto A = io::read_matrix_market<std::int64_t>(path);
  SparseMatrix<std::int64_t> L(A.nrows(), A.ncols());
  select(L, A, selectop::tril{-1});
  const auto Lg = L.to(test::gpu());
  SparseMatrix<std::int64_t> Cg(A.nrows(), A.ncols(), test::gpu()), Cc(A.nrows(), A.ncols());
  mxm(Cg, Lg, Lg, semiring::plus_pair<std::int64_t>{}, {.mask = Mask::structure(Lg), .transpose_b = true});
  mxm(Cc, L, L, semiring::plus_pair<std::int64_t>{}, {.mask = Mask::structure(L), .transpose_b = true});
  const std::int64_t got = reduce(Cg, monoid::plus<std::int64_t>{});
  // reference: for each edge (i, j) of L, the common neighbours k < j of i and j in L
  const auto Lr = test::to_ref(L);
  std::map<Index, std::vector<Index>> rows;
  for (auto& [p, x] : Lr.e) rows[p.first].push_back(p.second);
  std::int64_t want = 0;
  for (auto& [p, x] : Lr.e) {
    const auto& a = rows[p.first];
    const auto& b = rows[p.second];
    std::vector<Index> common;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
    want += static_cast<std::int64_t>(common.size());
  }
  INFO("cora triangles: gpu " << got << ", reference " << want);
  CHECK(want > 0);
  CHECK(got == want);
  CHECK(test::compare(test::to_ref(Cg), test::to_ref(Cc)) == "");
}
