// Run-time semirings (geblas/jit.hpp) without a GPU: the expression language (errors with
// their column, C's typing, the defined cases), JIT semirings equal to each built-in
// against the built-in CPU mxm element by element, a tropical (min, +) semiring on int32
// and a (plus, pair) counting semiring against oracles written here, and, where the
// library has CUDA, NVRTC itself (it needs no GPU or driver): compiling each variant, the
// disk cache (hit, truncated or corrupted file, concurrent writers) and NVRTC's log in
// the error for bad CUDA source.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "geblas/detail/spmm_variants.hpp"
#include "geblas/geblas.hpp"
#include "geblas/jit.hpp"
#include "support/catch.hpp"

using namespace geblas;
namespace fs = std::filesystem;

// Catch2 2.x has no SKIP: say why and leave the test case.
#define SKIP_OR_RETURN(why) \
  do {                      \
    WARN(why);              \
    return;                 \
  } while (0)

namespace {

// mul(a, b) through a 1 x 1 product whose add returns its second operand.
template <class T>
T eval_mul(const std::string& mul, T a, T b) {
  jit::semiring<T> s(jit::monoid{"b", "0"}, mul);
  auto A = SparseMatrix<T>::from_tuples(1, 1, std::vector<Tuple<T>>{{0, 0, a}});
  auto B = DenseMatrix<T>::from_row_major(1, 1, {b});
  DenseMatrix<T> C(1, 1);
  mxm(C, A, B, s);
  return C.to_row_major()[0];
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

struct Case {
  Index m, k, n;
  std::vector<Tuple<int>> tuples;
  std::vector<int> b;  // row-major k x n
};

// A random sparse matrix with empty rows and a long row, small integer values (exact in
// every type), and a dense B.
Case random_case(Index m, Index k, Index n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c{m, k, n, {}, {}};
  std::uniform_int_distribution<int> val(-4, 4), col(0, static_cast<int>(k - 1));
  for (Index i = 0; i < m; ++i) {
    const int len = i % 7 == 3 ? 0 : (i == 1 ? static_cast<int>(k) : static_cast<int>(rng() % 6));
    std::vector<bool> used(static_cast<std::size_t>(k));
    for (int e = 0; e < len; ++e) {
      const int j = i == 1 ? e : col(rng);
      if (used[static_cast<std::size_t>(j)]) continue;
      used[static_cast<std::size_t>(j)] = true;
      c.tuples.push_back({i, j, val(rng)});
    }
  }
  for (Index x = 0; x < k * n; ++x) c.b.push_back(val(rng));
  return c;
}

template <class T>
SparseMatrix<T> sparse_of(const Case& c) {
  std::vector<Tuple<T>> t;
  for (const auto& x : c.tuples) t.push_back({x.row, x.col, static_cast<T>(x.value)});
  return SparseMatrix<T>::from_tuples(c.m, c.k, t);
}
template <class T>
DenseMatrix<T> dense_of(const Case& c, Layout layout) {
  std::vector<T> v(c.b.begin(), c.b.end());
  auto B = DenseMatrix<T>::from_row_major(c.k, c.n, v);
  if (layout == Layout::row_major) return B;
  std::vector<T> cm(v.size());
  for (Index i = 0; i < c.k; ++i)
    for (Index j = 0; j < c.n; ++j) cm[static_cast<std::size_t>(j * c.k + i)] = v[static_cast<std::size_t>(i * c.n + j)];
  return DenseMatrix<T>::from_col_major(c.k, c.n, cm);
}

template <class T>
bool same_value(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) return (std::isnan(x) && std::isnan(y)) || x == y;
  else return x == y;
}

// Every built-in semiring defined over T (but any_second: `any` has no run-time form)
// written as names, against the built-in CPU product, element by element.
template <class T>
void check_builtins_equal(const Case& c, Layout layout) {
  const auto A = sparse_of<T>(c);
  const auto B = dense_of<T>(c, layout);
  int checked = 0;
  for (int id = 0; id < static_cast<int>(semiring_count); ++id) {
    const auto s = static_cast<SemiringId>(id);
    if (!supports_semiring(s, type_id<T>)) continue;
    const SemiringInfo& info = semiring_info(s);
    if (info.add == MonoidId::any) continue;
    const std::string add(to_string(info.add)), mul(to_string(info.mul));
    DenseMatrix<T> want(c.m, c.n), got(c.m, c.n);
    detail::mxm(want.storage(), A.storage(), B.storage(), s, {});
    mxm(got, A, B, jit::semiring<T>(add, mul));
    const auto w = want.to_row_major(), g = got.to_row_major();
    for (std::size_t x = 0; x < w.size(); ++x) {
      INFO(to_string(s) << " over " << to_string(type_id<T>) << " m=" << c.m << " n=" << c.n << " entry " << x);
      REQUIRE(same_value(w[x], g[x]));
    }
    ++checked;
  }
  REQUIRE(checked > 0);
}

}  // namespace

TEST_CASE("jit expressions: errors name the half, the column and the text", "[jit][cpu]") {
  auto bad = [](const std::string& mul) { return error_of([&] { jit::semiring<float>("plus", mul); }); };
  CHECK_THAT(bad("a + * b"), geblas::test::contains("column 5") && geblas::test::contains("multiply"));
  CHECK_THAT(bad("a + c"), geblas::test::contains("unknown name 'c'") && geblas::test::contains("column 5"));
  CHECK_THAT(bad("a % b"), geblas::test::contains("integer operands"));
  CHECK_THAT(bad("(a + b"), geblas::test::contains("expected ')'"));
  CHECK_THAT(bad("min(a)"), geblas::test::contains("two arguments"));
  CHECK_THAT(bad(""), geblas::test::contains("empty expression"));
  CHECK_THAT(bad("a b"), geblas::test::contains("unexpected 'b'"));
  CHECK_THAT(bad("1.5e"), geblas::test::contains("malformed exponent"));
  CHECK_THAT(error_of([] { jit::semiring<int>(jit::monoid{"a + b", "a"}, "a * b"); }),
             geblas::test::contains("identity") && geblas::test::contains("cannot use the operand 'a'"));
  CHECK_THAT(error_of([] { jit::semiring<int>("a + b", "a * b"); }), geblas::test::contains("needs its identity"));
  CHECK_THAT(error_of([] { jit::semiring<int>(jit::monoid{"a + b", "0"}, "sqrt(a)"); }),
             geblas::test::contains("unknown name 'sqrt'"));
  CHECK_NOTHROW(jit::semiring<double>(jit::monoid{"a > b ? a : b", "-INFINITY", "INFINITY"}, "a + b"));
}

TEST_CASE("jit expressions: nesting is bounded, with an error instead of a stack overflow", "[jit][cpu]") {
  auto repeat = [](const std::string& s, int n) {
    std::string r;
    for (int i = 0; i < n; ++i) r += s;
    return r;
  };
  // Within the limit of 256 levels: parsed and evaluated as written.
  CHECK(eval_mul<int>(repeat("(", 100) + "a - b" + repeat(")", 100), 7, 2) == 5);
  CHECK(eval_mul<int>("a" + repeat(" + a", 199), 3, 0) == 600);
  CHECK(eval_mul<int>(repeat("-", 200) + "a", 3, 0) == 3);
  // Beyond it, each way of nesting (each crashed the parser or the interpreter with a
  // stack overflow before the limit existed).
  auto bad = [](const std::string& mul) { return error_of([&] { jit::semiring<float>("plus", mul); }); };
  CHECK_THAT(bad(repeat("(", 5000) + "a"), geblas::test::contains("nested deeper than 256 levels"));
  CHECK_THAT(bad("a" + repeat("+a", 50000)), geblas::test::contains("nested deeper than 256 levels"));
  CHECK_THAT(bad(repeat("-", 50000) + "a"), geblas::test::contains("nested deeper than 256 levels"));
  CHECK_THAT(bad(repeat("a ? a : ", 300) + "a"), geblas::test::contains("nested deeper than 256 levels"));
  CHECK_THROWS_AS(jit::semiring<float>("plus", "a" + repeat(" * a", 300)), InvalidValue);
}

TEST_CASE("jit expressions: C's types and the defined cases", "[jit][cpu]") {
  const int imax = std::numeric_limits<int>::max(), imin = std::numeric_limits<int>::min();
  CHECK(eval_mul<int>("a + b", imax, 1) == imin);  // wraps
  CHECK(eval_mul<int>("a * b", 65536, 65536) == 0);
  CHECK(eval_mul<int>("-a", imin, 0) == imin);
  CHECK(eval_mul<int>("a / b", 7, 0) == imax);  // binop::div's rule
  CHECK(eval_mul<int>("a / b", -7, 0) == imin);
  CHECK(eval_mul<int>("a / b", 0, 0) == 0);
  CHECK(eval_mul<int>("a / b", imin, -1) == imin);
  CHECK(eval_mul<int>("a % b", 7, 0) == 0);
  CHECK(eval_mul<int>("a % b", -7, 3) == -1);      // C truncates
  CHECK(eval_mul<int>("a / 2.0", 7, 0) == 3);      // double, then truncation
  CHECK(eval_mul<int>("a * 1e10", 3, 0) == imax);  // saturates
  CHECK(eval_mul<int>("NAN + a", 3, 0) == 0);
  CHECK(eval_mul<int>("a < b ? a : b", 3, -2) == -2);
  CHECK(eval_mul<int>("a > 0 && b > 0 || !a", 0, -1) == 1);
  CHECK(eval_mul<int>("abs(a) + max(a, b) * min(a, b)", -3, 2) == 3 + 2 * -3);
  CHECK(eval_mul<std::int64_t>("a * b", std::int64_t{1} << 40, 3) == (std::int64_t{3} << 40));
  CHECK(eval_mul<std::int64_t>("a + 3000000000", 1, 0) == 3000000001);
  CHECK(eval_mul<float>("a / b", 1, 3) == 1.0f / 3.0f);  // float arithmetic, not double
  CHECK(eval_mul<float>("a / 3.0", 1, 0) == static_cast<float>(1.0 / 3.0));
  CHECK(eval_mul<float>("a * b + 0.1f", 3, 7) == 3.0f * 7.0f + 0.1f);
  CHECK(std::isinf(eval_mul<float>("-INFINITY", 0, 0)));
  CHECK(eval_mul<float>("fmin(a, b)", std::nanf(""), 2) == 2);
  CHECK(eval_mul<float>("fabs(a - b)", 2, 5) == 3);
  CHECK(eval_mul<double>("a / b", 1, 3) == 1.0 / 3.0);
  CHECK(eval_mul<bool>("a + b", true, true) == true);  // 2 converts to true
  CHECK(eval_mul<bool>("a - b", true, true) == false);
  CHECK(eval_mul<int>("a * 2 + b", 5, 1) == 11);    // precedence
  CHECK(eval_mul<int>("a - b - 1", 5, 1) == 3);     // left associative
  CHECK(eval_mul<int>("1 ? 2 : 0 ? 3 : 4", 0, 0) == 2);
}

TEST_CASE("jit semirings equal to each built-in match the built-in CPU mxm", "[jit][cpu]") {
  for (const Index n : {1, 5, 33}) {
    const Case c = random_case(41, 37, n, 1000 + static_cast<std::uint64_t>(n));
    for (const Layout layout : {Layout::row_major, Layout::col_major}) {
      check_builtins_equal<float>(c, layout);
      check_builtins_equal<double>(c, layout);
      check_builtins_equal<int>(c, layout);
      check_builtins_equal<std::int64_t>(c, layout);
      check_builtins_equal<bool>(c, layout);
    }
  }
}

TEST_CASE("jit tropical (min, +) on int32 and (plus, pair) against oracles", "[jit][cpu]") {
  const Case c = random_case(53, 29, 17, 7);
  const auto A = sparse_of<int>(c);
  const auto B = dense_of<int>(c, Layout::row_major);
  const int inf = std::numeric_limits<int>::max();
  // The oracle: loops over the tuples, min over k of a + b, +inf (INT_MAX) for no term.
  std::vector<long long> want(static_cast<std::size_t>(c.m * c.n), inf);
  std::vector<int> count(static_cast<std::size_t>(c.m), 0);
  for (const auto& t : c.tuples) {
    ++count[static_cast<std::size_t>(t.row)];
    for (Index j = 0; j < c.n; ++j) {
      auto& w = want[static_cast<std::size_t>(t.row * c.n + j)];
      w = std::min<long long>(w, t.value + c.b[static_cast<std::size_t>(t.col * c.n + j)]);
    }
  }
  for (const bool terminal : {false, true}) {
    // A terminal of -8 (the smallest possible a + b here) stops a sum early: same result.
    jit::semiring<int> min_plus(jit::monoid{"a < b ? a : b", "2147483647", terminal ? "-8" : ""}, "a + b");
    DenseMatrix<int> C(c.m, c.n);
    mxm(C, A, B, min_plus);
    const auto g = C.to_row_major();
    for (std::size_t x = 0; x < g.size(); ++x) {
      INFO("entry " << x << " terminal " << terminal);
      REQUIRE(g[x] == want[x]);
    }
  }
  jit::semiring<int> plus_pair("plus", "1");
  DenseMatrix<int> P(c.m, c.n);
  mxm(P, A, B, plus_pair);
  const auto p = P.to_row_major();
  for (Index i = 0; i < c.m; ++i)
    for (Index j = 0; j < c.n; ++j) REQUIRE(p[static_cast<std::size_t>(i * c.n + j)] == count[static_cast<std::size_t>(i)]);
  // With an accumulator and a transposed A: the library's write-back around the product.
  auto P2 = DenseMatrix<int>::constant(c.m, c.n, 100);
  Options o;
  o.accum = binop::plus<int>{};
  mxm(P2, A, B, plus_pair, o);
  const auto p2 = P2.to_row_major();
  for (Index i = 0; i < c.m; ++i)
    for (Index j = 0; j < c.n; ++j)
      REQUIRE(p2[static_cast<std::size_t>(i * c.n + j)] ==
              (count[static_cast<std::size_t>(i)] ? 100 + count[static_cast<std::size_t>(i)] : 100));
}

TEST_CASE("jit: a cuda_expr multiply is GPU-only, and a type mismatch is refused", "[jit][cpu]") {
  jit::semiring<float> s("plus", jit::cuda_expr{"__fmul_rn(a, b)"});
  auto A = SparseMatrix<float>::from_tuples(1, 1, std::vector<Tuple<float>>{{0, 0, 1.0f}});
  auto B = DenseMatrix<float>::from_row_major(1, 1, {2.0f});
  DenseMatrix<float> C(1, 1);
  CHECK_THAT(error_of([&] { mxm(C, A, B, s); }), geblas::test::contains("CUDA devices only"));
  const jit::Semiring& erased = jit::semiring<int>("plus", "times");
  CHECK_THAT(error_of([&] { detail::jit_mxm(C.storage(), A.storage(), B.storage(), erased, {}); }),
             geblas::test::contains("int32"));
}

TEST_CASE("jit: half and bfloat16 are refused at every entry, saying what to use instead", "[jit][cpu]") {
  // Run-time semirings have no 16-bit kernels; every way in must say so, naming the type.
  // The error names the type and both ways out (a float copy, a built-in semiring).
  const auto advises = [](const std::string& error, const std::string& type) {
    INFO(error);
    return error.find(type) != std::string::npos && error.find("convert") != std::string::npos &&
           error.find("jit::semiring<float>") != std::string::npos &&
           error.find("built-in semiring") != std::string::npos;
  };
  CHECK_THROWS_AS(jit::semiring<half>("plus", "times"), NotImplemented);
  CHECK(advises(error_of([] { jit::semiring<half>("plus", "times"); }), "float16"));
  CHECK(advises(error_of([] {
                  jit::semiring<bfloat16>(jit::monoid{"a > b ? a : b", "-INFINITY"}, "a + b");
                }),
                "bfloat16"));
  CHECK(advises(error_of([] { jit::semiring<half>("max", jit::cuda_expr{"a * b"}); }), "float16"));
  CHECK(advises(error_of([] { jit::Semiring(TypeId::bfloat16, "min", "plus"); }), "bfloat16"));
  // A float semiring with 16-bit operands (C, A or B): a DomainMismatch with the same advice.
  const jit::semiring<float> s("plus", "times");
  const auto Af = SparseMatrix<float>::from_tuples(2, 2, std::vector<Tuple<float>>{{0, 0, 1.0f}, {1, 1, 2.0f}});
  const auto Bf = DenseMatrix<float>::from_row_major(2, 2, {1, 2, 3, 4});
  DenseMatrix<float> Cf(2, 2);
  const auto Ah = convert<half>(Af);
  const auto Bb = convert<bfloat16>(Bf);
  DenseMatrix<half> Ch(2, 2);
  CHECK_THROWS_AS(detail::jit_mxm(Ch.storage(), Af.storage(), Bf.storage(), s, {}), DomainMismatch);
  const std::string c16 = error_of([&] { detail::jit_mxm(Ch.storage(), Af.storage(), Bf.storage(), s, {}); });
  CHECK(advises(c16, "C holds float16"));
  const std::string a16 = error_of([&] { detail::jit_mxm(Cf.storage(), Ah.storage(), Bf.storage(), s, {}); });
  CHECK(advises(a16, "A holds float16"));
  const std::string b16 = error_of([&] { detail::jit_mxm(Cf.storage(), Af.storage(), Bb.storage(), s, {}); });
  CHECK(advises(b16, "B holds bfloat16"));
  // The advice works: the float copies multiply.
  mxm(Cf, convert<float>(Ah), convert<float>(Bb), s);
  CHECK(Cf.to_row_major() == std::vector<float>{1, 2, 6, 8});
}

// ---- NVRTC and the disk cache (no GPU needed) ----------------------------------------

namespace {

// A fresh cache directory for one test, set in GEBLAS_JIT_CACHE.
struct ScratchCache {
  fs::path dir;
  explicit ScratchCache(const std::string& name) {
    dir = fs::temp_directory_path() / ("geblas-jit-test-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    setenv("GEBLAS_JIT_CACHE", dir.c_str(), 1);
    jit::clear_memory_cache();
  }
  ~ScratchCache() {
    std::error_code ec;
    fs::remove_all(dir, ec);
    unsetenv("GEBLAS_JIT_CACHE");
  }
  std::vector<fs::path> files() const {
    std::vector<fs::path> out;
    if (fs::exists(dir))
      for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
    return out;
  }
};

using Source = jit::CompileInfo::Source;

}  // namespace

TEST_CASE("jit NVRTC: every variant compiles; memory and disk hits", "[jit][cpu][nvrtc]") {
  if (!cuda_compiled()) SKIP_OR_RETURN("libgeblas.so built without CUDA: no NVRTC");
  ScratchCache cache("hits");
  jit::semiring<float> s("max", "a * b");
  for (const std::string& v : jit::variants()) {
    // Every variant with 16-byte vectors; the scalar and column-major instances of two.
    std::vector<std::pair<int, bool>> sets = {{4, true}};
    if (v == "row_split" || v == "nnz_split_rows_long" || v == "merge_path")
      sets.insert(sets.end(), {{1, true}, {1, false}});
    if (v == "crc" || v == "cwm") sets.emplace_back(1, false);
    for (const auto& [width, row_major] : sets) {
      INFO(v << " V=" << width << " row_major=" << row_major);
      const auto first = jit::compile(s, v, 90, width, row_major);
      CHECK(first.source == Source::compiled);
      CHECK(!first.cache_file.empty());
      CHECK(fs::exists(first.cache_file));
      CHECK(jit::compile(s, v, 90, width, row_major).source == Source::memory);
    }
  }
  // crc and cwm read one column per lane: every vector width shares the scalar image.
  CHECK(jit::compile(s, "crc", 90, 1, true).source == Source::memory);
  CHECK(jit::compile(s, "cwm", 90, 2, true).source == Source::memory);
  CHECK(jit::compile(s, "merge_path", 90, 2, true).source == Source::compiled);  // merge_path's vectors do count
  jit::clear_memory_cache();
  const auto disk = jit::compile(s, "row_split", 90, 4, true);
  CHECK(disk.source == Source::disk);
  CHECK(jit::compile(s, "row_split", 80, 4, true).source == Source::compiled);  // another architecture
  // int32 tropical and bool logical semirings compile too.
  CHECK_NOTHROW(jit::compile(jit::semiring<int>(jit::monoid{"min(a, b)", "2147483647"}, "a + b"), "row_pieces", 90, 4));
  CHECK_NOTHROW(jit::compile(jit::semiring<bool>("lor", "land"), "row_group", 90, 16));
  CHECK_NOTHROW(jit::compile(jit::semiring<std::int64_t>("plus", "pair"), "row_split", 90, 2));
  CHECK_NOTHROW(jit::compile(jit::semiring<double>("min", "a / b + fabs(a)"), "row_split", 90, 2));
  // Every construct of the grammar, in each value type (the emitter's output must compile).
  const std::string every = "a / b + a % 3 * (b - 1) - abs(b) + (a > b ? 1.5f : 2) * fabs(b) + min(a, 2) - "
                            "max(b, -1) + fmin(a, b) + fmax(a, 0.5) + !a + (a <= b || a != 3 && b >= 0) - -a";
  const std::string every_float = "a / b + (b - 1) - abs(b) + (a > b ? 1.5f : 2) * fabs(b) + min(a, 2) - "
                                  "max(b, -1) + fmin(a, b) + fmax(a, 0.5) + !a + (a <= b || a != 3 && b >= 0) - -a + "
                                  "INFINITY * 0 + NAN";
  CHECK_NOTHROW(jit::compile(jit::semiring<int>(jit::monoid{"max(a, b)", "-2147483647 - 1"}, every), "nnz_split", 90, 4));
  CHECK_NOTHROW(jit::compile(jit::semiring<std::int64_t>("plus", every + " + 3000000000"), "row_group", 90, 2));
  CHECK_NOTHROW(jit::compile(jit::semiring<bool>("lor", every), "row_pieces", 90, 16));
  CHECK_NOTHROW(jit::compile(jit::semiring<float>("max", every_float), "nnz_split_rows_long", 90, 4));
  CHECK_NOTHROW(
      jit::compile(jit::semiring<double>(jit::monoid{"a + b", "0.0"}, every_float), "row_split", 90, 1, false));
  CHECK_NOTHROW(
      jit::compile(jit::semiring<int>(jit::monoid{"max(a, b)", "-2147483647 - 1"}, every), "merge_path", 90, 4));
  CHECK_NOTHROW(jit::compile(jit::semiring<bool>("lor", every), "crc", 90, 1, false));
  CHECK_NOTHROW(jit::compile(jit::semiring<std::int64_t>("min", every), "cwm", 90, 1));
  // The tensor-core variants compute plus_times only; an unknown name is not a variant.
  for (const char* tc : {"tc_window", "tc_window_all"})
    CHECK_THAT(error_of([&] { jit::compile(s, tc, 90, 4); }),
               geblas::test::contains(std::string("'") + tc + "' computes plus_times on tensor cores only") &&
                   geblas::test::contains("merge_path, crc, cwm"));
  CHECK_THAT(error_of([&] { jit::compile(s, "no_such_variant", 90, 4); }),
             geblas::test::contains("there is no SpMM variant 'no_such_variant'"));
}

TEST_CASE("jit NVRTC: run-time semirings cover every exact built-in variant", "[jit][cpu][nvrtc]") {
  if (!cuda_compiled()) SKIP_OR_RETURN("libgeblas.so built without CUDA: no NVRTC");
  // jit::variants() reads the one variant table (src/cuda/spmm/variants.hpp): every exact
  // built-in variant, so a run-time semiring can be forced onto each.
  const std::vector<std::string> builtin = detail::cuda_spmm_variant_names(), jitted = jit::variants();
  REQUIRE(!builtin.empty());
  for (const std::string& v : builtin) {
    INFO(v);
    CHECK(std::find(jitted.begin(), jitted.end(), v) != jitted.end());
  }
  CHECK(jitted.size() == builtin.size());
}

TEST_CASE("jit disk cache: truncated and corrupted files are recompiled", "[jit][cpu][nvrtc]") {
  if (!cuda_compiled()) SKIP_OR_RETURN("libgeblas.so built without CUDA: no NVRTC");
  ScratchCache cache("corrupt");
  jit::semiring<int> s(jit::monoid{"a < b ? a : b", "2147483647"}, "a + b");
  const auto first = jit::compile(s, "row_split", 90, 4);
  REQUIRE(first.source == Source::compiled);
  const auto size = fs::file_size(first.cache_file);
  // Truncated (a writer killed half-way, if it had written in place).
  fs::resize_file(first.cache_file, size / 2);
  jit::clear_memory_cache();
  CHECK(jit::compile(s, "row_split", 90, 4).source == Source::compiled);
  CHECK(fs::file_size(first.cache_file) == size);  // rewritten whole
  // One flipped byte in the cubin: the checksum fails.
  {
    std::fstream f(first.cache_file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 100));
    char x = 0;
    f.read(&x, 1);
    f.seekp(static_cast<std::streamoff>(size - 100));
    x = static_cast<char>(x ^ 0x5a);
    f.write(&x, 1);
  }
  jit::clear_memory_cache();
  CHECK(jit::compile(s, "row_split", 90, 4).source == Source::compiled);
  jit::clear_memory_cache();
  CHECK(jit::compile(s, "row_split", 90, 4).source == Source::disk);
  // Garbage of the right size.
  {
    std::ofstream f(first.cache_file, std::ios::binary | std::ios::trunc);
    f << std::string(size, 'x');
  }
  jit::clear_memory_cache();
  CHECK(jit::compile(s, "row_split", 90, 4).source == Source::compiled);
}

TEST_CASE("jit disk cache: concurrent writers (processes and threads)", "[jit][cpu][nvrtc]") {
  if (!cuda_compiled()) SKIP_OR_RETURN("libgeblas.so built without CUDA: no NVRTC");
  ScratchCache cache("writers");
  jit::semiring<float> s(jit::monoid{"a > b ? a : b", "-INFINITY"}, "a + b");
  // Four processes compile and write the same kernel set at once.
  std::vector<pid_t> kids;
  for (int i = 0; i < 4; ++i) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int rc = 1;
      try {
        rc = jit::compile(s, "row_pieces", 90, 4).source == Source::memory ? 1 : 0;
      } catch (...) {
      }
      _exit(rc);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  // Threads of one process, on two kernel sets.
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      try {
        jit::compile(s, i % 2 ? "row_split" : "row_group", 90, 1, false);
      } catch (...) {
        ++failures;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(failures == 0);
  jit::clear_memory_cache();
  CHECK(jit::compile(s, "row_pieces", 90, 4).source == Source::disk);
  CHECK(jit::compile(s, "row_split", 90, 1, false).source == Source::disk);
  CHECK(jit::compile(s, "row_group", 90, 1, false).source == Source::disk);
  for (const auto& f : cache.files()) CHECK(f.extension() == ".cubin");  // no temporary left behind
  CHECK(cache.files().size() == 3);
}

TEST_CASE("jit NVRTC: bad CUDA source gives an error carrying NVRTC's log", "[jit][cpu][nvrtc]") {
  if (!cuda_compiled()) SKIP_OR_RETURN("libgeblas.so built without CUDA: no NVRTC");
  ScratchCache cache("bad");
  jit::semiring<float> s("plus", jit::cuda_expr{"no_such_function(a, b)"});
  const std::string e = error_of([&] { jit::compile(s, "row_split", 90, 4); });
  CHECK_THAT(e, geblas::test::contains("NVRTC log") && geblas::test::contains("no_such_function") && geblas::test::contains("undefined"));
  CHECK(cache.files().empty());
  jit::semiring<float> fine("plus", jit::cuda_expr{"__fmul_rn(a, b)"});
  CHECK(jit::compile(fine, "row_split", 90, 4).source == Source::compiled);
}

TEST_CASE("jit without CUDA: compile says so", "[jit][cpu]") {
  if (cuda_compiled()) SKIP_OR_RETURN("libgeblas.so has CUDA");
  CHECK_THAT(error_of([] { jit::compile(jit::semiring<float>("plus", "times"), "row_split", 90, 4); }),
             geblas::test::contains("without CUDA"));
}
