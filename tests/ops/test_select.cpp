// select on test::device() against the reference: every position predicate with offsets
// below, on and above the diagonal (and row / column bounds inside larger matrices),
// every value predicate with several thresholds, all types, sparse matrices (uniform,
// a heavy row, no entries) and vectors (an n x 1 column: j = 0), every mask case.
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
void run_all(const std::vector<Dims>& dims, const std::vector<Index>& offsets, Shape shape, const char* accum_name,
             BinaryOpId accum_id, std::uint64_t seed) {
  int combo = 0;
  for (const auto& [name, id] : predicates)
    for (Index k : offsets)
      for (const Dims& d : dims)
        for (MaskCase mc : all_mask_cases) {
          ++combo;
          ++seed;
          if (!in_sweep(combo)) continue;
          const bool use_accum = combo & 1, replace = combo & 2, ta = combo & 4;
          const T thr = std::is_same_v<T, bool> ? T(k != 0) : T(k);
          const auto keep = ref::predicate<T>(name, k, thr);
          const ref::Binary<T> accum = ref::binary<T>(accum_name);
          const ref::Binary<T>* acc = use_accum ? &accum : nullptr;
          Options o;
          o.replace = replace;
          if (use_accum) o.accum = accum_of<T>(accum_id);
          const detail::SelectArgs args{id, k, &thr};
          std::ostringstream where;
          where << "select " << name << " k=" << k << " " << type_traits<T>::name << " m=" << d.m << " n=" << d.n
                << " shape=" << to_string(shape) << " mask=" << to_string(mc)
                << " accum=" << (use_accum ? accum_name : "none") << " replace=" << replace << " ta=" << ta
                << " seed=" << seed << " on " << device().str();
          {
            auto [A, Ap] = random_matrix<T>(ta ? d.n : d.m, ta ? d.m : d.n, 0.3, seed, shape);
            auto [C, Cp] = random_matrix<T>(d.m, d.n, 0.2, seed + 1);
            MaskHolder mh(mc, d.m, d.n, false, seed + 2);
            Options om = o;
            om.mask = mh.mask;
            om.transpose_a = ta;
            const auto want = ref::write_back(Cp, ref::select(ta ? ref::transpose(Ap) : Ap, keep), mh.allow, replace,
                                              acc, false, T{});
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

TEST_CASE("select matches the reference for every predicate, type and mask", "[select]") {
  const std::vector<Index> k = {-3, 0, 2};
  for_each_type([&]<class T>() { run_all<T>(sweep_dims, k, Shape::uniform, "min", BinaryOpId::min, 15000); });
}

// Matrices past one warp / block of rows, a heavy row, no entries; row and column
// bounds that cut them inside; the plus accumulator.
TEMPLATE_TEST_CASE("select on larger and skewed matrices", "[select]", bool, std::int32_t, std::int64_t, float,
                   double) {
  const std::vector<Dims> dims = {{80, 60}, {120, 1}};
  std::uint64_t seed = 150000;
  for (Shape shape : {Shape::heavy_row, Shape::empty})
    run_all<TestType>(dims, {-2, 3, 20, 23}, shape, "plus", BinaryOpId::plus, seed += 100000);
}

TEST_CASE("select through the public templates: strictly lower triangle, values above a threshold", "[select]") {
  auto [A, Ap] = random_matrix<double>(40, 40, 0.2, 3);
  SparseMatrix<double> L(40, 40, device());
  select(L, A, selectop::tril{-1});
  CHECK(compare_partial(partial_of(L), ref::select(Ap, ref::predicate<double>("tril", -1, 0.0))) == "");
  select(L, A, selectop::value_gt<double>{1.5});
  CHECK(compare_partial(partial_of(L), ref::select(Ap, ref::predicate<double>("value_gt", 0, 1.5))) == "");
}

// Vectors past the host's parallel threshold (2^15 entries), dense and sparse, so the
// compaction runs in several ranges; with no mask and no accumulator the result moves
// into w as it is, with a mask it goes through the full write-back.
TEST_CASE("select on long vectors", "[select]") {
  const Index n = 100003;
  std::uint64_t seed = 990000;
  for (const bool dense : {false, true})
    for (const auto& [name, id] : {predicates[4], predicates[12], predicates[14]})  // row_le, value_gt, nonzero
      for (const bool masked : {false, true}) {
        const float thr = 0.5f;
        const Index k = n / 3;
        auto [u, up] = random_vector<float>(n, 0.5, dense, ++seed);
        auto [w, wp] = random_vector<float>(n, 0.3, false, ++seed);
        MaskHolder mh(masked ? MaskCase::value : MaskCase::none, n, 1, true, ++seed);
        Options o;
        o.mask = mh.mask;
        const auto want = ref::write_back(wp, ref::select(up, ref::predicate<float>(name, k, thr)), mh.allow, false,
                                          static_cast<const ref::Binary<float>*>(nullptr), false, 0.0f);
        detail::select(w.storage(), u.storage(), detail::SelectArgs{id, k, &thr}, o);
        INFO(name << " dense u=" << dense << " masked=" << masked);
        CHECK(compare_partial(partial_of(w), want) == "");
      }
}
