// ewise_add / ewise_mult on test::device() against the reference: every built-in binary
// operator and type, sparse matrices (exact pattern; small and square, larger with a
// heavy row, empty rows or no entries), dense matrices (both layouts), vectors of every
// storage mix, every mask case, accumulators, replace, transposes.
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/ops_harness.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

const std::vector<std::pair<std::string, BinaryOpId>> binary_ops = {
    {"first", BinaryOpId::first},   {"second", BinaryOpId::second}, {"pair", BinaryOpId::pair},
    {"any", BinaryOpId::any},       {"plus", BinaryOpId::plus},     {"minus", BinaryOpId::minus},
    {"rminus", BinaryOpId::rminus}, {"times", BinaryOpId::times},   {"div", BinaryOpId::div},
    {"rdiv", BinaryOpId::rdiv},     {"min", BinaryOpId::min},       {"max", BinaryOpId::max},
    {"lor", BinaryOpId::lor},       {"land", BinaryOpId::land},     {"lxor", BinaryOpId::lxor},
    {"eq", BinaryOpId::eq},         {"ne", BinaryOpId::ne},         {"gt", BinaryOpId::gt},
    {"lt", BinaryOpId::lt},         {"ge", BinaryOpId::ge},         {"le", BinaryOpId::le}};

// Integer division and floating division by zero give inf / nan; both sides agree on
// them (close() compares nan with nan), so every operator runs on every type.
template <class T>
void run_all(const std::vector<Dims>& dims, Shape shape, const char* accum_name, BinaryOpId accum_id,
             std::uint64_t seed) {
  int combo = 0;
  for (const auto& [name, id] : binary_ops) {
    const ref::Binary<T> op = ref::binary<T>(name);
    const ref::Binary<T> accum = ref::binary<T>(accum_name);
    for (const Dims& d : dims)
      for (MaskCase mc : all_mask_cases) {
        ++combo;
        ++seed;
        if (!in_sweep(combo)) continue;
        const bool add = combo & 1, use_accum = combo & 2, replace = combo & 4, ta = combo & 8, tb = combo & 16;
        const detail::EwiseKind kind = add ? detail::EwiseKind::add : detail::EwiseKind::mult;
        Options o;
        o.replace = replace;
        if (use_accum) o.accum = accum_of<T>(accum_id);
        const ref::Binary<T>* acc = use_accum ? &accum : nullptr;
        std::ostringstream where;
        where << (add ? "ewise_add " : "ewise_mult ") << name << " " << type_traits<T>::name << " m=" << d.m
              << " n=" << d.n << " shape=" << to_string(shape) << " mask=" << to_string(mc)
              << " accum=" << (use_accum ? accum_name : "none") << " replace=" << replace << " ta=" << ta
              << " tb=" << tb << " seed=" << seed << " on " << device().str();
        {  // sparse matrices
          auto [A, Ap] = random_matrix<T>(ta ? d.n : d.m, ta ? d.m : d.n, 0.2, seed, shape);
          auto [B, Bp] = random_matrix<T>(tb ? d.n : d.m, tb ? d.m : d.n, 0.2, seed + 1);
          auto [C, Cp] = random_matrix<T>(d.m, d.n, 0.2, seed + 2);
          MaskHolder mh(mc, d.m, d.n, false, seed + 3);
          Options om = o;
          om.mask = mh.mask;
          om.transpose_a = ta;
          om.transpose_b = tb;
          const auto t = ref::ewise(ta ? ref::transpose(Ap) : Ap, tb ? ref::transpose(Bp) : Bp, op, add);
          const auto want = ref::write_back(Cp, t, mh.allow, replace, acc, false, T{});
          detail::ewise(C.storage(), A.storage(), B.storage(), id, kind, om);
          INFO("sparse " << where.str());
          CHECK(compare_partial(partial_of(C), want, device_tol<T>()) == "");
        }
        {  // dense matrices, mixed layouts
          auto [A, Ap] = random_dense_matrix<T>(d.m, d.n, seed + 4, Layout::col_major);
          auto [B, Bp] = random_dense_matrix<T>(d.m, d.n, seed + 5);
          auto [C, Cp] =
              random_dense_matrix<T>(d.m, d.n, seed + 6, (combo & 32) ? Layout::col_major : Layout::row_major);
          MaskHolder mh(mc, d.m, d.n, false, seed + 3);
          Options om = o;
          om.mask = mh.mask;
          const auto want = ref::write_back(Cp, ref::ewise(Ap, Bp, op, add), mh.allow, replace, acc, true, T{});
          detail::ewise(C.storage(), A.storage(), B.storage(), id, kind, om);
          INFO("dense " << where.str());
          CHECK(compare_partial(partial_of(C), want, device_tol<T>()) == "");
        }
        {  // vectors: u, v, w each dense or sparse
          auto [u, up] = random_vector<T>(d.m, 0.3, combo & 32, seed + 7);
          auto [v, vp] = random_vector<T>(d.m, 0.3, combo & 64, seed + 8);
          auto [w, wp] = random_vector<T>(d.m, 0.3, combo & 128, seed + 9);
          MaskHolder mh(mc, d.m, 1, true, seed + 10);
          Options om = o;
          om.mask = mh.mask;
          const auto want = ref::write_back(wp, ref::ewise(up, vp, op, add), mh.allow, replace, acc, w.is_dense(), T{});
          const bool was_dense = w.is_dense();
          detail::ewise(w.storage(), u.storage(), v.storage(), id, kind, om);
          INFO("vector " << where.str() << " u_dense=" << u.is_dense() << " v_dense=" << v.is_dense()
                         << " w_dense=" << was_dense);
          CHECK(w.is_dense() == was_dense);
          CHECK(compare_partial(partial_of(w), want, device_tol<T>()) == "");
        }
      }
  }
}

}  // namespace

TEST_CASE("ewise_add / ewise_mult match the reference for every operator, type and mask", "[ewise]") {
  for_each_type([&]<class T>() { run_all<T>(sweep_dims, Shape::uniform, "plus", BinaryOpId::plus, 9000); });
}

// Larger operands than the GPU's 32-wide tiles and warps, a row holding half the
// entries, empty rows, no entries at all; 300-long vectors; the min accumulator.
TEMPLATE_TEST_CASE("ewise on larger and skewed operands", "[ewise]", bool, std::int32_t, std::int64_t, float, double) {
  const std::vector<Dims> dims = {{70, 45}, {300, 2}};
  std::uint64_t seed = 90000;
  for (Shape shape : {Shape::heavy_row, Shape::empty_rows, Shape::empty})
    run_all<TestType>(dims, shape, "min", BinaryOpId::min, seed += 100000);
}

TEST_CASE("ewise through the public templates", "[ewise]") {
  auto [A, Ap] = random_matrix<float>(30, 20, 0.2, 1);
  auto [B, Bp] = random_matrix<float>(30, 20, 0.2, 2);
  SparseMatrix<float> C(30, 20, device());
  ewise_add(C, A, B, binop::min<float>{});
  CHECK(compare_partial(partial_of(C), ref::ewise(Ap, Bp, ref::binary<float>("min"), true)) == "");
  ewise_mult(C, A, B, binop::times<float>{});
  CHECK(compare_partial(partial_of(C), ref::ewise(Ap, Bp, ref::binary<float>("times"), false)) == "");
  // Aliasing: C = C + C.
  SparseMatrix<float> D = A;
  ewise_add(D, D, D, binop::plus<float>{});
  CHECK(compare_partial(partial_of(D), ref::ewise(Ap, Ap, ref::binary<float>("plus"), true)) == "");
}
