// transpose on the CPU against the reference: sparse and dense matrices of every type
// and shape, every mask case, accumulator, replace, and transpose_a (a plain copy).
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/ops_harness.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

template <class T>
void run_all() {
  std::uint64_t seed = 17000;
  int combo = 0;
  const ref::Binary<T> accum = ref::binary<T>("minus");
  for (int rep = 0; rep < 4; ++rep)
    for (const Dims& d : sweep_dims)
      for (MaskCase mc : all_mask_cases) {
        ++combo;
        ++seed;
        const bool use_accum = combo & 1, replace = combo & 2, ta = combo & 4;
        const ref::Binary<T>* acc = use_accum ? &accum : nullptr;
        Options o;
        o.replace = replace;
        o.transpose_a = ta;
        if (use_accum) o.accum = accum_of<T>(BinaryOpId::minus);
        std::ostringstream where;
        where << "transpose " << type_traits<T>::name << " m=" << d.m << " n=" << d.n << " mask=" << to_string(mc)
              << " accum=" << use_accum << " replace=" << replace << " ta=" << ta << " seed=" << seed;
        MaskHolder mh(mc, d.m, d.n, false, seed + 2);
        o.mask = mh.mask;
        {
          auto [A, Ap] = random_matrix<T>(ta ? d.m : d.n, ta ? d.n : d.m, 0.2, seed);
          auto [C, Cp] = random_matrix<T>(d.m, d.n, 0.2, seed + 1);
          const auto want = ref::write_back(Cp, ta ? Ap : ref::transpose(Ap), mh.allow, replace, acc, false, T{});
          detail::transpose(C.storage(), A.storage(), o);
          INFO("sparse " << where.str());
          CHECK(compare_partial(partial_of(C), want) == "");
        }
        {
          auto [A, Ap] = random_dense_matrix<T>(ta ? d.m : d.n, ta ? d.n : d.m, seed + 3,
                                                (combo & 8) ? Layout::col_major : Layout::row_major);
          auto [C, Cp] = random_dense_matrix<T>(d.m, d.n, seed + 4);
          const auto want = ref::write_back(Cp, ta ? Ap : ref::transpose(Ap), mh.allow, replace, acc, true, T{});
          detail::transpose(C.storage(), A.storage(), o);
          INFO("dense " << where.str());
          CHECK(compare_partial(partial_of(C), want) == "");
        }
      }
}

}  // namespace

TEST_CASE("transpose matches the reference for every type and mask", "[transpose][cpu]") {
  run_all<bool>();
  run_all<std::int32_t>();
  run_all<std::int64_t>();
  run_all<float>();
  run_all<double>();
}

TEST_CASE("transposed() and transpose in place of a square matrix", "[transpose][cpu]") {
  auto [A, Ap] = random_matrix<float>(30, 50, 0.1, 8);
  CHECK(compare_partial(partial_of(transposed(A)), ref::transpose(Ap)) == "");
  auto [S, Sp] = random_matrix<float>(30, 30, 0.1, 9);
  transpose(S, S);
  CHECK(compare_partial(partial_of(S), ref::transpose(Sp)) == "");
}
