// extract on test::device() against the reference: sub-matrices with all / sorted / unsorted /
// repeated index lists, sub-vectors, columns (and rows via transpose_a), all types,
// every mask case, accumulator and replace.
#include <random>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/ops_harness.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

// kind 0: all; 1: sorted subset; 2: unsorted with repeats; 3: empty list
std::vector<long long> make_list(int kind, Index bound, std::mt19937_64& rng, IndexList& list) {
  std::vector<long long> out;
  if (kind == 0 || bound == 0) {
    list = IndexList::all();
    for (Index i = 0; i < bound; ++i) out.push_back(i);
    return out;
  }
  if (kind == 1) {
    for (Index i = 0; i < bound; ++i)
      if (rng() % 2) out.push_back(i);
  } else if (kind == 2) {
    const Index len = 1 + static_cast<Index>(rng() % static_cast<std::uint64_t>(bound + 3));
    for (Index k = 0; k < len; ++k) out.push_back(static_cast<long long>(rng() % static_cast<std::uint64_t>(bound)));
  }
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
        const bool use_accum = combo & 1, replace = combo & 2, ta = combo & 4;
        const ref::Binary<T>* acc = use_accum ? &accum : nullptr;
        IndexList rows, cols;
        const auto r = make_list(static_cast<int>(rng() % 4), d.m, rng, rows);
        const auto c = make_list(static_cast<int>(rng() % 4), d.n, rng, cols);
        const Index om_ = static_cast<Index>(r.size()), on_ = static_cast<Index>(c.size());
        Options o;
        o.replace = replace;
        if (use_accum) o.accum = accum_of<T>(accum_id);
        std::ostringstream where;
        where << "extract " << type_traits<T>::name << " m=" << d.m << " n=" << d.n << " |rows|=" << om_
              << " |cols|=" << on_ << " mask=" << to_string(mc) << " shape=" << to_string(shape)
              << " accum=" << (use_accum ? accum_name : "none") << " replace=" << replace << " ta=" << ta
              << " seed=" << seed << " on " << device().str();
        {
          auto [A, Ap] = random_matrix<T>(ta ? d.n : d.m, ta ? d.m : d.n, 0.25, seed, shape);
          auto [C, Cp] = random_matrix<T>(om_, on_, 0.2, seed + 1);
          MaskHolder mh(mc, om_, on_, false, seed + 2);
          Options ox = o;
          ox.mask = mh.mask;
          ox.transpose_a = ta;
          const auto want =
              ref::write_back(Cp, ref::extract(ta ? ref::transpose(Ap) : Ap, r, c), mh.allow, replace, acc, false, T{});
          detail::extract(C.storage(), A.storage(), rows, cols, ox);
          INFO("matrix " << where.str());
          CHECK(compare_partial(partial_of(C), want) == "");
        }
        {
          auto [u, up] = random_vector<T>(d.m, 0.4, combo & 8, seed + 3);
          auto [w, wp] = random_vector<T>(om_, 0.3, combo & 16, seed + 4);
          MaskHolder mh(mc, om_, 1, true, seed + 5);
          Options ox = o;
          ox.mask = mh.mask;
          const auto want = ref::write_back(wp, ref::extract(up, r, {0}), mh.allow, replace, acc, w.is_dense(), T{});
          detail::extract(w.storage(), u.storage(), rows, ox);
          INFO("vector " << where.str() << " u_dense=" << u.is_dense());
          CHECK(compare_partial(partial_of(w), want) == "");
        }
        if (d.n > 0) {  // column j of op(A)
          const Index j = static_cast<Index>(rng() % static_cast<std::uint64_t>(d.n));
          auto [A, Ap] = random_matrix<T>(ta ? d.n : d.m, ta ? d.m : d.n, 0.25, seed + 6, shape);
          auto [w, wp] = random_vector<T>(om_, 0.3, combo & 32, seed + 7);
          MaskHolder mh(mc, om_, 1, true, seed + 8);
          Options ox = o;
          ox.mask = mh.mask;
          ox.transpose_a = ta;
          const auto want = ref::write_back(wp, ref::extract(ta ? ref::transpose(Ap) : Ap, r, {j}), mh.allow, replace,
                                            acc, w.is_dense(), T{});
          detail::extract_column(w.storage(), A.storage(), rows, j, ox);
          INFO("column " << j << " " << where.str());
          CHECK(compare_partial(partial_of(w), want) == "");
        }
      }
}

}  // namespace

TEST_CASE("extract matches the reference for every type, index list kind and mask", "[extract]") {
  for_each_type([&]<class T>() { run_all<T>(sweep_dims, 3, Shape::uniform, "plus", BinaryOpId::plus, 19000); });
}

// Larger operands (index lists past one thread block), a heavy row; another accumulator.
TEMPLATE_TEST_CASE("extract on larger and skewed operands", "[extract]", bool, std::int32_t, std::int64_t, float,
                   double) {
  run_all<TestType>({{60, 70}, {150, 1}}, 1, Shape::heavy_row, "max", BinaryOpId::max, 190000);
}
