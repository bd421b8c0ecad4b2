// Run-time semirings on the GPU: a JIT semiring equal to each built-in gives results
// identical to the built-in GPU mxm (the dispatcher's pick for every semiring, every JIT
// variant forced for two; both layouts; N across off-by-one sizes; small integer values
// so that every type is exact),
// int32 (min, +) and (plus, pair) against the CPU's interpretation of the same text, the
// write-back (accumulator, transposed A), the trace, a forced variant outside the JIT
// set, and one shared graph of >= 100k entries.
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

}  // namespace

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
  Options bad;
  bad.variant = "merge_path";
  CHECK_THROWS_WITH(mxm(C, Ah.to(gpu), Bh.to(gpu), plus_pair, bad), geblas::test::contains("not compiled for run-time"));
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
