// reduce on the CPU against the reference: every built-in monoid and type, rows and
// (transpose_a) columns of sparse and dense matrices into dense and sparse vectors
// under every mask case, and whole matrices / vectors to a scalar.
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/ops_harness.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

const std::vector<std::pair<std::string, MonoidId>> monoids = {
    {"plus", MonoidId::plus}, {"times", MonoidId::times}, {"min", MonoidId::min}, {"max", MonoidId::max},
    {"lor", MonoidId::lor},   {"land", MonoidId::land},   {"lxor", MonoidId::lxor}, {"any", MonoidId::any}};

// The CPU backend's `any` keeps the first value it meets in storage order; so does the
// reference (ref::monoid("any") is "first"), which makes the check exact here.
template <class T>
void run_all() {
  std::uint64_t seed = 13000;
  int combo = 0;
  for (const auto& [name, id] : monoids) {
    const ref::Monoid<T> mon = ref::monoid<T>(name);
    const ref::Binary<T> accum = ref::binary<T>("plus");
    for (const Dims& d : sweep_dims) {
      for (MaskCase mc : all_mask_cases) {
        ++combo;
        ++seed;
        const bool use_accum = combo & 1, replace = combo & 2, ta = combo & 4, w_dense = combo & 8;
        Options o;
        o.replace = replace;
        o.transpose_a = ta;
        if (use_accum) o.accum = accum_of<T>(BinaryOpId::plus);
        const ref::Binary<T>* acc = use_accum ? &accum : nullptr;
        std::ostringstream where;
        where << "reduce " << name << " " << type_traits<T>::name << " m=" << d.m << " n=" << d.n
              << " mask=" << to_string(mc) << " accum=" << use_accum << " replace=" << replace << " ta=" << ta
              << " w_dense=" << w_dense << " seed=" << seed;
        MaskHolder mh(mc, d.m, 1, true, seed + 2);
        o.mask = mh.mask;
        {
          auto [A, Ap] = random_matrix<T>(ta ? d.n : d.m, ta ? d.m : d.n, 0.2, seed, Shape::empty_rows);
          auto [w, wp] = random_vector<T>(d.m, 0.4, w_dense, seed + 1);
          const auto want = ref::write_back(wp, ref::reduce_rows(ta ? ref::transpose(Ap) : Ap, mon), mh.allow, replace,
                                            acc, w_dense, mon.identity);
          detail::reduce_rows(w.storage(), A.storage(), id, o);
          INFO("sparse " << where.str());
          CHECK(compare_partial(partial_of(w), want) == "");
        }
        {
          auto [A, Ap] = random_dense_matrix<T>(ta ? d.n : d.m, ta ? d.m : d.n, seed + 3,
                                                (combo & 16) ? Layout::col_major : Layout::row_major);
          auto [w, wp] = random_vector<T>(d.m, 0.4, w_dense, seed + 1);
          // A dense row always gives an entry: the identity when the row has no columns.
          ref::Partial<T> t(d.m, 1, mon.identity, true);
          const auto r = ref::reduce_rows(ta ? ref::transpose(Ap) : Ap, mon);
          for (Index i = 0; i < d.m; ++i)
            if (r.has(i, 0)) t.v(i, 0) = r.v(i, 0);
          const auto want = ref::write_back(wp, t, mh.allow, replace, acc, w_dense, mon.identity);
          detail::reduce_rows(w.storage(), A.storage(), id, o);
          INFO("dense " << where.str());
          CHECK(compare_partial(partial_of(w), want) == "");
        }
      }
      // to a scalar
      auto [A, Ap] = random_matrix<T>(d.m, d.n, 0.2, ++seed);
      auto [D, Dp] = random_dense_matrix<T>(d.m, d.n, ++seed);
      auto [u, up] = random_vector<T>(d.m, 0.4, combo & 1, ++seed);
      INFO("reduce scalar " << name << " " << type_traits<T>::name << " m=" << d.m << " n=" << d.n << " seed=" << seed);
      T got{};
      detail::reduce_scalar(&got, A.storage(), id);
      CHECK(close(got, ref::reduce_all(Ap, mon), 0));
      detail::reduce_scalar(&got, D.storage(), id);
      CHECK(close(got, ref::reduce_all(Dp, mon), 0));
      detail::reduce_scalar(&got, u.storage(), id);
      CHECK(close(got, ref::reduce_all(up, mon), 0));
    }
  }
}

}  // namespace

TEST_CASE("reduce matches the reference for every monoid, type and mask", "[reduce][cpu]") {
  run_all<bool>();
  run_all<std::int32_t>();
  run_all<std::int64_t>();
  run_all<float>();
  run_all<double>();
}

TEST_CASE("reduce to a scalar over many entries (chunked on threads) and through the public templates",
          "[reduce][cpu]") {
  auto [A, Ap] = random_matrix<std::int64_t>(3000, 3000, 0.002, 77);
  CHECK(reduce(A, monoid::plus<std::int64_t>{}) == ref::reduce_all(Ap, ref::monoid<std::int64_t>("plus")));
  CHECK(reduce(A, monoid::min<std::int64_t>{}) == ref::reduce_all(Ap, ref::monoid<std::int64_t>("min")));
  CHECK(reduce(SparseMatrix<float>(4, 4), monoid::min<float>{}) == std::numeric_limits<float>::infinity());
  Vector<std::int64_t> w(3000);
  reduce(w, A, monoid::max<std::int64_t>{});
  CHECK(compare_partial(partial_of(w), ref::reduce_rows(Ap, ref::monoid<std::int64_t>("max"))) == "");
}
