// ewise_add, ewise_mult and apply on the GPU against the reference of
// tests/reference/operations.hpp and against the CPU backend: sparse and dense
// matrices (both layouts) and vectors (dense and sparse), several operators, every
// type, masks, accumulators, replace and empty objects. Every entry is checked.
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
std::vector<std::string> ops_for() {
  if constexpr (std::is_same_v<T, bool>) return {"lor", "land", "lxor", "first", "second", "eq"};
  else return {"plus", "times", "min", "max", "minus", "first", "second", "div", "gt"};
}

template <class T, class F>
void with_binop(const std::string& name, F&& f) {
  static const std::vector<std::pair<std::string, BinaryOpId>> ids = {
      {"plus", BinaryOpId::plus}, {"times", BinaryOpId::times}, {"min", BinaryOpId::min},
      {"max", BinaryOpId::max},   {"minus", BinaryOpId::minus}, {"first", BinaryOpId::first},
      {"second", BinaryOpId::second}, {"div", BinaryOpId::div}, {"gt", BinaryOpId::gt},
      {"lor", BinaryOpId::lor},   {"land", BinaryOpId::land},   {"lxor", BinaryOpId::lxor},
      {"eq", BinaryOpId::eq}};
  for (auto& [n, id] : ids)
    if (n == name) return visit_binary_op<T>(id, f);
  FAIL("unknown operator " << name);
}

template <class T>
void sparse_case(const std::string& op, bool add, Index m, Index n, Shape shape, MaskKind mk, const std::string& acc,
                 bool replace, std::uint64_t seed) {
  const auto A = test::random_mat<T>(m, n, 0.15, shape, seed);
  const auto B = test::random_mat<T>(m, n, 0.15, Shape::uniform, seed + 1);
  const auto C0 = test::random_mat<T>(m, n, 0.1, Shape::uniform, seed + 2);
  const MaskCase mask(mk, m, n, false, seed + 3);
  const auto want = ref::write_sparse(C0, ref::ewise(A, B, ref::binary<T>(op), add), mask.fn(),
                                      test::accum_ref<T>(acc), replace);
  SparseMatrix<T> Cc = test::from_ref(C0), Cg = test::from_ref(C0, test::gpu());
  const auto Ac = test::from_ref(A), Bc = test::from_ref(B);
  const auto Ag = Ac.to(test::gpu()), Bg = Bc.to(test::gpu());
  with_binop<T>(op, [&]<class Op>() {
    test::with_accum<T>(acc, [&](Accum a) {
      if (add) {
        ewise_add(Cc, Ac, Bc, Op{}, {.mask = mask.mask(false), .accum = a, .replace = replace});
        ewise_add(Cg, Ag, Bg, Op{}, {.mask = mask.mask(true), .accum = a, .replace = replace});
      } else {
        ewise_mult(Cc, Ac, Bc, Op{}, {.mask = mask.mask(false), .accum = a, .replace = replace});
        ewise_mult(Cg, Ag, Bg, Op{}, {.mask = mask.mask(true), .accum = a, .replace = replace});
      }
    });
  });
  INFO("sparse " << (add ? "ewise_add " : "ewise_mult ") << op << " " << type_traits<T>::name << " " << m << "x" << n
                 << " shape=" << test::to_string(shape) << " mask=" << test::to_string(mk) << " accum='" << acc
                 << "' replace=" << replace << " seed=" << seed);
  REQUIRE(Cg.device() == test::gpu());
  CHECK(test::compare(test::to_ref(Cg), want) == "");
  CHECK(test::compare(test::to_ref(Cg), test::to_ref(Cc)) == "");
}

template <class T>
void dense_case(const std::string& op, Index m, Index n, MaskKind mk, const std::string& acc, bool replace,
                std::uint64_t seed) {
  const ref::Dense<T> A = test::random_dense<T>(m, n, seed), B = test::random_dense<T>(m, n, seed + 1);
  const ref::Dense<T> C0 = test::random_dense<T>(m, n, seed + 2);
  const MaskCase mask(mk, m, n, false, seed + 3);
  const auto f = ref::binary<T>(op);
  const auto accum = test::accum_ref<T>(acc);
  const auto allow = mask.fn();
  ref::Dense<T> want = C0;
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j) {
      if (!allow || allow(i, j)) want(i, j) = accum ? accum(C0(i, j), f(A(i, j), B(i, j))) : f(A(i, j), B(i, j));
      else if (replace) want(i, j) = T{};
    }
  const Layout la = (seed % 2) ? Layout::row_major : Layout::col_major;
  const Layout lc = (seed % 3) ? Layout::row_major : Layout::col_major;
  DenseMatrix<T> Cc = test::to_geblas(C0, lc), Cg = test::to_geblas(C0, lc, test::gpu());
  const auto Ac = test::to_geblas(A, la), Bc = test::to_geblas(B);
  const auto Ag = Ac.to(test::gpu()), Bg = Bc.to(test::gpu());
  // dense operands have every entry, so ewise_add and ewise_mult agree: the CPU runs one,
  // the GPU the other, and both must match the reference
  with_binop<T>(op, [&]<class Op>() {
    test::with_accum<T>(acc, [&](Accum a) {
      ewise_add(Cc, Ac, Bc, Op{}, {.mask = mask.mask(false), .accum = a, .replace = replace});
      ewise_mult(Cg, Ag, Bg, Op{}, {.mask = mask.mask(true), .accum = a, .replace = replace});
    });
  });
  INFO("dense ewise " << op << " " << type_traits<T>::name << " " << m << "x" << n << " mask=" << test::to_string(mk)
                      << " accum='" << acc << "' replace=" << replace << " seed=" << seed);
  REQUIRE(Cg.device() == test::gpu());
  CHECK(test::compare_dense(Cg.to(Device::cpu()), want, test::tol<T>()) == "");
  CHECK(test::compare(Cg.to(Device::cpu()).to_row_major(), Cc.to_row_major()) == "");
}

template <class T>
void vector_case(const std::string& op, bool add, Index n, bool u_dense, bool v_dense, bool w_dense, MaskKind mk,
                 const std::string& acc, bool replace, std::uint64_t seed) {
  auto u = test::random_vec<T>(n, u_dense ? 1.0 : 0.3, seed);
  auto v = test::random_vec<T>(n, v_dense ? 1.0 : 0.3, seed + 1);
  const auto w0 = test::random_vec<T>(n, w_dense ? 1.0 : 0.4, seed + 2);
  const MaskCase mask(mk, n, 1, true, seed + 3);
  ref::Mat<T> U{n, 1, {}}, V{n, 1, {}};
  for (auto& [i, x] : u.e) U.e[{i, 0}] = x;
  for (auto& [i, x] : v.e) V.e[{i, 0}] = x;
  const auto Tm = ref::ewise(U, V, ref::binary<T>(op), add);
  ref::Vec<T> t{n, {}};
  for (auto& [k, x] : Tm.e) t.e[k.first] = x;
  Vector<T> uc = u_dense ? test::from_ref(u).densified(T{}) : test::from_ref(u);
  Vector<T> vc = v_dense ? test::from_ref(v).densified(T{}) : test::from_ref(v);
  Vector<T> wc = w_dense ? test::from_ref(w0).densified(T{}) : test::from_ref(w0);
  Vector<T> wg = wc.to(test::gpu());
  const auto ug = uc.to(test::gpu()), vg = vc.to(test::gpu());
  with_binop<T>(op, [&]<class Op>() {
    test::with_accum<T>(acc, [&](Accum a) {
      if (add) {
        ewise_add(wc, uc, vc, Op{}, {.mask = mask.mask(false), .accum = a, .replace = replace});
        ewise_add(wg, ug, vg, Op{}, {.mask = mask.mask(true), .accum = a, .replace = replace});
      } else {
        ewise_mult(wc, uc, vc, Op{}, {.mask = mask.mask(false), .accum = a, .replace = replace});
        ewise_mult(wg, ug, vg, Op{}, {.mask = mask.mask(true), .accum = a, .replace = replace});
      }
    });
  });
  INFO("vector " << (add ? "ewise_add " : "ewise_mult ") << op << " " << type_traits<T>::name << " n=" << n
                 << " u_dense=" << u_dense << " v_dense=" << v_dense << " w_dense=" << w_dense << " mask="
                 << test::to_string(mk) << " accum='" << acc << "' replace=" << replace << " seed=" << seed);
  REQUIRE(wg.device() == test::gpu());
  if (w_dense) {
    std::vector<T> wd(static_cast<std::size_t>(n), T{});
    for (auto& [i, x] : w0.e) wd[static_cast<std::size_t>(i)] = x;
    const auto want = ref::write_dense_vector(wd, t, mask.fn(), test::accum_ref<T>(acc), replace, T{});
    CHECK(test::compare(test::dense_values(wg), want) == "");
    CHECK(test::compare(test::dense_values(wg), test::dense_values(wc)) == "");
  } else {
    CHECK(test::compare(test::to_ref(wg), ref::write_vector(w0, t, mask.fn(), test::accum_ref<T>(acc), replace)) ==
          "");
    CHECK(test::compare(test::to_ref(wg), test::to_ref(wc)) == "");
  }
}

}  // namespace

TEMPLATE_TEST_CASE("ewise on sparse matrices on the GPU", "[ewise][gpu]", float, double, std::int32_t, std::int64_t,
                   bool) {
  std::uint64_t seed = 100;
  for (const auto& op : ops_for<TestType>())
    for (bool add : {true, false})
      for (Shape sh : {Shape::uniform, Shape::heavy_row, Shape::empty})
        sparse_case<TestType>(op, add, 70, 45, sh, MaskKind::none, "", false, ++seed);
  for (MaskKind mk : test::all_masks)
    for (const auto& acc : test::accum_names)
      for (bool replace : {false, true}) {
        sparse_case<TestType>(ops_for<TestType>()[0], true, 60, 70, Shape::empty_rows, mk, acc, replace, ++seed);
        sparse_case<TestType>(ops_for<TestType>()[1], false, 60, 70, Shape::uniform, mk, acc, replace, ++seed);
      }
  sparse_case<TestType>(ops_for<TestType>()[0], true, 0, 0, Shape::empty, MaskKind::none, "", false, ++seed);
}

TEMPLATE_TEST_CASE("ewise on dense matrices on the GPU", "[ewise][gpu]", float, double, std::int32_t, std::int64_t,
                   bool) {
  std::uint64_t seed = 200;
  for (const auto& op : ops_for<TestType>()) dense_case<TestType>(op, 37, 41, MaskKind::none, "", false, ++seed);
  for (MaskKind mk : test::all_masks)
    for (const auto& acc : test::accum_names)
      for (bool replace : {false, true}) dense_case<TestType>(ops_for<TestType>()[0], 33, 65, mk, acc, replace, ++seed);
  dense_case<TestType>(ops_for<TestType>()[0], 0, 5, MaskKind::none, "", false, ++seed);
}

TEMPLATE_TEST_CASE("ewise on vectors on the GPU", "[ewise][gpu]", float, double, std::int32_t, std::int64_t, bool) {
  std::uint64_t seed = 300;
  for (const auto& op : ops_for<TestType>())
    for (bool add : {true, false})
      for (int forms = 0; forms < 8; ++forms)
        vector_case<TestType>(op, add, 300, forms & 1, forms & 2, forms & 4, MaskKind::none, "", false, ++seed);
  for (MaskKind mk : test::all_masks)
    for (const auto& acc : test::accum_names)
      for (bool replace : {false, true})
        for (bool w_dense : {false, true})
          vector_case<TestType>(ops_for<TestType>()[0], true, 200, false, true, w_dense, mk, acc, replace, ++seed);
  vector_case<TestType>(ops_for<TestType>()[0], true, 0, false, false, false, MaskKind::none, "", false, ++seed);
}

namespace {

template <class T>
std::vector<std::string> unops_for() {
  if constexpr (std::is_same_v<T, bool>) return {"identity", "one", "lnot"};
  else return {"identity", "one", "lnot", "ainv", "abs", "sqrt", "exp"};
}

template <class T, class F>
void with_unop(const std::string& name, F&& f) {
  static const std::vector<std::pair<std::string, UnaryOpId>> ids = {
      {"identity", UnaryOpId::identity}, {"one", UnaryOpId::one}, {"lnot", UnaryOpId::lnot},
      {"ainv", UnaryOpId::ainv},         {"abs", UnaryOpId::abs}, {"sqrt", UnaryOpId::sqrt},
      {"exp", UnaryOpId::exp}};
  for (auto& [n, id] : ids)
    if (n == name) return visit_unary_op<T>(id, f);
  FAIL("unknown operator " << name);
}

}  // namespace

TEMPLATE_TEST_CASE("apply on the GPU: sparse, dense and vector, unary and bound binary", "[apply][gpu]", float,
                   double, std::int32_t, std::int64_t, bool) {
  using T = TestType;
  std::uint64_t seed = 400;
  for (const auto& op : unops_for<T>()) {
    ++seed;
    // sqrt of negatives is NaN for floats and undefined for integers: use |x| inputs there
    auto A = test::random_mat<T>(50, 40, 0.2, Shape::heavy_row, seed);
    if constexpr (!std::is_same_v<T, bool>)
      if (op == "sqrt") for (auto& [k, x] : A.e) x = x < T(0) ? T(0) - x : x;
    const auto f = ref::unary<T>(op);
    ref::Mat<T> want{A.m, A.n, {}};
    for (auto& [k, x] : A.e) want.e[k] = f(x);
    for (MaskKind mk : {MaskKind::none, MaskKind::value, MaskKind::complement_structural}) {
      const MaskCase mask(mk, A.m, A.n, false, seed + 9);
      const auto C0 = test::random_mat<T>(A.m, A.n, 0.1, Shape::uniform, seed + 5);
      SparseMatrix<T> Cc = test::from_ref(C0), Cg = test::from_ref(C0, test::gpu());
      with_unop<T>(op, [&]<class Op>() {
        apply(Cc, test::from_ref(A), Op{}, {.mask = mask.mask(false)});
        apply(Cg, test::from_ref(A, test::gpu()), Op{}, {.mask = mask.mask(true)});
      });
      INFO("apply " << op << " " << type_traits<T>::name << " mask=" << test::to_string(mk) << " seed=" << seed);
      CHECK(test::compare(test::to_ref(Cg), ref::write_sparse(C0, want, mask.fn(), {}, false)) == "");
      CHECK(test::compare(test::to_ref(Cg), test::to_ref(Cc)) == "");
    }
    // dense matrix and vectors, no mask
    ref::Dense<T> D = test::random_dense<T>(20, 33, seed + 2);
    if constexpr (!std::is_same_v<T, bool>)
      if (op == "sqrt") D = D.cwiseAbs().eval();
    DenseMatrix<T> Dg = DenseMatrix<T>::constant(20, 33, test::poison<T>(), test::gpu());
    with_unop<T>(op, [&]<class Op>() { apply(Dg, test::to_geblas(D, Layout::col_major, test::gpu()), Op{}); });
    std::vector<T> dwant;
    for (Index i = 0; i < 20; ++i)
      for (Index j = 0; j < 33; ++j) dwant.push_back(f(D(i, j)));
    CHECK(test::compare(Dg.to(Device::cpu()).to_row_major(), dwant) == "");
    for (bool dense : {false, true}) {
      auto u = test::random_vec<T>(100, dense ? 1.0 : 0.3, seed + 3);
      if constexpr (!std::is_same_v<T, bool>)
        if (op == "sqrt") for (auto& [i, x] : u.e) x = x < T(0) ? T(0) - x : x;
      Vector<T> ug = dense ? test::from_ref(u).densified(T{}).to(test::gpu()) : test::from_ref(u, test::gpu());
      Vector<T> wg(100, test::gpu());
      with_unop<T>(op, [&]<class Op>() { apply(wg, ug, Op{}); });
      ref::Vec<T> vwant{100, {}};
      for (auto& [i, x] : u.e) vwant.e[i] = f(x);
      CHECK(test::compare(test::to_ref(wg), vwant) == "");
    }
  }
  // a bound binary operator, as PageRank's scaling
  const auto A = test::random_mat<T>(60, 60, 0.1, Shape::uniform, 499);
  SparseMatrix<T> Cg(60, 60, test::gpu());
  apply(Cg, test::from_ref(A, test::gpu()), binop::times<T>{}, T(1));
  const auto times = ref::binary<T>("times");
  ref::Mat<T> want{60, 60, {}};
  for (auto& [k, x] : A.e) want.e[k] = times(x, T(1));
  CHECK(test::compare(test::to_ref(Cg), want) == "");
  // an empty matrix
  SparseMatrix<T> E(0, 0, test::gpu()), Eout(0, 0, test::gpu());
  apply(Eout, E, unop::identity<T>{});
  CHECK(Eout.nvals() == 0);
}
