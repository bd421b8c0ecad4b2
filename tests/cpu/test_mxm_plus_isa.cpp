// The plus-family sparse x dense kernels per instruction set (src/cpu/spmm_plus.cpp),
// forced one at a time with the variants row_split_sse2 / _avx2 / _avx512, on real
// (non-integer, signed) values where the summation order and fused multiply-adds show:
// - every result is bit for bit the value of an independent emulation in the same order
//   (two roundings per term on SSE2, std::fma on AVX2 and AVX-512, plain sums for
//   plus_second, the count for plus_pair), so AVX2 and AVX-512 agree bit for bit;
// - plus_times on every set is within gamma(n) * sum |a b| of the exact sum (long double
//   oracle), the bound spmm_plus.hpp promises;
// - the fused accumulate adds the row's sum to C last;
// - the variants are refused where they do not exist.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

const char* const isa_variants[] = {"row_split_sse2", "row_split_avx2", "row_split_avx512"};

struct Operands {
  Index m = 0, k = 0, n = 0;
  std::vector<Index> offsets;
  std::vector<ColIndex> cols;
};

// m x k with rows of 0 .. 2 * mean entries, one row of k / 2, and empty rows.
Operands pattern(Index m, Index k, Index n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Operands p{m, k, n, {0}, {}};
  for (Index i = 0; i < m; ++i) {
    Index len = static_cast<Index>(rng() % 12);
    if (i == m / 2) len = k / 2;
    if (i % 7 == 3) len = 0;
    std::vector<char> used(static_cast<std::size_t>(k), 0);
    std::vector<ColIndex> row;
    while (static_cast<Index>(row.size()) < len) {
      const auto c = static_cast<ColIndex>(rng() % static_cast<std::uint64_t>(k));
      if (!used[static_cast<std::size_t>(c)]) used[static_cast<std::size_t>(c)] = 1, row.push_back(c);
    }
    std::sort(row.begin(), row.end());
    p.cols.insert(p.cols.end(), row.begin(), row.end());
    p.offsets.push_back(static_cast<Index>(p.cols.size()));
  }
  return p;
}

template <class T>
std::vector<T> real_values(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<T> v(count);
  for (auto& x : v) x = static_cast<T>(d(rng) * 3);
  return v;
}

// Runs mxm with a forced variant; false when this CPU lacks the instruction set.
template <class T, class S>
bool run(DenseMatrix<T>& C, const SparseMatrix<T>& A, const DenseMatrix<T>& B, const char* variant, bool accumulate) {
  Options o;
  o.variant = variant;
  if (accumulate) o.accum = binop::plus<T>{};
  try {
    mxm(C, A, B, S{}, o);
  } catch (const NotImplemented& e) {
    WARN(variant << " not run: " << e.what());
    return false;
  }
  return true;
}

template <class T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

template <class T>
void check_semiring(const std::string& name, Index n, bool accumulate, std::uint64_t seed) {
  const Operands p = pattern(61, 83, n, seed);
  const std::vector<T> a = real_values<T>(p.cols.size(), seed + 1);
  const std::vector<T> b = real_values<T>(static_cast<std::size_t>(p.k * n), seed + 2);
  const std::vector<T> c0 = real_values<T>(static_cast<std::size_t>(p.m * n), seed + 3);
  const auto A = SparseMatrix<T>::from_csr(p.m, p.k, p.offsets, p.cols, a);
  const auto B = DenseMatrix<T>::from_row_major(p.k, n, b);
  const SemiringId id = semiring_from_string(name.c_str());
  std::vector<T> first;  // the AVX2 result, for AVX-512 to match bit for bit
  for (const char* variant : isa_variants) {
    const bool fma = std::string(variant) != "row_split_sse2";
    auto C = DenseMatrix<T>::from_row_major(p.m, n, c0);
    bool ran = false;
    visit_semiring<T>(id, [&]<class S>() { ran = run<T, S>(C, A, B, variant, accumulate); });
    if (!ran) continue;
    INFO(name << " " << variant << " n=" << n << " accumulate=" << accumulate << " seed=" << seed);
    CHECK(last_dispatch().variant == variant);
    CHECK(std::string(last_dispatch().reason).find(id == SemiringId::plus_pair ? "count" : variant + 10) !=
          std::string::npos);
    const std::vector<T> got = C.to_row_major();
    Index wrong = 0, out_of_bound = 0;
    for (Index i = 0; i < p.m; ++i)
      for (Index j = 0; j < n; ++j) {
        const Index b0 = p.offsets[i], e = p.offsets[i + 1];
        const T old = c0[static_cast<std::size_t>(i * n + j)];
        T want = T(0);
        long double exact = 0, magnitude = 0;
        for (Index q = b0; q < e; ++q) {
          const T av = a[static_cast<std::size_t>(q)];
          const T bv = b[static_cast<std::size_t>(p.cols[static_cast<std::size_t>(q)] * n + j)];
          T term = bv;
          if (id == SemiringId::plus_pair) term = T(1);
          if (id == SemiringId::plus_times) {
            exact += static_cast<long double>(av) * bv;
            magnitude += std::fabs(static_cast<long double>(av) * bv);
          }
          if (q == b0) {
            want = id == SemiringId::plus_times ? static_cast<T>(av * bv) : term;
          } else if (id == SemiringId::plus_times) {
            if (fma) {
              want = std::fma(av, bv, want);
            } else {
              volatile T prod = av * bv;  // rounded on its own, as SSE2 does
              want = want + prod;
            }
          } else {
            want = want + term;
          }
        }
        if (b0 == e) want = accumulate ? old : T(0);
        else if (accumulate) want = old + want;
        const T g = got[static_cast<std::size_t>(i * n + j)];
        if (!same_bits(g, want)) {
          if (++wrong <= 3) UNSCOPED_INFO("C(" << i << "," << j << ") = " << g << ", emulation " << want);
        }
        if (id == SemiringId::plus_times && b0 != e && !accumulate) {
          const long double u = std::ldexp(1.0L, -std::numeric_limits<T>::digits);
          const long double terms = static_cast<long double>(e - b0);
          const long double gamma = terms * u / (1 - terms * u);
          if (std::fabs(static_cast<long double>(g) - exact) > gamma * magnitude) {
            if (++out_of_bound <= 3)
              UNSCOPED_INFO("C(" << i << "," << j << ") = " << g << " is " << std::fabs(g - exact)
                                 << " from the exact sum, bound " << gamma * magnitude);
          }
        }
      }
    CHECK(wrong == 0);
    CHECK(out_of_bound == 0);
    if (fma) {
      if (first.empty()) first = got;
      else CHECK(std::memcmp(first.data(), got.data(), got.size() * sizeof(T)) == 0);
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("plus-family kernels per instruction set: bits and bound", "[cpu][mxm][isa]", float, double) {
  std::uint64_t seed = 300;
  for (const char* name : {"plus_times", "plus_second", "plus_pair"})
    for (Index n : {1, 3, 8, 15, 16, 17, 31, 33, 64, 100, 130})
      for (bool accumulate : {false, true}) check_semiring<TestType>(name, n, accumulate, ++seed);
}

TEST_CASE("plus-family kernels: the forced variants exist where they should", "[cpu][mxm][isa]") {
  const auto A = SparseMatrix<float>::from_csr(2, 2, {0, 1, 2}, {1, 0}, {1.0f, 2.0f});
  const auto B = DenseMatrix<float>::from_row_major(2, 3, {1, 2, 3, 4, 5, 6});
  DenseMatrix<float> C(2, 3);
  Options o;
  o.variant = "row_split_sse2";  // every x86-64 CPU runs it
  CHECK_NOTHROW(mxm(C, A, B, semiring::plus_times<float>{}, o));
  CHECK_THROWS_AS(mxm(C, A, B, semiring::min_plus<float>{}, o), InvalidValue);
  o.variant = "row_split_avx3";
  CHECK_THROWS_AS(mxm(C, A, B, semiring::plus_times<float>{}, o), InvalidValue);
  const auto Ai = SparseMatrix<std::int32_t>::from_csr(2, 2, {0, 1, 2}, {1, 0}, {1, 2});
  const auto Bi = DenseMatrix<std::int32_t>::from_row_major(2, 3, {1, 2, 3, 4, 5, 6});
  DenseMatrix<std::int32_t> Ci(2, 3);
  o.variant = "row_split_sse2";
  CHECK_THROWS_AS(mxm(Ci, Ai, Bi, semiring::plus_times<std::int32_t>{}, o), InvalidValue);
  DenseMatrix<float> Ccol(2, 3, Device::cpu(), Layout::col_major);
  CHECK_THROWS_AS(mxm(Ccol, A, B, semiring::plus_times<float>{}, o), InvalidValue);
}
