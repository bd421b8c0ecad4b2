// Run-time semirings on the GPU: a JIT semiring equal to each built-in gives results
// identical to the built-in GPU mxm (the dispatcher's pick for every semiring, every JIT
// variant forced for two; both layouts; N across off-by-one sizes; small integer values
// so that every type is exact),
// int32 (min, +) and (plus, pair) against the CPU's interpretation of the same text, the
// write-back (accumulator, transposed A), the trace, a forced variant outside the JIT
// set (the tensor-core ones), and one shared graph of >= 100k entries. merge_path, crc and
// cwm, which the dispatcher never picks, are forced against the same built-in variant on
// random and skewed matrices with fractional values, and an int32 (min, +) against the CPU.
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "geblas/io.hpp"
#include "geblas/jit.hpp"
#include "support/catch.hpp"
#include "support/data.hpp"

using namespace geblas;

namespace {

const Device gpu = Device::cuda(0);

template <class T>
SparseMatrix<T> random_sparse(Index m, Index k, std::uint64_t seed, Index long_row = 700) {
  std::mt19937_64 rng(seed);
  std::vector<Tuple<T>> t;
  std::uniform_int_distribution<int> val(-3, 3);
  for (Index i = 0; i < m; ++i) {
    if (i % 5 == 2) continue;  // empty rows
    const Index len = i == 1 ? std::min(long_row, k) : static_cast<Index>(rng() % 9);
    std::vector<char> used(static_cast<std::size_t>(k));
    for (Index e = 0; e < len; ++e) {
      const Index j = i == 1 ? e : static_cast<Index>(rng() % static_cast<std::uint64_t>(k));
      if (used[static_cast<std::size_t>(j)]) continue;
      used[static_cast<std::size_t>(j)] = 1;
      t.push_back({i, j, static_cast<T>(val(rng))});
    }
  }
  return SparseMatrix<T>::from_tuples(m, k, t);
}

template <class T>
DenseMatrix<T> random_dense(Index k, Index n, std::uint64_t seed, Layout layout) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> val(-3, 3);
  std::vector<T> v(static_cast<std::size_t>(k * n));
  for (std::size_t x = 0; x < v.size(); ++x) v[x] = static_cast<T>(val(rng));
  return layout == Layout::row_major ? DenseMatrix<T>::from_row_major(k, n, v) : DenseMatrix<T>::from_col_major(k, n, v);
}

template <class T>
bool same(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) return (x != x && y != y) || x == y;
  else return x == y;
}

template <class T>
void check_equal_to_builtins(Index m, Index k, Index n, Layout layout) {
  const auto A = random_sparse<T>(m, k, 11 + static_cast<std::uint64_t>(n)).to(gpu);
  const auto B = random_dense<T>(k, n, 29 + static_cast<std::uint64_t>(n), layout).to(gpu);
  std::vector<std::string> variants = jit::variants();
  variants.insert(variants.begin(), "");
  for (int id = 0; id < semiring_count; ++id) {
    const auto s = static_cast<SemiringId>(id);
    if (!supports_semiring(s, type_id<T>)) continue;
    const SemiringInfo& info = semiring_info(s);
    if (info.add == MonoidId::any) continue;
    DenseMatrix<T> want(m, n, gpu);
    detail::mxm(want.storage(), A.storage(), B.storage(), s, {});
    const auto w = want.to(Device::cpu()).to_row_major();
    const jit::semiring<T> js(std::string(to_string(info.add)), std::string(to_string(info.mul)));
    // Every variant forced for plus_times and min_plus; the dispatcher's pick for the rest
    // (each (semiring, variant, vector width, layout) is one NVRTC compile, ~0.2-0.5 s).
    const bool all = s == SemiringId::plus_times || s == SemiringId::min_plus;
    for (const std::string& v : all ? variants : std::vector<std::string>{""}) {
      DenseMatrix<T> got = DenseMatrix<T>::constant(m, n, T(7), gpu, layout);  // poisoned
      Options o;
      o.variant = v;
      mxm(got, A, B, js, o);
      const auto g = got.to(Device::cpu()).to_row_major();
      for (std::size_t x = 0; x < w.size(); ++x) {
        INFO(to_string(s) << " over " << to_string(type_id<T>) << " variant '" << v << "' m=" << m << " n=" << n
                          << (layout == Layout::row_major ? " row-major" : " col-major") << " entry " << x);
        REQUIRE(same(w[x], g[x]));
      }
    }
  }
}

// A skewed matrix: three hub rows (k, k / 2 and k / 3 entries: many merge_path slices and
// GE-SpMM cache tiles each), every third row empty, a run of empty rows at the end, the
// rest 0-6 entries. Values are fractional (so that the order of a plus_times sum shows in
// its rounding) unless `integers` (exact in every order).
template <class T>
SparseMatrix<T> skewed_sparse(Index m, Index k, std::uint64_t seed, bool integers) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> frac(-2.0, 2.0);
  std::uniform_int_distribution<int> whole(-3, 3);
  std::vector<Tuple<T>> t;
  for (Index i = 0; i < m; ++i) {
    if (i % 3 == 2 || i >= m - 7) continue;
    const Index len = i == 1 ? k : i == m / 2 ? k / 2 : i == m / 3 ? k / 3 : static_cast<Index>(rng() % 7);
    std::vector<char> used(static_cast<std::size_t>(k));
    for (Index e = 0; e < len; ++e) {
      const Index j = len > 6 ? e * (k / len) : static_cast<Index>(rng() % static_cast<std::uint64_t>(k));
      if (used[static_cast<std::size_t>(j)]) continue;
      used[static_cast<std::size_t>(j)] = 1;
      t.push_back({i, j, static_cast<T>(integers ? whole(rng) : frac(rng))});
    }
  }
  return SparseMatrix<T>::from_tuples(m, k, t);
}

template <class T>
DenseMatrix<T> fractional_dense(Index k, Index n, std::uint64_t seed, Layout layout) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> frac(-2.0, 2.0);
  std::vector<T> v(static_cast<std::size_t>(k * n));
  for (auto& x : v) x = static_cast<T>(frac(rng));
  return layout == Layout::row_major ? DenseMatrix<T>::from_row_major(k, n, v)
                                     : DenseMatrix<T>::from_col_major(k, n, v);
}

// The variants run-time semirings gained beside the dispatcher's: never its pick, reached
// by Options::variant only.
const std::vector<std::string> forced_only = {"merge_path", "crc", "cwm"};

// C (poisoned first) = A (+).(x) B with `variant` forced, for the built-in `id` and for the
// run-time `js` equal to it: the same kernel template in the same order, so every entry is
// bit-identical. The record must name the forced variant, and the result must not be the
// identity everywhere (a kernel that wrote nothing but identities would pass otherwise).
template <class T>
void check_forced_equal(const SparseMatrix<T>& A, const DenseMatrix<T>& B, SemiringId id, const jit::semiring<T>& js,
                        const std::string& variant, Layout layout, const std::string& what) {
  const Index m = A.nrows(), n = B.ncols();
  Options o;
  o.variant = variant;
  DenseMatrix<T> want = DenseMatrix<T>::constant(m, n, T(7), gpu, layout);
  detail::mxm(want.storage(), A.storage(), B.storage(), id, o);
  REQUIRE(last_dispatch().variant == variant);
  DenseMatrix<T> got = DenseMatrix<T>::constant(m, n, T(-7), gpu, layout);
  mxm(got, A, B, js, o);
  REQUIRE(last_dispatch().variant == variant);
  CHECK_THAT(last_dispatch().reason, geblas::test::contains("forced"));
  const auto w = want.to(Device::cpu()).to_row_major(), g = got.to(Device::cpu()).to_row_major();
  const T identity = visit_monoid<T>(semiring_info(id).add, [&]<class M>() { return T(M::identity()); });
  std::size_t informative = 0;
  for (std::size_t x = 0; x < w.size(); ++x) {
    INFO(what << ": " << js.name() << " vs " << to_string(id) << ", variant " << variant << ", " << m << " x "
              << A.ncols() << " x " << n << (layout == Layout::row_major ? " row-major" : " col-major") << ", entry "
              << x << " (row " << x / static_cast<std::size_t>(n) << ")");
    REQUIRE(same(w[x], g[x]));
    informative += !same(w[x], identity);
  }
  REQUIRE(informative > w.size() / 4);
}

}  // namespace

TEST_CASE("jit on the GPU: merge_path, crc and cwm forced give the built-in's bits", "[jit][gpu]") {
  // plus_times and min_plus by name are the semirings the test above forces onto every
  // variant (their images are reused); max_times is written out as text. N = 33 takes the
  // scalar kernels (not a multiple of the vector width), 64 the 16-byte vector ones.
  const jit::semiring<float> plus_times_f("plus", "times"), min_plus_f("min", "plus");
  const jit::semiring<float> max_times_f(jit::monoid{"a > b ? a : b", "-INFINITY"}, "a * b");
  const jit::semiring<double> plus_times_d("plus", "times"), min_plus_d("min", "plus");
  const jit::semiring<double> max_times_d(jit::monoid{"a > b ? a : b", "-INFINITY"}, "a * b");
  for (const bool skewed : {false, true}) {
    const std::string what = skewed ? "skewed (hub rows, empty rows)" : "random";
    for (const Layout layout : {Layout::row_major, Layout::col_major}) {
      // Fractional values: plus_times's rounding shows the order of its sum. The built-in's
      // column-major kernels take the generic operators (ops.cuh: RuntimeOps), where the
      // compiler may contract a * b + c differently from the run-time semiring's plain
      // operators, so column-major plus_times uses integer values (exact in any order).
      const bool exact = layout == Layout::col_major;
      const auto Af = (skewed ? skewed_sparse<float>(400, 900, 71, exact) : random_sparse<float>(400, 900, 73)).to(gpu);
      const auto Ad =
          (skewed ? skewed_sparse<double>(400, 900, 79, exact) : random_sparse<double>(400, 900, 83)).to(gpu);
      for (const Index n : {33, 64}) {
        const auto seed = 90 + static_cast<std::uint64_t>(n);
        const auto Bf =
            (exact ? random_dense<float>(900, n, seed, layout) : fractional_dense<float>(900, n, seed, layout)).to(gpu);
        const auto Bd =
            (exact ? random_dense<double>(900, n, seed, layout) : fractional_dense<double>(900, n, seed, layout))
                .to(gpu);
        const auto Bf_frac = fractional_dense<float>(900, n, seed + 1, layout).to(gpu);
        const auto Bd_frac = fractional_dense<double>(900, n, seed + 1, layout).to(gpu);
        for (const std::string& v : forced_only) {
          check_forced_equal(Af, Bf, SemiringId::plus_times, plus_times_f, v, layout, what);
          check_forced_equal(Af, Bf_frac, SemiringId::min_plus, min_plus_f, v, layout, what);
          check_forced_equal(Af, Bf_frac, SemiringId::max_times, max_times_f, v, layout, what);
          if (n == 64 ||
              layout == Layout::row_major) {  // double: the vector and scalar row-major kernels, one column-major
            check_forced_equal(Ad, Bd, SemiringId::plus_times, plus_times_d, v, layout, what);
            check_forced_equal(Ad, Bd_frac, SemiringId::min_plus, min_plus_d, v, layout, what);
            check_forced_equal(Ad, Bd_frac, SemiringId::max_times, max_times_d, v, layout, what);
          }
        }
      }
    }
  }
}

TEST_CASE("jit on the GPU: merge_path, crc and cwm with an int32 (min, +) match the CPU", "[jit][gpu]") {
  // The (min, +) text of the test below (its images are reused), on the skewed matrix.
  const jit::semiring<int> min_plus(jit::monoid{"a < b ? a : b", "2147483647"}, "a + b");
  const auto Ah = skewed_sparse<int>(300, 700, 97, true);
  for (const Layout layout : {Layout::row_major, Layout::col_major}) {
    for (const Index n : {5, 64}) {
      const auto Bh = random_dense<int>(700, n, 101, layout);
      DenseMatrix<int> want(300, n);
      mxm(want, Ah, Bh, min_plus);
      const auto w = want.to_row_major();
      const auto A = Ah.to(gpu);
      const auto B = Bh.to(gpu);
      for (const std::string& v : forced_only) {
        DenseMatrix<int> got = DenseMatrix<int>::constant(300, n, 7, gpu, layout);
        Options o;
        o.variant = v;
        mxm(got, A, B, min_plus, o);
        REQUIRE(last_dispatch().variant == v);
        const auto g = got.to(Device::cpu()).to_row_major();
        std::size_t finite = 0;
        for (std::size_t x = 0; x < w.size(); ++x) {
          INFO(v << " n=" << n << (layout == Layout::row_major ? " row-major" : " col-major") << " entry " << x);
          REQUIRE(w[x] == g[x]);
          finite += w[x] != std::numeric_limits<int>::max();
        }
        REQUIRE(finite > w.size() / 4);
      }
    }
  }
}

TEST_CASE("jit on the GPU: semirings equal to the built-ins give identical results", "[jit][gpu]") {
  for (const Index n : {1, 3, 32, 33, 64, 129}) {
    for (const Layout layout : {Layout::row_major, Layout::col_major}) {
      check_equal_to_builtins<float>(300, 800, n, layout);
      check_equal_to_builtins<int>(300, 800, n, layout);
    }
  }
  check_equal_to_builtins<double>(300, 800, 33, Layout::row_major);
  check_equal_to_builtins<std::int64_t>(300, 800, 17, Layout::row_major);
  check_equal_to_builtins<bool>(300, 800, 40, Layout::row_major);
  check_equal_to_builtins<bool>(300, 800, 64, Layout::row_major);  // 16 bools per 16-byte load
  check_equal_to_builtins<std::int64_t>(300, 800, 64, Layout::col_major);
}

TEST_CASE("jit on the GPU: int32 (min, +) and (plus, pair) match the CPU", "[jit][gpu]") {
  const jit::semiring<int> min_plus(jit::monoid{"a < b ? a : b", "2147483647"}, "a + b");
  const jit::semiring<int> plus_pair("plus", "1");
  // The add must be associative (the GPU folds in another order than the CPU): a max over
  // a multiply with several separately rounded float operations.
  const jit::semiring<float> odd(jit::monoid{"a > b ? a : b", "-INFINITY"}, "a * b - 0.37f * fabs(a) + b / 3.0f");
  // Division and remainder by zero, wrapping, conversions: defined the same way on both.
  const jit::semiring<int> defined(jit::monoid{"max(a, b)", "-2147483647 - 1"},
                                   "a / b + a % (b + 1) * 3 - abs(b) + (a > b ? 1.5 : 2) * fabs(b) + a * 1e9");
  for (const Index n : {1, 5, 63, 64, 65, 256}) {
    const auto Ah = random_sparse<int>(500, 400, 3 + static_cast<std::uint64_t>(n));
    const auto Bh = random_dense<int>(400, n, 5, Layout::row_major);
    const auto A = Ah.to(gpu);
    const auto B = Bh.to(gpu);
    for (const auto* s : {&min_plus, &plus_pair, &defined}) {
      std::vector<std::string> variants = jit::variants();
      variants.insert(variants.begin(), "");
      DenseMatrix<int> want(500, n);
      mxm(want, Ah, Bh, *s);
      const auto w = want.to_row_major();
      for (const std::string& v : variants) {
        DenseMatrix<int> got = DenseMatrix<int>::constant(500, n, 7, gpu);
        Options o;
        o.variant = v;
        mxm(got, A, B, *s, o);
        const auto g = got.to(Device::cpu()).to_row_major();
        for (std::size_t x = 0; x < w.size(); ++x) {
          INFO(s->name() << " variant '" << v << "' n=" << n << " entry " << x);
          REQUIRE(w[x] == g[x]);
        }
      }
    }
    // A float multiply: each operation rounded on its own on both sides, so exact.
    const auto Af = random_sparse<float>(500, 400, 9).to(gpu);
    const auto Bf = random_dense<float>(400, n, 13, Layout::row_major).to(gpu);
    DenseMatrix<float> want(500, n), got(500, n, gpu);
    mxm(want, Af.to(Device::cpu()), Bf.to(Device::cpu()), odd);
    mxm(got, Af, Bf, odd);
    const auto w = want.to_row_major(), g = got.to(Device::cpu()).to_row_major();
    for (std::size_t x = 0; x < w.size(); ++x) {
      INFO("odd float semiring n=" << n << " entry " << x);
      REQUIRE(w[x] == g[x]);
    }
  }
}

TEST_CASE("jit on the GPU: every variant on a small case", "[jit][gpu][sanitize]") {
  const jit::semiring<int> min_plus(jit::monoid{"a < b ? a : b", "2147483647"}, "a + b");
  const auto Ah = random_sparse<int>(70, 600, 41, /*long_row=*/600);  // a row cut into pieces
  for (const Index n : {8, 33}) {
    const auto Bh = random_dense<int>(600, n, 43, Layout::row_major);
    DenseMatrix<int> want(70, n);
    mxm(want, Ah, Bh, min_plus);
    const auto w = want.to_row_major();
    for (const std::string& v : jit::variants()) {
      DenseMatrix<int> got = DenseMatrix<int>::constant(70, n, 7, gpu);
      Options o;
      o.variant = v;
      mxm(got, Ah.to(gpu), Bh.to(gpu), min_plus, o);
      const auto g = got.to(Device::cpu()).to_row_major();
      for (std::size_t x = 0; x < w.size(); ++x) {
        INFO(v << " n=" << n << " entry " << x);
        REQUIRE(w[x] == g[x]);
      }
    }
  }
}

TEST_CASE("jit on the GPU: write-back, trace and forced variants", "[jit][gpu]") {
  const jit::semiring<int> plus_pair("plus", "pair");
  const auto Ah = random_sparse<int>(120, 120, 21);
  const auto Bh = random_dense<int>(120, 24, 22, Layout::row_major);
  Options o;
  o.accum = binop::plus<int>{};
  o.transpose_a = true;
  auto want = DenseMatrix<int>::constant(120, 24, 100);
  mxm(want, Ah, Bh, plus_pair, o);
  auto got = DenseMatrix<int>::constant(120, 24, 100, gpu);
  mxm(got, Ah.to(gpu), Bh.to(gpu), plus_pair, o);
  CHECK(want.to_row_major() == got.to(Device::cpu()).to_row_major());
  DenseMatrix<int> C(120, 24, gpu);
  mxm(C, Ah.to(gpu), Bh.to(gpu), plus_pair);
  const DispatchRecord r = last_dispatch();
  CHECK(r.backend == "cuda");
  CHECK_THAT(r.reason, geblas::test::contains("run-time"));
  // The tensor-core variants compute plus_times only: forcing one is an InvalidValue that says so.
  for (const char* tc : {"tc_window", "tc_window_all"}) {
    Options bad;
    bad.variant = tc;
    CHECK_THROWS_AS(mxm(C, Ah.to(gpu), Bh.to(gpu), plus_pair, bad), InvalidValue);
    CHECK_THROWS_WITH(mxm(C, Ah.to(gpu), Bh.to(gpu), plus_pair, bad),
                      geblas::test::contains("plus_times on tensor cores only"));
  }
  Options unknown;
  unknown.variant = "no_such_variant";
  CHECK_THROWS_WITH(mxm(C, Ah.to(gpu), Bh.to(gpu), plus_pair, unknown),
                    geblas::test::contains("there is no SpMM variant"));
}

TEST_CASE("jit on the GPU: a shared graph of >= 100k entries, max_times as text", "[jit][gpu]") {
  const std::string file = test::data_file("ca-AstroPh-lcc.mtx.gz");
  if (file.empty()) {
    WARN("SKIPPED: ca-AstroPh-lcc.mtx.gz not in " << test::data_dir());
    return;
  }
  const auto A = io::read_matrix_market<float>(file).to(gpu);
  REQUIRE(A.nvals() >= 100000);
  for (const Index n : {64, 512}) {
    const auto B = random_dense<float>(A.ncols(), n, 1, Layout::row_major).to(gpu);
    DenseMatrix<float> want(A.nrows(), n, gpu), got(A.nrows(), n, gpu);
    mxm(want, A, B, semiring::max_times<float>{});
    mxm(got, A, B, jit::semiring<float>("max", "times"));
    CHECK(want.to(Device::cpu()).to_row_major() == got.to(Device::cpu()).to_row_major());
  }
}
