// apply on test::device() against the reference: every built-in unary operator (sqrt,
// exp and log of any value on floating point only: on integers they may cast nan / inf,
// which C++ leaves undefined; sqrt and exp of integers run on nonnegative values), every
// binary operator with a bound scalar, sparse and dense matrices and vectors, every mask
// case, accumulator, replace and transpose_a.
#include <algorithm>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/ops_harness.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

const std::vector<std::pair<std::string, UnaryOpId>> unary_ops = {
    {"identity", UnaryOpId::identity}, {"ainv", UnaryOpId::ainv}, {"minv", UnaryOpId::minv},
    {"abs", UnaryOpId::abs},           {"lnot", UnaryOpId::lnot}, {"one", UnaryOpId::one},
    {"sqrt", UnaryOpId::sqrt},         {"exp", UnaryOpId::exp},   {"log", UnaryOpId::log}};
const std::vector<std::pair<std::string, BinaryOpId>> bound_ops = {
    {"plus", BinaryOpId::plus},     {"minus", BinaryOpId::minus}, {"rminus", BinaryOpId::rminus},
    {"times", BinaryOpId::times},   {"div", BinaryOpId::div},     {"rdiv", BinaryOpId::rdiv},
    {"min", BinaryOpId::min},       {"max", BinaryOpId::max},     {"first", BinaryOpId::first},
    {"second", BinaryOpId::second}, {"gt", BinaryOpId::gt},       {"lxor", BinaryOpId::lxor}};

template <class T>
void check_one(const std::string& label, const detail::ApplyOp& op, const ref::Unary<T>& f, std::uint64_t seed,
               const Dims& d, MaskCase mc, int combo) {
  if (!in_sweep(combo)) return;
  const bool use_accum = combo & 1, replace = combo & 2, ta = combo & 4;
  const ref::Binary<T> accum = ref::binary<T>("max");
  const ref::Binary<T>* acc = use_accum ? &accum : nullptr;
  Options o;
  o.replace = replace;
  if (use_accum) o.accum = accum_of<T>(BinaryOpId::max);
  std::ostringstream where;
  where << "apply " << label << " " << type_traits<T>::name << " m=" << d.m << " n=" << d.n << " mask=" << to_string(mc)
        << " accum=" << use_accum << " replace=" << replace << " ta=" << ta << " seed=" << seed << " on "
        << device().str();
  // floating results such as exp(3) are compared with a relative tolerance
  const double tol = std::is_floating_point_v<T> ? std::max(1e-6, device_tol<T>()) : 0;
  {
    auto [A, Ap] = random_matrix<T>(ta ? d.n : d.m, ta ? d.m : d.n, 0.2, seed);
    auto [C, Cp] = random_matrix<T>(d.m, d.n, 0.2, seed + 1);
    MaskHolder mh(mc, d.m, d.n, false, seed + 2);
    Options om = o;
    om.mask = mh.mask;
    om.transpose_a = ta;
    const auto want =
        ref::write_back(Cp, ref::apply(ta ? ref::transpose(Ap) : Ap, f), mh.allow, replace, acc, false, T{});
    detail::apply(C.storage(), A.storage(), op, om);
    INFO("sparse " << where.str());
    CHECK(compare_partial(partial_of(C), want, tol) == "");
  }
  {
    auto [A, Ap] = random_dense_matrix<T>(ta ? d.n : d.m, ta ? d.m : d.n, seed + 3,
                                          (combo & 8) ? Layout::col_major : Layout::row_major);
    auto [C, Cp] = random_dense_matrix<T>(d.m, d.n, seed + 4);
    MaskHolder mh(mc, d.m, d.n, false, seed + 2);
    Options om = o;
    om.mask = mh.mask;
    om.transpose_a = ta;
    const auto want =
        ref::write_back(Cp, ref::apply(ta ? ref::transpose(Ap) : Ap, f), mh.allow, replace, acc, true, T{});
    detail::apply(C.storage(), A.storage(), op, om);
    INFO("dense " << where.str());
    CHECK(compare_partial(partial_of(C), want, tol) == "");
  }
  {
    auto [u, up] = random_vector<T>(d.m, 0.4, combo & 16, seed + 5);
    auto [w, wp] = random_vector<T>(d.m, 0.4, combo & 32, seed + 6);
    MaskHolder mh(mc, d.m, 1, true, seed + 7);
    Options om = o;
    om.mask = mh.mask;
    const auto want = ref::write_back(wp, ref::apply(up, f), mh.allow, replace, acc, w.is_dense(), T{});
    detail::apply(w.storage(), u.storage(), op, om);
    INFO("vector " << where.str() << " u_dense=" << u.is_dense());
    CHECK(compare_partial(partial_of(w), want, tol) == "");
  }
}

template <class T>
void run_all() {
  std::uint64_t seed = 11000;
  int combo = 0;
  for (const auto& [name, id] : unary_ops) {
    if (!std::is_floating_point_v<T> && (name == "sqrt" || name == "exp" || name == "log")) continue;
    for (const Dims& d : sweep_dims)
      for (MaskCase mc : all_mask_cases)
        check_one<T>(name, detail::ApplyOp{id, BinaryOpId::none, nullptr}, ref::unary<T>(name), seed += 10, d, mc,
                     ++combo);
  }
  for (const auto& [name, id] : bound_ops) {
    const T s = std::is_same_v<T, bool> ? T(1) : T(2 + static_cast<int>(combo % 3) - 2);  // 0, 1 or 2: div by 0 too
    const ref::Binary<T> g = ref::binary<T>(name);
    for (const Dims& d : sweep_dims)
      for (MaskCase mc : all_mask_cases)
        check_one<T>(
            name + "(x, s)", detail::ApplyOp{UnaryOpId::identity, id, &s}, [&](T x) { return g(x, s); }, seed += 10, d,
            mc, ++combo);
  }
}

}  // namespace

TEST_CASE("apply matches the reference for every operator, type and mask", "[apply]") {
  for_each_type([&]<class T>() { run_all<T>(); });
}

TEMPLATE_TEST_CASE("apply sqrt and exp to nonnegative integers, on a matrix with a heavy row", "[apply]", std::int32_t,
                   std::int64_t) {
  using T = TestType;
  std::uint64_t seed = 41000;
  for (const auto& [name, id] :
       std::vector<std::pair<std::string, UnaryOpId>>{{"sqrt", UnaryOpId::sqrt}, {"exp", UnaryOpId::exp}})
    for (MaskCase mc : all_mask_cases) {
      ++seed;
      // |x| of the small random values: sqrt stays real, exp(3) fits every integer type
      auto r = random_sparse<T>(50, 40, 0.2, Shape::heavy_row, seed);
      ref::Partial<T> Ap(50, 40);
      for (auto& t : r.tuples) {
        t.value = t.value < 0 ? T(-t.value) : t.value;
        Ap.set(t.row, t.col, t.value);
      }
      const SparseMatrix<T> A = r.geblas().to(device());
      auto [C, Cp] = random_matrix<T>(50, 40, 0.1, seed + 1);
      MaskHolder mh(mc, 50, 40, false, seed + 2);
      Options o;
      o.mask = mh.mask;
      detail::apply(C.storage(), A.storage(), detail::ApplyOp{id, BinaryOpId::none, nullptr}, o);
      const auto want = ref::write_back(Cp, ref::apply(Ap, ref::unary<T>(name)), mh.allow, false,
                                        static_cast<const ref::Binary<T>*>(nullptr), false, T{});
      INFO("apply " << name << " " << type_traits<T>::name << " mask=" << to_string(mc) << " seed=" << seed << " on "
                    << device().str());
      CHECK(compare_partial(partial_of(C), want) == "");
    }
}

TEST_CASE("apply through the public templates, in place", "[apply]") {
  auto [A, Ap] = random_matrix<double>(20, 30, 0.3, 5);
  apply(A, A, binop::times<double>{}, 0.85);
  CHECK(compare_partial(partial_of(A), ref::apply<double>(Ap, [](double x) { return x * 0.85; })) == "");
  Vector<float> v = Vector<float>::from_dense({-1, 2, -3}).to(device());
  apply(v, v, unop::abs<float>{});
  CHECK(v.to(Device::cpu()).to_std_vector() == std::vector<float>{1, 2, 3});
}
