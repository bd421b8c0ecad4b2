// The checker of 16-bit sparse x dense mxm shared by the CPU test (test_mxm_16bit.cpp)
// and the GPU one (test_16bit_gpu.cpp): runs one case on a device and checks every
// output entry against the float64 Eigen reference within the bound stated in
// test_mxm_16bit.cpp (and docs/TYPES.md).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "reference/rounding_oracle.hpp"
#include "geblas/geblas.hpp"
#include "reference/products.hpp"
#include "support/catch.hpp"

namespace geblas::test::mxm16 {


template <class H>
constexpr Format format_of() {
  return std::is_same_v<H, half> ? half_format : bfloat16_format;
}

template <class H>
double wide(H x) {
  return static_cast<double>(static_cast<float>(x));
}

template <class H>
long double round16(long double x) {
  return round_to_format(x, format_of<H>());
}

inline const std::vector<std::pair<std::string, SemiringId>> semirings = {
    {"plus_times", SemiringId::plus_times}, {"max_times", SemiringId::max_times}, {"min_plus", SemiringId::min_plus},
    {"max_plus", SemiringId::max_plus},     {"min_times", SemiringId::min_times}, {"max_min", SemiringId::max_min},
    {"min_max", SemiringId::min_max},       {"plus_pair", SemiringId::plus_pair}, {"min_second", SemiringId::min_second},
    {"plus_second", SemiringId::plus_second}, {"any_second", SemiringId::any_second}};

// The magnitude of one term in float, for the bound above.
inline double term_size(const std::string& s, double a, double b) {
  if (s == "plus_pair") return 1;
  if (s.ends_with("_times")) return std::fabs(a * b);
  if (s.ends_with("_plus")) return std::fabs(a) + std::fabs(b);
  if (s.ends_with("_second")) return std::fabs(b);
  return std::max(std::fabs(a), std::fabs(b));  // _min, _max
}

struct Case {
  std::string semiring;
  SemiringId id;
  Layout b_layout = Layout::row_major, c_layout = Layout::row_major;
  BinaryOpId accum = BinaryOpId::none;  // none, or plus / max / times on the old C
  int mask = 0;                         // 0 none, 1 value mask (16-bit), 2 complemented structural (bool)
  bool replace = false;
  bool transpose_a = false;
};

inline std::string describe(const Case& c, Index m, Index k, Index n, std::uint64_t seed) {
  std::ostringstream s;
  s << c.semiring << " m=" << m << " k=" << k << " n=" << n << " seed=" << seed
    << " B=" << (c.b_layout == Layout::row_major ? "row" : "col") << " C=" << (c.c_layout == Layout::row_major ? "row" : "col")
    << " accum=" << static_cast<int>(c.accum) << " mask=" << c.mask << " replace=" << c.replace << " ta=" << c.transpose_a;
  return s.str();
}

inline double apply_accum(BinaryOpId op, double old, double t) {
  switch (op) {
    case BinaryOpId::plus: return old + t;
    case BinaryOpId::max: return std::isnan(old) ? t : std::isnan(t) ? old : std::max(old, t);
    case BinaryOpId::times: return old * t;
    default: return t;
  }
}

template <class H>
Accum accum_of(BinaryOpId op) {
  if (op == BinaryOpId::plus) return binop::plus<H>{};
  if (op == BinaryOpId::max) return binop::max<H>{};
  return binop::times<H>{};
}

// Runs one case on A (m x k, given as tuples), B (k x n) and an initial C, and checks
// every entry of C.
template <class H>
void run_case(const Case& c, Index m, Index k, Index n, const std::vector<Tuple<H>>& a_tuples, const std::vector<H>& b_rm,
              const std::vector<H>& c0_rm, std::uint64_t seed, Device device = Device::cpu()) {
  const std::string where = describe(c, m, k, n, seed);
  INFO(where);
  // A as stored (transposed when the case says so: the product is always A x B).
  std::vector<Tuple<H>> stored = a_tuples;
  if (c.transpose_a)
    for (auto& t : stored) std::swap(t.row, t.col);
  const auto A = c.transpose_a ? SparseMatrix<H>::from_tuples(k, m, stored) : SparseMatrix<H>::from_tuples(m, k, stored);
  auto B = DenseMatrix<H>::from_row_major(k, n, b_rm);
  if (c.b_layout == Layout::col_major) {
    std::vector<H> cm(b_rm.size());
    for (Index i = 0; i < k; ++i)
      for (Index j = 0; j < n; ++j) cm[static_cast<std::size_t>(j * k + i)] = b_rm[static_cast<std::size_t>(i * n + j)];
    B = DenseMatrix<H>::from_col_major(k, n, cm);
  }
  DenseMatrix<H> C = DenseMatrix<H>::from_row_major(m, n, c0_rm);
  if (c.c_layout == Layout::col_major) {
    std::vector<H> cm(c0_rm.size());
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < n; ++j) cm[static_cast<std::size_t>(j * m + i)] = c0_rm[static_cast<std::size_t>(i * n + j)];
    C = DenseMatrix<H>::from_col_major(m, n, cm);
  }
  // Masks: a 16-bit value mask (zeros and absent entries block), or a bool structural
  // mask complemented.
  std::mt19937_64 rng(seed * 7 + 1);
  std::vector<Tuple<H>> mt;
  std::vector<Tuple<bool>> bt;
  std::vector<std::vector<bool>> allowed(static_cast<std::size_t>(m), std::vector<bool>(static_cast<std::size_t>(n), true));
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j) {
      const int r = static_cast<int>(rng() % 3);
      if (c.mask == 1) {
        if (r == 0) mt.push_back({i, j, H(1.5f)});
        if (r == 1) mt.push_back({i, j, H(0.0f)});
        allowed[i][j] = r == 0;
      } else if (c.mask == 2) {
        if (r == 0) bt.push_back({i, j, false});  // structural: present blocks once complemented
        allowed[i][j] = r != 0;
      }
    }
  const auto M16 = SparseMatrix<H>::from_tuples(m, n, mt);
  const auto Mb = SparseMatrix<bool>::from_tuples(m, n, bt);
  Options o;
  if (c.mask == 1) o.mask = M16;
  if (c.mask == 2) o.mask = Mask::structure(Mb).complement();
  if (c.accum != BinaryOpId::none) o.accum = accum_of<H>(c.accum);
  o.replace = c.replace;
  o.transpose_a = c.transpose_a;
  if (device.is_cpu()) {
    detail::mxm(C.storage(), A.storage(), B.storage(), c.id, o);
  } else {
    const auto Ad = A.to(device);
    const auto Bdev = B.to(device);
    auto Cd = C.to(device);
    const auto M16d = M16.to(device);
    const auto Mbd = Mb.to(device);
    if (c.mask == 1) o.mask = M16d;
    if (c.mask == 2) o.mask = Mask::structure(Mbd).complement();
    detail::mxm(Cd.storage(), Ad.storage(), Bdev.storage(), c.id, o);
    C = Cd.to(Device::cpu());
  }

  // Reference in float64 on the widened inputs.
  std::vector<Eigen::Triplet<double, std::int64_t>> trip;
  std::vector<std::vector<std::pair<Index, double>>> rows(static_cast<std::size_t>(m));
  for (const auto& t : a_tuples) {
    trip.emplace_back(t.row, t.col, wide(t.value));
    rows[t.row].push_back({t.col, wide(t.value)});
  }
  ref::Sparse<double> Ad(m, k);
  Ad.setFromTriplets(trip.begin(), trip.end());
  ref::Dense<double> Bd(k, n);
  for (Index i = 0; i < k; ++i)
    for (Index j = 0; j < n; ++j) Bd(i, j) = wide(b_rm[static_cast<std::size_t>(i * n + j)]);
  const auto sr = ref::semiring<double>(c.semiring);
  const ref::Dense<double> R = ref::spmm(Ad, Bd, sr);
  const double identity = sr.identity;

  std::size_t bad = 0;
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j) {
      const H got = C.at(i, j);
      const double g = wide(got);
      const double old = wide(c0_rm[static_cast<std::size_t>(i * n + j)]);
      const bool present = !rows[i].empty();
      bool ok;
      std::ostringstream why;
      if (!allowed[i][j]) {
        // Outside the mask: the old value, or the identity under replace.
        const double want = c.replace ? static_cast<double>(round16<H>(identity)) : old;
        ok = (std::isnan(want) && std::isnan(g)) || want == g;
        why << "outside the mask: expected " << want;
      } else if (c.semiring == "any_second") {
        // Any one term: some B(k, j) with A(i, k) present, or the identity for no term.
        ok = false;
        if (!present) ok = c.accum != BinaryOpId::none ? g == old : g == identity;
        for (const auto& [kk, av] : rows[i]) {
          const double t = Bd(kk, j);
          const double want = c.accum != BinaryOpId::none ? static_cast<double>(round16<H>(apply_accum(c.accum, old, t))) : t;
          ok = ok || want == g || (std::isnan(want) && std::isnan(g));
        }
        why << "not one of the terms";
      } else if (!present && c.accum != BinaryOpId::none) {
        ok = g == old || (std::isnan(old) && std::isnan(g));
        why << "no term: expected the old value " << old;
      } else {
        double ef = 0;
        for (const auto& [kk, av] : rows[i]) ef += term_size(c.semiring, av, Bd(kk, j));
        ef *= static_cast<double>(rows[i].size() + 1) * 0x1p-24;
        const double r = R(i, j);
        auto final_value = [&](double t) { return c.accum != BinaryOpId::none ? apply_accum(c.accum, old, t) : t; };
        double lo_in = final_value(r - ef), hi_in = final_value(r + ef);
        if (c.accum != BinaryOpId::none) {
          // The accumulator's own float rounding, before the one 16-bit rounding.
          const double slack = 0x1p-23 * std::max(std::fabs(lo_in), std::fabs(hi_in));
          if (lo_in > hi_in) std::swap(lo_in, hi_in);
          lo_in -= slack;
          hi_in += slack;
        }
        if (!std::isfinite(r) || !std::isfinite(lo_in) || !std::isfinite(hi_in)) {
          const double want = static_cast<double>(round16<H>(final_value(r)));
          ok = (std::isnan(want) && std::isnan(g)) || want == g;
          why << "expected exactly " << want;
        } else {
          const double lo = static_cast<double>(round16<H>(std::min(lo_in, hi_in)));
          const double hi = static_cast<double>(round16<H>(std::max(lo_in, hi_in)));
          ok = g >= lo && g <= hi;
          why << "expected in [" << lo << ", " << hi << "] (reference " << final_value(r) << ", float error bound " << ef << ")";
        }
      }
      if (!ok && bad++ < 8) FAIL_CHECK(where << ": C(" << i << ", " << j << ") = " << g << ", " << why.str());
    }
  CHECK(bad == 0);
}

// Random values of H in [-2, 2] with some exact zeros.
template <class H>
H random_value(std::mt19937_64& rng) {
  if (rng() % 10 == 0) return H(0.0f);
  return H(std::uniform_real_distribution<float>(-2, 2)(rng));
}

template <class H>
void random_inputs(Index m, Index k, Index n, double density, std::uint64_t seed, std::vector<Tuple<H>>& a,
                   std::vector<H>& b, std::vector<H>& c0) {
  std::mt19937_64 rng(seed);
  a.clear();
  for (Index i = 0; i < m; ++i) {
    if (i % 7 == 3) continue;  // empty rows
    for (Index j = 0; j < k; ++j)
      if (std::uniform_real_distribution<double>(0, 1)(rng) < (i == 1 ? 0.9 : density)) a.push_back({i, j, random_value<H>(rng)});
  }
  b.resize(static_cast<std::size_t>(k * n));
  for (auto& x : b) x = random_value<H>(rng);
  c0.resize(static_cast<std::size_t>(m * n));
  for (auto& x : c0) x = random_value<H>(rng);
}

}  // namespace geblas::test::mxm16
