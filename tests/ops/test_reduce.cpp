// reduce on test::device() against the reference: every built-in monoid and type, rows
// and (transpose_a) columns of sparse and dense matrices into dense and sparse vectors
// under every mask case, and whole matrices / vectors to a scalar; small shapes and
// larger ones with a heavy row, empty rows or no entries.
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/ops_harness.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

const std::vector<std::pair<std::string, MonoidId>> monoids = {
    {"plus", MonoidId::plus}, {"times", MonoidId::times}, {"min", MonoidId::min},   {"max", MonoidId::max},
    {"lor", MonoidId::lor},   {"land", MonoidId::land},   {"lxor", MonoidId::lxor}, {"any", MonoidId::any}};

// The rows of a Partial's entries: the candidates of an `any` reduction.
template <class T>
std::vector<std::vector<T>> row_terms(const ref::Partial<T>& A) {
  std::vector<std::vector<T>> terms(static_cast<std::size_t>(A.rows()));
  for (long long i = 0; i < A.rows(); ++i)
    for (long long j = 0; j < A.cols(); ++j)
      if (A.has(i, j)) terms[static_cast<std::size_t>(i)].push_back(A.v(i, j));
  return terms;
}

// A scalar `any` reduction may give any entry (the identity when there is none).
template <class T>
bool any_of_entries(T got, const ref::Partial<T>& A, T identity) {
  bool empty = true;
  for (long long i = 0; i < A.rows(); ++i)
    for (long long j = 0; j < A.cols(); ++j)
      if (A.has(i, j)) {
        empty = false;
        if (close(got, A.v(i, j), 0)) return true;
      }
  return empty && close(got, identity, 0);
}

// The reference's `any` is "first" (ref::monoid("any")), the CPU backend's choice, so
// there every check is exact; another device may keep any of the terms (compare_any).
template <class T>
void run_all(const std::vector<Dims>& dims, Shape shape, const char* accum_name, BinaryOpId accum_id,
             std::uint64_t seed) {
  int combo = 0;
  for (const auto& [name, id] : monoids) {
    const ref::Monoid<T> mon = ref::monoid<T>(name);
    const ref::Binary<T> accum = ref::binary<T>(accum_name);
    const bool any = name == "any";
    for (const Dims& d : dims) {
      for (MaskCase mc : all_mask_cases) {
        ++combo;
        ++seed;
        if (!in_sweep(combo)) continue;
        const bool use_accum = combo & 1, replace = combo & 2, ta = combo & 4, w_dense = combo & 8;
        Options o;
        o.replace = replace;
        o.transpose_a = ta;
        if (use_accum) o.accum = accum_of<T>(accum_id);
        const ref::Binary<T>* acc = use_accum ? &accum : nullptr;
        std::ostringstream where;
        where << "reduce " << name << " " << type_traits<T>::name << " m=" << d.m << " n=" << d.n
              << " shape=" << to_string(shape) << " mask=" << to_string(mc)
              << " accum=" << (use_accum ? accum_name : "none") << " replace=" << replace << " ta=" << ta
              << " w_dense=" << w_dense << " seed=" << seed << " on " << device().str();
        MaskHolder mh(mc, d.m, 1, true, seed + 2);
        o.mask = mh.mask;
        {
          auto [A, Ap] = random_matrix<T>(ta ? d.n : d.m, ta ? d.m : d.n, 0.2, seed, shape);
          auto [w, wp] = random_vector<T>(d.m, 0.4, w_dense, seed + 1);
          const ref::Partial<T> M = ta ? ref::transpose(Ap) : Ap;
          const auto want =
              ref::write_back(wp, ref::reduce_rows(M, mon), mh.allow, replace, acc, w_dense, mon.identity);
          detail::reduce_rows(w.storage(), A.storage(), id, o);
          INFO("sparse " << where.str());
          if (any) CHECK(compare_any(partial_of(w), want, wp, mh.allow, row_terms(M), acc) == "");
          else CHECK(compare_partial(partial_of(w), want, device_tol<T>()) == "");
        }
        {
          auto [A, Ap] = random_dense_matrix<T>(ta ? d.n : d.m, ta ? d.m : d.n, seed + 3,
                                                (combo & 16) ? Layout::col_major : Layout::row_major);
          auto [w, wp] = random_vector<T>(d.m, 0.4, w_dense, seed + 1);
          // A dense row always gives an entry: the identity when the row has no columns.
          ref::Partial<T> t(d.m, 1, mon.identity, true);
          const ref::Partial<T> M = ta ? ref::transpose(Ap) : Ap;
          const auto r = ref::reduce_rows(M, mon);
          for (Index i = 0; i < d.m; ++i)
            if (r.has(i, 0)) t.v(i, 0) = r.v(i, 0);
          const auto want = ref::write_back(wp, t, mh.allow, replace, acc, w_dense, mon.identity);
          detail::reduce_rows(w.storage(), A.storage(), id, o);
          INFO("dense " << where.str());
          if (any) CHECK(compare_any(partial_of(w), want, wp, mh.allow, row_terms(M), acc) == "");
          else CHECK(compare_partial(partial_of(w), want, device_tol<T>()) == "");
        }
      }
      // to a scalar
      auto [A, Ap] = random_matrix<T>(d.m, d.n, 0.2, ++seed, shape);
      auto [D, Dp] = random_dense_matrix<T>(d.m, d.n, ++seed);
      auto [u, up] = random_vector<T>(d.m, 0.4, combo & 1, ++seed);
      INFO("reduce scalar " << name << " " << type_traits<T>::name << " m=" << d.m << " n=" << d.n << " seed=" << seed
                            << " on " << device().str());
      const auto right = [&](T got, const ref::Partial<T>& P) {
        if (any && !device().is_cpu()) return any_of_entries(got, P, mon.identity);
        return close(got, ref::reduce_all(P, mon), device_tol<T>());
      };
      T got{};
      detail::reduce_scalar(&got, A.storage(), id);
      CHECK(right(got, Ap));
      detail::reduce_scalar(&got, D.storage(), id);
      CHECK(right(got, Dp));
      detail::reduce_scalar(&got, u.storage(), id);
      CHECK(right(got, up));
    }
  }
}

}  // namespace

TEST_CASE("reduce matches the reference for every monoid, type and mask", "[reduce]") {
  for_each_type([&]<class T>() { run_all<T>(sweep_dims, Shape::empty_rows, "plus", BinaryOpId::plus, 13000); });
}

// Rows longer than a warp and a block, a row holding half the entries, no entries, a
// single column; the min accumulator.
TEMPLATE_TEST_CASE("reduce on larger and skewed matrices", "[reduce]", bool, std::int32_t, std::int64_t, float,
                   double) {
  const std::vector<Dims> dims = {{20, 300}, {45, 33}, {45, 1}};
  std::uint64_t seed = 130000;
  for (Shape shape : {Shape::uniform, Shape::heavy_row, Shape::empty})
    run_all<TestType>(dims, shape, "min", BinaryOpId::min, seed += 100000);
}

TEST_CASE("reduce to a scalar over many entries (chunked on threads) and through the public templates", "[reduce]") {
  auto [A, Ap] = random_matrix<std::int64_t>(3000, 3000, 0.002, 77);
  CHECK(reduce(A, monoid::plus<std::int64_t>{}) == ref::reduce_all(Ap, ref::monoid<std::int64_t>("plus")));
  CHECK(reduce(A, monoid::min<std::int64_t>{}) == ref::reduce_all(Ap, ref::monoid<std::int64_t>("min")));
  CHECK(reduce(SparseMatrix<float>(4, 4, device()), monoid::min<float>{}) == std::numeric_limits<float>::infinity());
  auto [u, up] = random_vector<std::int64_t>(5000, 0.3, false, 78);
  CHECK(reduce(u, monoid::plus<std::int64_t>{}) == ref::reduce_all(up, ref::monoid<std::int64_t>("plus")));
  Vector<std::int64_t> w(3000, device());
  reduce(w, A, monoid::max<std::int64_t>{});
  CHECK(compare_partial(partial_of(w), ref::reduce_rows(Ap, ref::monoid<std::int64_t>("max"))) == "");
}
