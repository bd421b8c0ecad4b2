// select on the CPU against the reference: every position predicate with offsets
// below, on and above the diagonal, every value predicate with several thresholds,
// all types, sparse matrices and vectors (an n x 1 column: j = 0), every mask case.
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/ops_harness.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

const std::vector<std::pair<std::string, SelectOpId>> predicates = {
    {"tril", SelectOpId::tril},         {"triu", SelectOpId::triu},         {"diag", SelectOpId::diag},
    {"offdiag", SelectOpId::offdiag},   {"row_le", SelectOpId::row_le},     {"row_gt", SelectOpId::row_gt},
    {"col_le", SelectOpId::col_le},     {"col_gt", SelectOpId::col_gt},     {"value_eq", SelectOpId::value_eq},
    {"value_ne", SelectOpId::value_ne}, {"value_lt", SelectOpId::value_lt}, {"value_le", SelectOpId::value_le},
    {"value_gt", SelectOpId::value_gt}, {"value_ge", SelectOpId::value_ge}, {"nonzero", SelectOpId::nonzero}};

template <class T>
void run_all() {
  std::uint64_t seed = 15000;
  int combo = 0;
  for (const auto& [name, id] : predicates)
    for (Index k : {-3, 0, 2})
      for (const Dims& d : sweep_dims)
        for (MaskCase mc : all_mask_cases) {
          ++combo;
          ++seed;
          const bool use_accum = combo & 1, replace = combo & 2, ta = combo & 4;
          const T thr = std::is_same_v<T, bool> ? T(k != 0) : T(k);
          const auto keep = ref::predicate<T>(name, k, thr);
          const ref::Binary<T> accum = ref::binary<T>("min");
          const ref::Binary<T>* acc = use_accum ? &accum : nullptr;
          Options o;
          o.replace = replace;
          if (use_accum) o.accum = accum_of<T>(BinaryOpId::min);
          const detail::SelectArgs args{id, k, &thr};
          std::ostringstream where;
          where << "select " << name << " k=" << k << " " << type_traits<T>::name << " m=" << d.m << " n=" << d.n
                << " mask=" << to_string(mc) << " accum=" << use_accum << " replace=" << replace << " ta=" << ta
                << " seed=" << seed;
          {
            auto [A, Ap] = random_matrix<T>(ta ? d.n : d.m, ta ? d.m : d.n, 0.3, seed);
            auto [C, Cp] = random_matrix<T>(d.m, d.n, 0.2, seed + 1);
            MaskHolder mh(mc, d.m, d.n, false, seed + 2);
            Options om = o;
            om.mask = mh.mask;
            om.transpose_a = ta;
            const auto want =
                ref::write_back(Cp, ref::select(ta ? ref::transpose(Ap) : Ap, keep), mh.allow, replace, acc, false, T{});
            detail::select(C.storage(), A.storage(), args, om);
            INFO("sparse " << where.str());
            CHECK(compare_partial(partial_of(C), want) == "");
          }
          {
            auto [u, up] = random_vector<T>(d.m, 0.5, combo & 8, seed + 3);
            auto [w, wp] = random_vector<T>(d.m, 0.3, combo & 16, seed + 4);
            MaskHolder mh(mc, d.m, 1, true, seed + 5);
            Options om = o;
            om.mask = mh.mask;
            const auto want = ref::write_back(wp, ref::select(up, keep), mh.allow, replace, acc, w.is_dense(), T{});
            detail::select(w.storage(), u.storage(), args, om);
            INFO("vector " << where.str() << " u_dense=" << u.is_dense());
            CHECK(compare_partial(partial_of(w), want) == "");
          }
        }
}

}  // namespace

TEST_CASE("select matches the reference for every predicate, type and mask", "[select][cpu]") {
  run_all<bool>();
  run_all<std::int32_t>();
  run_all<std::int64_t>();
  run_all<float>();
  run_all<double>();
}

TEST_CASE("select through the public templates: strictly lower triangle, values above a threshold", "[select][cpu]") {
  auto [A, Ap] = random_matrix<double>(40, 40, 0.2, 3);
  SparseMatrix<double> L(40, 40);
  select(L, A, selectop::tril{-1});
  CHECK(compare_partial(partial_of(L), ref::select(Ap, ref::predicate<double>("tril", -1, 0.0))) == "");
  select(L, A, selectop::value_gt<double>{1.5});
  CHECK(compare_partial(partial_of(L), ref::select(Ap, ref::predicate<double>("value_gt", 0, 1.5))) == "");
}
