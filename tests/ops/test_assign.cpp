// assign on test::device() against the reference (GrB_assign semantics: the mask has C's
// shape): matrix and scalar assign into sparse matrices, vector and scalar assign into
// dense and sparse vectors, all / sorted / unsorted unique index lists, all types,
// every mask case, accumulator and replace; repeated indices are rejected.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/ops_harness.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

// kind 0: all; 1: sorted subset; 2: shuffled subset; 3: empty
std::vector<long long> make_unique_list(int kind, Index bound, std::mt19937_64& rng, IndexList& list) {
  std::vector<long long> out;
  if (kind == 0) {
    list = IndexList::all();
    for (Index i = 0; i < bound; ++i) out.push_back(i);
    return out;
  }
  if (kind != 3)
    for (Index i = 0; i < bound; ++i)
      if (rng() % 2) out.push_back(i);
  if (kind == 2) std::shuffle(out.begin(), out.end(), rng);
  list = IndexList(std::vector<Index>(out.begin(), out.end()));
  return out;
}

template <class T>
void run_all(const std::vector<Dims>& dims, int reps, Shape shape, const char* accum_name, BinaryOpId accum_id,
             std::uint64_t seed) {
  int combo = 0;
  const ref::Binary<T> accum = ref::binary<T>(accum_name);
  for (int rep = 0; rep < reps; ++rep)
    for (const Dims& d : dims)
      for (MaskCase mc : all_mask_cases) {
        ++combo;
        ++seed;
        if (!in_sweep(combo)) continue;
        std::mt19937_64 rng(seed);
        const bool use_accum = combo & 1, replace = combo & 2, scalar = combo & 4, ta = combo & 8;
        const ref::Binary<T>* acc = use_accum ? &accum : nullptr;
        IndexList rows, cols;
        const auto r = make_unique_list(static_cast<int>(rng() % 4), d.m, rng, rows);
        const auto c = make_unique_list(static_cast<int>(rng() % 4), d.n, rng, cols);
        const Index sm = static_cast<Index>(r.size()), sn = static_cast<Index>(c.size());
        const T s = std::is_same_v<T, bool> ? T(1) : T(5);
        Options o;
        o.replace = replace;
        if (use_accum) o.accum = accum_of<T>(accum_id);
        std::ostringstream where;
        where << "assign " << type_traits<T>::name << " m=" << d.m << " n=" << d.n << " |rows|=" << sm
              << " |cols|=" << sn << " scalar=" << scalar << " mask=" << to_string(mc) << " shape=" << to_string(shape)
              << " accum=" << (use_accum ? accum_name : "none") << " replace=" << replace << " ta=" << ta
              << " seed=" << seed << " on " << device().str();
        {
          auto [C, Cp] = random_matrix<T>(d.m, d.n, 0.3, seed, shape);
          MaskHolder mh(mc, d.m, d.n, false, seed + 2);
          Options oa = o;
          oa.mask = mh.mask;
          ref::Partial<T> S(sm, sn, s, true);
          if (scalar) {
            detail::assign_scalar(C.storage(), &s, rows, cols, oa);
          } else {
            auto [A, Ap] = random_matrix<T>(ta ? sn : sm, ta ? sm : sn, 0.4, seed + 1, shape);
            S = ta ? ref::transpose(Ap) : Ap;
            oa.transpose_a = ta;
            detail::assign(C.storage(), A.storage(), rows, cols, oa);
          }
          const auto z = ref::assign_region(Cp, S, r, c, acc);
          const auto want =
              ref::write_back(Cp, z, mh.allow, replace, static_cast<const ref::Binary<T>*>(nullptr), false, T{});
          INFO("matrix " << where.str());
          CHECK(compare_partial(partial_of(C), want) == "");
        }
        {
          auto [w, wp] = random_vector<T>(d.m, 0.4, combo & 16, seed + 3);
          MaskHolder mh(mc, d.m, 1, true, seed + 4);
          Options oa = o;
          oa.mask = mh.mask;
          ref::Partial<T> S(sm, 1, s, true);
          if (scalar) {
            detail::assign_scalar(w.storage(), &s, rows, oa);
          } else {
            auto [u, up] = random_vector<T>(sm, 0.5, combo & 32, seed + 5);
            S = up;
            detail::assign(w.storage(), u.storage(), rows, oa);
          }
          const auto z = ref::assign_region(wp, S, r, {0}, acc);
          const auto want =
              ref::write_back(wp, z, mh.allow, replace, static_cast<const ref::Binary<T>*>(nullptr), w.is_dense(), T{});
          INFO("vector " << where.str() << " w_dense=" << w.is_dense());
          CHECK(compare_partial(partial_of(w), want) == "");
        }
      }
}

}  // namespace

TEST_CASE("assign matches the reference for every type, index list kind and mask", "[assign]") {
  for_each_type([&]<class T>() { run_all<T>(sweep_dims, 3, Shape::uniform, "max", BinaryOpId::max, 21000); });
}

// Larger operands (index lists past one thread block), a heavy row; another accumulator.
TEMPLATE_TEST_CASE("assign on larger and skewed operands", "[assign]", bool, std::int32_t, std::int64_t, float,
                   double) {
  run_all<TestType>({{50, 40}, {200, 1}}, 1, Shape::heavy_row, "min", BinaryOpId::min, 210000);
}

TEST_CASE("assign: the BFS level update through the public templates", "[assign]") {
  Vector<std::int32_t> levels = Vector<std::int32_t>::dense(10, -1, device());
  const bool on[2] = {true, true};
  Vector<bool> frontier =
      Vector<bool>::from_tuples(10, std::vector<Index>{2, 7}, std::span<const bool>(on, 2)).to(device());
  assign(levels, 3, IndexList::all(), {.mask = frontier});
  CHECK(levels.to(Device::cpu()).to_std_vector() == std::vector<std::int32_t>{-1, -1, 3, -1, -1, -1, -1, 3, -1, -1});
  CHECK_THROWS_AS(assign(levels, 1, IndexList{1, 4, 1}), InvalidIndex);
}
