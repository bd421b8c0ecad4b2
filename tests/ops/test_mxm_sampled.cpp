// The sampled dense x dense product (SDDMM) on test::device(): C<M> = op(A) (+).(x) op(B)
// with dense A and B, a sparse C and a sparse mask M, checked entry by entry against a
// host loop over M's entries (nothing of geblas's products): every built-in semiring
// family, every type, inner dimensions 0, 1 and across a cache line, both layouts of both
// operands, both transposes, structural and value masks, empty mask rows, an accumulator
// into an existing C, the fused elementwise ops (SampledOp) and the errors of the cases it
// refuses. Values are small integers, so every fold is exact in every type. Then float
// plus_times at the feature widths of graph attention (16 to 512) on random patterns with
// empty rows and one row of thousands of entries, against a double host loop.
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/catch.hpp"
#include "support/device.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

enum class Add { plus, max, min, lor };
enum class Mul { times, plus, pair, second, min, land };

struct Rule {
  const char* name;
  Add add;
  Mul mul;
};

template <class T>
T mul_of(Mul m, T a, T b) {
  switch (m) {
    case Mul::times: return static_cast<T>(a * b);
    case Mul::plus: return static_cast<T>(a + b);
    case Mul::pair: return T(1);
    case Mul::second: return b;
    case Mul::min: return a < b ? a : b;
    case Mul::land: return static_cast<T>(a && b);
  }
  return T{};
}

template <class T>
T add_of(Add op, T x, T y) {
  switch (op) {
    case Add::plus: return static_cast<T>(x + y);
    case Add::max: return x > y ? x : y;
    case Add::min: return x < y ? x : y;
    case Add::lor: return static_cast<T>(x || y);
  }
  return T{};
}

// One case's operands: A is m x k (or k x m when transposed), B is k x n (or n x k).
struct Shape {
  Index m, n, k;
  Layout a_layout, b_layout;
  bool transpose_a, transpose_b, structural;
};

template <class T>
DenseMatrix<T> random_dense(Index rows, Index cols, Layout layout, std::mt19937_64& rng, int lowest = 0) {
  std::uniform_int_distribution<int> v(lowest, 3);
  std::vector<T> vals(static_cast<std::size_t>(rows * cols));
  for (std::size_t p = 0; p < vals.size(); ++p) vals[p] = static_cast<T>(v(rng));  // vector<bool> has no T&
  return layout == Layout::row_major ? DenseMatrix<T>::from_row_major(rows, cols, vals)
                                     : DenseMatrix<T>::from_col_major(rows, cols, vals);
}

// M: about a third of the entries, row 1 empty, row 2 full; values 0..2 (a value mask
// skips the zeros).
template <class T>
SparseMatrix<T> random_mask(Index m, Index n, std::mt19937_64& rng) {
  std::vector<Tuple<T>> t;
  std::uniform_int_distribution<int> pick(0, 2), val(0, 2);
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j)
      if (i != 1 && (i == 2 || pick(rng) == 0)) t.push_back({i, j, static_cast<T>(val(rng))});
  return SparseMatrix<T>::from_tuples(m, n, t);
}

template <class T>
std::map<std::pair<Index, Index>, T> entries_of(const SparseMatrix<T>& M) {
  std::map<std::pair<Index, Index>, T> out;
  for (const auto& t : M.to(Device::cpu()).extract_tuples()) out[{t.row, t.col}] = t.value;
  return out;
}

// Calls f with the built-in semiring named `name` for T.
template <class T, class F>
void with_rule(const std::string& name, F f) {
  if constexpr (std::is_same_v<T, bool>) {
    if (name == "lor_land") return f(semiring::lor_land<bool>{});
  } else {
    if (name == "plus_times") return f(semiring::plus_times<T>{});
    if (name == "max_times") return f(semiring::max_times<T>{});
    if (name == "min_plus") return f(semiring::min_plus<T>{});
    if (name == "max_plus") return f(semiring::max_plus<T>{});
    if (name == "max_min") return f(semiring::max_min<T>{});
    if (name == "plus_pair") return f(semiring::plus_pair<T>{});
    if (name == "min_second") return f(semiring::min_second<T>{});
    if (name == "plus_second") return f(semiring::plus_second<T>{});
  }
  FAIL("no semiring " << name << " in this test");
}

// f(x) as SampledOp documents it, written out independently of geblas's own apply.
template <class T>
T fused(const SampledOp& f, T x) {
  const T alpha = static_cast<T>(f.alpha);
  if (f.kind == SampledOp::Kind::scale) return static_cast<T>(alpha * x);
  if (f.kind == SampledOp::Kind::leaky_relu && x < T(0)) return static_cast<T>(alpha * x);
  return x;
}

// lowest: the smallest operand value (negative ones give the leaky ReLU negative entries).
template <class T>
std::string run(const Rule& rule, const Shape& s, std::uint64_t seed, bool accumulate, const SampledOp& f = {},
                int lowest = 0) {
  std::mt19937_64 rng(seed);
  const auto A = random_dense<T>(s.transpose_a ? s.k : s.m, s.transpose_a ? s.m : s.k, s.a_layout, rng, lowest);
  const auto B = random_dense<T>(s.transpose_b ? s.n : s.k, s.transpose_b ? s.k : s.n, s.b_layout, rng, lowest);
  const auto M = random_mask<T>(s.m, s.n, rng);
  const auto C0 = random_mask<T>(s.m, s.n, rng);  // the old C of the accumulating case
  const auto a = [&](Index i, Index q) { return s.transpose_a ? A.at(q, i) : A.at(i, q); };
  const auto b = [&](Index q, Index j) { return s.transpose_b ? B.at(j, q) : B.at(q, j); };

  std::map<std::pair<Index, Index>, T> want = accumulate ? entries_of(C0) : std::map<std::pair<Index, Index>, T>{};
  for (const auto& [ij, mv] : entries_of(M)) {
    if (!s.structural && mv == T(0)) continue;
    const auto [i, j] = ij;
    if (s.k == 0) {
      if (!accumulate) want.erase(ij);
      continue;
    }
    T acc = mul_of(rule.mul, a(i, 0), b(0, j));
    for (Index q = 1; q < s.k; ++q) acc = add_of(rule.add, acc, mul_of(rule.mul, a(i, q), b(q, j)));
    acc = fused(f, acc);
    if (accumulate && want.count(ij)) want[ij] = static_cast<T>(want[ij] + acc);
    else want[ij] = acc;
  }

  SparseMatrix<T> C = accumulate ? C0.to(device()) : SparseMatrix<T>(s.m, s.n, device());
  const auto Md = M.to(device());  // the mask refers to it: it outlives the call
  Options o;
  o.mask = s.structural ? Mask::structure(Md) : Mask(Md);
  o.transpose_a = s.transpose_a;
  o.transpose_b = s.transpose_b;
  if (accumulate) o.accum = binop::plus<T>{};
  const auto Ad = A.to(device()), Bd = B.to(device());
  with_rule<T>(rule.name, [&](auto sr) { mxm(C, Ad, Bd, sr, o, f); });
  const auto got = entries_of(C);
  if (got == want) return "";
  std::string msg = std::string(rule.name) + ": " + std::to_string(got.size()) + " entries, want " +
                    std::to_string(want.size()) + ";";
  int shown = 0;
  for (const auto& [ij, v] : want) {
    const auto g = got.find(ij);
    if (g == got.end() || !(g->second == v)) {
      msg += " (" + std::to_string(ij.first) + "," + std::to_string(ij.second) + ") got " +
             (g == got.end() ? std::string("absent") : std::to_string(static_cast<double>(g->second))) + " want " +
             std::to_string(static_cast<double>(v)) + ";";
      if (++shown == 4) break;
    }
  }
  return msg;
}

const std::vector<Rule>& arithmetic_rules() {
  static const std::vector<Rule> r = {{"plus_times", Add::plus, Mul::times}, {"max_times", Add::max, Mul::times},
                                      {"min_plus", Add::min, Mul::plus},     {"max_plus", Add::max, Mul::plus},
                                      {"max_min", Add::max, Mul::min},       {"plus_pair", Add::plus, Mul::pair},
                                      {"min_second", Add::min, Mul::second}, {"plus_second", Add::plus, Mul::second}};
  return r;
}

std::vector<Shape> shapes() {
  std::vector<Shape> out;
  int c = 0;
  for (const Index k : {Index{0}, Index{1}, Index{5}, Index{33}})
    for (const bool ta : {false, true})
      for (const bool tb : {false, true}) {
        ++c;
        out.push_back({19 + k % 3, 23, k, (c & 1) ? Layout::col_major : Layout::row_major,
                       (c & 2) ? Layout::col_major : Layout::row_major, ta, tb, (c % 3) != 0});
      }
  return out;
}

}  // namespace

TEMPLATE_TEST_CASE("mxm dense x dense with a sparse C: the product at the mask's entries", "[mxm][sampled]", float,
                   double, std::int32_t, std::int64_t) {
  std::uint64_t seed = 500;
  for (const Rule& rule : arithmetic_rules())
    for (const Shape& s : shapes()) {
      INFO("k " << s.k << " transposes " << s.transpose_a << s.transpose_b << " layouts " << int(s.a_layout)
                << int(s.b_layout) << (s.structural ? " structural" : " value") << " mask");
      CHECK(run<TestType>(rule, s, ++seed, false) == "");
    }
  for (const Shape& s : shapes()) {
    INFO("accumulate, k " << s.k);
    CHECK(run<TestType>(arithmetic_rules()[0], s, ++seed, true) == "");
  }
  // the fused ops, alone and before an accumulator; integral alphas keep integers exact
  for (const SampledOp& f : {SampledOp::scale(-2), SampledOp::leaky_relu(3), SampledOp::leaky_relu(0)})
    for (const Rule& rule : {arithmetic_rules()[0], arithmetic_rules()[3]})
      for (const Shape& s : shapes()) {
        INFO("fused op " << int(f.kind) << " alpha " << f.alpha << ", " << rule.name << ", k " << s.k);
        CHECK(run<TestType>(rule, s, ++seed, false, f, -3) == "");
        CHECK(run<TestType>(rule, s, ++seed, true, f, -3) == "");
      }
}

TEST_CASE("mxm dense x dense with a sparse C: bool over lor_land", "[mxm][sampled]") {
  std::uint64_t seed = 900;
  for (const Shape& s : shapes()) CHECK(run<bool>({"lor_land", Add::lor, Mul::land}, s, ++seed, false) == "");
}

TEST_CASE("mxm dense x dense with a sparse C: into a C that has entries, without an accumulator", "[mxm][sampled]") {
  // C<M> = T keeps C's entries where M does not allow a write (absent from M, or zero in a
  // value mask), and drops them with replace; where M allows one, C becomes T
  std::mt19937_64 rng(77);
  const Index m = 21, n = 17, k = 6;
  const auto A = random_dense<float>(m, k, Layout::row_major, rng, -3);
  const auto B = random_dense<float>(n, k, Layout::row_major, rng, -3);
  const auto M = random_mask<float>(m, n, rng), C0 = random_mask<float>(m, n, rng);
  const auto Md = M.to(device());
  const auto Ad = A.to(device()), Bd = B.to(device());
  for (const bool replace : {false, true})
    for (const bool structural : {false, true}) {
      INFO((replace ? "replace" : "keep") << (structural ? ", structural" : ", value") << " mask");
      std::map<std::pair<Index, Index>, float> want;
      const auto mask = entries_of(M);
      for (const auto& [ij, v] : entries_of(C0)) {
        const auto in = mask.find(ij);
        if (!replace && (in == mask.end() || (!structural && in->second == 0.0f))) want[ij] = v;
      }
      for (const auto& [ij, mv] : mask) {
        if (!structural && mv == 0.0f) continue;
        float acc = 0;
        for (Index q = 0; q < k; ++q) acc += A.at(ij.first, q) * B.at(ij.second, q);
        want[ij] = acc;
      }
      SparseMatrix<float> C = C0.to(device());
      mxm(C, Ad, Bd, semiring::plus_times<float>{},
          {.mask = structural ? Mask::structure(Md) : Mask(Md), .replace = replace, .transpose_b = true});
      CHECK(entries_of(C) == want);
    }
}

TEST_CASE("mxm dense x dense with a sparse C: the cases it refuses", "[mxm][sampled]") {
  const auto A = DenseMatrix<float>(4, 3, device()), B = DenseMatrix<float>(3, 5, device());
  const auto M = SparseMatrix<float>::from_tuples(4, 5, {{1, 2, 1.0f}}).to(device());
  const auto D = DenseMatrix<float>(4, 5, device());
  SparseMatrix<float> C(4, 5, device());
  const semiring::plus_times<float> pt;
  // every entry would be stored: the dense-output mxm's job
  CHECK_THROWS_AS(mxm(C, A, B, pt), InvalidValue);
  CHECK_THROWS_AS(mxm(C, A, B, pt, {.mask = Mask::structure(M).complement()}), InvalidValue);
  CHECK_THROWS_AS(mxm(C, A, B, pt, {.mask = Mask(D)}), InvalidValue);
  // shapes
  const auto Bw = DenseMatrix<float>(2, 5, device());
  CHECK_THROWS_AS(mxm(C, A, Bw, pt, {.mask = Mask::structure(M)}), DimensionMismatch);
  CHECK_THROWS_AS(mxm(C, A, B, pt, {.mask = Mask::structure(M), .transpose_b = true}), DimensionMismatch);
  SparseMatrix<float> Cw(4, 6, device());
  CHECK_THROWS_AS(mxm(Cw, A, B, pt, {.mask = Mask::structure(M)}), DimensionMismatch);
  // a fused op that cannot be exact in the type
  const auto Ai = DenseMatrix<std::int32_t>(4, 3, device()), Bi = DenseMatrix<std::int32_t>(3, 5, device());
  const auto Mi = SparseMatrix<std::int32_t>::from_tuples(4, 5, {{1, 2, 1}}).to(device());
  SparseMatrix<std::int32_t> Ci(4, 5, device());
  const semiring::plus_times<std::int32_t> pti;
  CHECK_THROWS_AS(mxm(Ci, Ai, Bi, pti, {.mask = Mask::structure(Mi)}, SampledOp::scale(0.5)), InvalidValue);
  CHECK_NOTHROW(mxm(Ci, Ai, Bi, pti, {.mask = Mask::structure(Mi)}, SampledOp::scale(3)));
  const auto Ab = DenseMatrix<bool>(4, 3, device()), Bb = DenseMatrix<bool>(3, 5, device());
  const auto Mb = SparseMatrix<bool>::from_tuples(4, 5, {{1, 2, true}}).to(device());
  SparseMatrix<bool> Cb(4, 5, device());
  CHECK_THROWS_AS(mxm(Cb, Ab, Bb, semiring::lor_land<bool>{}, {.mask = Mask::structure(Mb)}, SampledOp::scale(1)),
                  InvalidValue);
}

namespace {

// The score pattern: rows 0 mod 5 empty, row 7 with `long_row` entries (a hub), the others
// 1 to 12 random columns; value 0 on every seventh entry (a value mask drops it).
SparseMatrix<float> score_pattern(Index m, Index n, Index long_row, std::mt19937_64& rng) {
  std::vector<Tuple<float>> t;
  std::uniform_int_distribution<Index> col(0, n - 1);
  std::uniform_int_distribution<int> len(1, 12);
  for (Index i = 0; i < m; ++i) {
    if (i % 5 == 0) continue;
    std::vector<char> seen(static_cast<std::size_t>(n), 0);
    const Index want = i == 7 ? long_row : len(rng);
    for (Index c = 0; c < want;) {
      const Index j = i == 7 ? c * (n / long_row) : col(rng);
      if (seen[static_cast<std::size_t>(j)]) continue;
      seen[static_cast<std::size_t>(j)] = 1;
      t.push_back({i, j, static_cast<float>(t.size() % 7 == 0 ? 0 : 1)});
      ++c;
    }
  }
  return SparseMatrix<float>::from_tuples(m, n, t);
}

// One float case: S<M> = f(op(X) op(Y)) with X m x k and Y (n x k, or k x n) in the given
// layouts; every entry against a double host loop, within 1e-5 of the sum of the terms'
// magnitudes (a float fold in any order of k terms errs by at most ~k * 2^-24 of that sum,
// and k <= 512 gives 3e-5; the kernels' fused multiply-adds are tighter still), plus 1e-30
// for the all-zero case.
std::string score_case(Index k, Layout xl, Layout yl, bool transpose_b, bool structural, const SampledOp& f,
                       std::uint64_t seed, std::string* variant) {
  std::mt19937_64 rng(seed);
  const Index m = 1500, n = 2600, long_row = 2500;
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> xv(static_cast<std::size_t>(m * k)), yv(static_cast<std::size_t>(n * k));
  for (float& v : xv) v = u(rng);
  for (float& v : yv) v = u(rng);
  // x(i, q) and y(j, q) index the logical rows; the stored arrays follow the layouts
  const auto X = xl == Layout::row_major ? DenseMatrix<float>::from_row_major(m, k, xv)
                                         : DenseMatrix<float>::from_col_major(m, k, xv);
  const Index yr = transpose_b ? n : k, yc = transpose_b ? k : n;
  const auto Y = yl == Layout::row_major ? DenseMatrix<float>::from_row_major(yr, yc, yv)
                                         : DenseMatrix<float>::from_col_major(yr, yc, yv);
  const auto M = score_pattern(m, n, long_row, rng);
  const auto Md = M.to(device());
  const auto Xd = X.to(device()), Yd = Y.to(device());
  SparseMatrix<float> S(m, n, device());
  mxm(S, Xd, Yd, semiring::plus_times<float>{},
      {.mask = structural ? Mask::structure(Md) : Mask(Md), .transpose_b = transpose_b}, f);
  *variant = last_dispatch().variant;
  const auto got = entries_of(S);
  const auto y = [&](Index j, Index q) { return transpose_b ? Y.at(j, q) : Y.at(q, j); };
  std::size_t want_count = 0;
  int bad = 0;
  std::string msg;
  for (const auto& [ij, mv] : entries_of(M)) {
    if (!structural && mv == 0.0f) continue;
    ++want_count;
    const auto [i, j] = ij;
    double dot = 0.0, mag = 0.0;
    for (Index q = 0; q < k; ++q) {
      const double t = static_cast<double>(X.at(i, q)) * static_cast<double>(y(j, q));
      dot += t;
      mag += std::fabs(t);
    }
    const double alpha = f.alpha;
    if (f.kind == SampledOp::Kind::scale || (f.kind == SampledOp::Kind::leaky_relu && dot < 0)) {
      dot *= alpha;
      mag *= std::fabs(alpha);
    }
    const auto g = got.find(ij);
    const double tol = 1e-5 * mag + 1e-30;
    if (g == got.end() || !(std::fabs(static_cast<double>(g->second) - dot) <= tol)) {
      if (bad++ < 4)
        msg += " (" + std::to_string(i) + "," + std::to_string(j) + ") got " +
               (g == got.end() ? std::string("absent") : std::to_string(g->second)) + " want " + std::to_string(dot) +
               ";";
    }
  }
  if (got.size() != want_count)
    msg += " " + std::to_string(got.size()) + " entries, want " + std::to_string(want_count) + ";";
  if (want_count == 0) msg += " no entries to check;";
  return msg;
}

}  // namespace

TEST_CASE("mxm dense x dense with a sparse C: float scores at feature widths 16 to 512", "[mxm][sampled]") {
  std::uint64_t seed = 1300;
  for (const Index k : {Index{16}, Index{32}, Index{48}, Index{64}, Index{100}, Index{128}, Index{256}, Index{512}}) {
    std::string variant;
    INFO("k " << k << " seed " << seed + 1 << ", X row-major, Y row-major transposed, structural mask");
    CHECK(score_case(k, Layout::row_major, Layout::row_major, true, true, {}, ++seed, &variant) == "");
    // the typed kernel runs the score case on the GPU; the CPU has one kernel
    CHECK(variant == (device().is_cuda() ? "group_dot" : "sampled_dot"));
  }
  // the fused ops, a value mask, a width that is not a multiple of 4 and the layouts that
  // read an operand strided
  struct Case {
    Index k;
    Layout xl, yl;
    bool transpose_b, structural;
    SampledOp f;
  };
  const float inv_sqrt = 1.0f / std::sqrt(64.0f);
  for (const Case& c : {Case{64, Layout::row_major, Layout::row_major, true, true, SampledOp::scale(inv_sqrt)},
                        Case{128, Layout::row_major, Layout::row_major, true, true, SampledOp::leaky_relu(0.2)},
                        Case{32, Layout::row_major, Layout::row_major, true, false, SampledOp::leaky_relu(0.01)},
                        Case{30, Layout::row_major, Layout::row_major, true, true, SampledOp::scale(-1.5)},
                        Case{77, Layout::row_major, Layout::col_major, false, true, {}},
                        Case{64, Layout::col_major, Layout::row_major, true, false, SampledOp::leaky_relu(0.2)},
                        Case{48, Layout::col_major, Layout::row_major, false, true, {}}}) {
    std::string variant;
    INFO("k " << c.k << " layouts " << int(c.xl) << int(c.yl) << " transpose_b " << c.transpose_b
              << (c.structural ? " structural" : " value") << " op " << int(c.f.kind) << " alpha " << c.f.alpha
              << " seed " << seed + 1);
    CHECK(score_case(c.k, c.xl, c.yl, c.transpose_b, c.structural, c.f, ++seed, &variant) == "");
  }
}
