// Sparse x dense mxm on half / bfloat16 on the CPU, every output entry checked against
// the Eigen reference computed in float64 on the 16-bit inputs (widened exactly).
//
// The bound. geblas computes each entry in float (fp32 terms and accumulation) and
// rounds it once into C. With n terms p_k, the float result c_f satisfies
//   |c_f - ref| <= e_f = n 2^-24 sum_k |p_k|         (|p_k|: the term's magnitude; a
// product of two 16-bit values is exact in float, a sum a + b rounds once), and the
// stored c = round16(c_f). Rounding is monotone, so c must lie in
//   [round16(ref - e_f), round16(ref + e_f)]           (round16 by the independent
// long-double oracle in rounding_oracle.hpp), which implies the usual form
//   |c - ref| <= u |ref| + (1 + u) e_f   (u = 2^-11 half, 2^-8 bfloat16; plus half the
// smallest subnormal near zero). An accumulator or a mask is applied in float before
// the one rounding, so the same bracket holds around accum(C_old, ref), widened by the
// accumulator's own float rounding (2^-23 relative). Infinite and NaN
// references must be matched exactly (NaN for NaN).
#include <array>
#include <limits>
#include <random>
#include <vector>

#include "reference/mxm_16bit_check.hpp"
#include "support/data.hpp"

using namespace geblas;
using namespace geblas::test;
using namespace geblas::test::mxm16;

TEMPLATE_TEST_CASE("16-bit sparse x dense matches the float64 reference within the stated bound",
                   "[mxm][16bit][cpu]", half, bfloat16) {
  using H = TestType;
  std::uint64_t seed = 160000;
  const std::vector<std::array<Index, 3>> shapes = {{40, 50, 8}, {17, 90, 1}, {64, 33, 19}, {1, 200, 5}, {0, 4, 3}, {5, 0, 4}};
  int combo = 0;
  for (const auto& [name, id] : semirings)
    for (const auto& [m, k, n] : shapes) {
      ++combo;
      ++seed;
      std::vector<Tuple<H>> a;
      std::vector<H> b, c0;
      random_inputs<H>(m, k, n, 0.2, seed, a, b, c0);
      Case c{name, id};
      c.b_layout = combo & 1 ? Layout::col_major : Layout::row_major;
      c.c_layout = combo & 2 ? Layout::col_major : Layout::row_major;
      run_case<H>(c, m, k, n, a, b, c0, seed);  // direct: no mask, no accumulator
      // The semiring's own add as accumulator (the fused case on the GPU).
      Case fused = c;
      fused.accum = id == SemiringId::max_times || id == SemiringId::max_plus || id == SemiringId::max_min
                        ? BinaryOpId::max
                        : (name.starts_with("plus") ? BinaryOpId::plus : BinaryOpId::none);
      if (fused.accum != BinaryOpId::none) run_case<H>(fused, m, k, n, a, b, c0, seed);
      // Masks, other accumulators, replace, transposed A.
      Case masked = c;
      masked.mask = 1 + (combo % 2);
      masked.replace = combo % 3 == 0;
      masked.accum = combo % 4 == 0 ? BinaryOpId::times : (combo % 4 == 1 ? BinaryOpId::plus : BinaryOpId::none);
      run_case<H>(masked, m, k, n, a, b, c0, seed);
      Case other = c;
      other.accum = name == "plus_times" ? BinaryOpId::max : BinaryOpId::times;
      other.transpose_a = true;
      run_case<H>(other, m, k, n, a, b, c0, seed);
    }
}

TEMPLATE_TEST_CASE("16-bit sparse x dense propagates NaN and infinities and overflows to infinity", "[mxm][16bit][cpu]",
                   half, bfloat16) {
  using H = TestType;
  const float inf = std::numeric_limits<float>::infinity();
  const float big = std::is_same_v<H, half> ? 60000.0f : 3e38f;
  // Row 0: inf * 0 -> NaN; row 1: a NaN term; row 2: inf; row 3: big + big overflows.
  const std::vector<Tuple<H>> a = {{0, 0, H(inf)}, {0, 1, H(1.0f)}, {1, 1, H(std::nanf(""))}, {1, 2, H(2.0f)},
                                   {2, 2, H(-inf)}, {3, 3, H(big)},  {3, 4, H(big)}};
  std::vector<H> b(5 * 2, H(1.0f));
  b[0 * 2 + 1] = H(0.0f);  // B(0, 1) = 0: inf * 0 in column 1
  const std::vector<H> c0(4 * 2, H(0.0f));
  for (const auto& [name, id] : semirings) {
    if (name == "any_second") continue;
    run_case<H>(Case{name, id}, 4, 5, 2, a, b, c0, 1);
  }
  // The typed API, once, with the semiring's own type.
  auto A = SparseMatrix<H>::from_tuples(4, 5, a);
  auto B = DenseMatrix<H>::from_row_major(5, 2, b);
  DenseMatrix<H> C(4, 2);
  mxm(C, A, B, semiring::plus_times<H>{});
  CHECK(std::isnan(static_cast<float>(C.at(0, 1))));
  CHECK(std::isinf(static_cast<float>(C.at(2, 0))));
  CHECK(std::isinf(static_cast<float>(C.at(3, 0))));
  // The record names the call and says it widened (not the conversions inside it).
  const DispatchRecord r = last_dispatch();
  CHECK(r.operation == "mxm(sparse x dense)");
  CHECK(r.backend == "cpu");
  CHECK(r.reason.find(std::string(type_traits<H>::name) + " widened to float32") != std::string::npos);
}

TEST_CASE("16-bit sparse x dense rejects mixed types and lor_land", "[mxm][16bit][cpu]") {
  const auto A = SparseMatrix<half>::from_tuples(2, 2, std::vector<Tuple<half>>{{0, 0, half(1.0f)}});
  const auto Ab = SparseMatrix<bfloat16>::from_tuples(2, 2, std::vector<Tuple<bfloat16>>{{0, 0, bfloat16(1.0f)}});
  const auto B = DenseMatrix<half>::constant(2, 3, half(1.0f));
  const auto Bf = DenseMatrix<float>::constant(2, 3, 1.0f);
  DenseMatrix<half> C(2, 3);
  DenseMatrix<float> Cf(2, 3);
  CHECK_THROWS_AS(detail::mxm(C.storage(), Ab.storage(), B.storage(), SemiringId::plus_times, {}), DomainMismatch);
  CHECK_THROWS_AS(detail::mxm(C.storage(), A.storage(), Bf.storage(), SemiringId::plus_times, {}), DomainMismatch);
  CHECK_THROWS_AS(detail::mxm(Cf.storage(), A.storage(), Bf.storage(), SemiringId::plus_times, {}), DomainMismatch);
  CHECK_THROWS_AS(detail::mxm(C.storage(), A.storage(), B.storage(), SemiringId::lor_land, {}), DomainMismatch);
  DenseMatrix<half> Cwrong(3, 3);
  CHECK_THROWS_AS(detail::mxm(Cwrong.storage(), A.storage(), B.storage(), SemiringId::plus_times, {}), DimensionMismatch);
  Options o;
  o.accum = binop::plus<float>{};
  CHECK_THROWS_AS(detail::mxm(C.storage(), A.storage(), B.storage(), SemiringId::plus_times, o), DomainMismatch);
}

TEMPLATE_TEST_CASE("16-bit sparse x dense on a real graph", "[mxm][16bit][cpu][data]", half, bfloat16) {
  using H = TestType;
  const std::string path = data_file("cora.mtx.gz");
  if (path.empty()) {
    WARN("SKIPPED: cora.mtx.gz not found under " << data_dir() << " (set GEBLAS_DATA_DIR)");
    return;
  }
  const auto A = io::read_matrix_market<H>(path);
  std::vector<Tuple<H>> a = A.extract_tuples();
  std::mt19937_64 rng(77);
  const Index n = 16;
  std::vector<H> b(static_cast<std::size_t>(A.ncols() * n)), c0(static_cast<std::size_t>(A.nrows() * n));
  for (auto& x : b) x = random_value<H>(rng);
  for (auto& x : c0) x = random_value<H>(rng);
  run_case<H>(Case{"plus_times", SemiringId::plus_times}, A.nrows(), A.ncols(), n, a, b, c0, 77);
  Case acc{"max_times", SemiringId::max_times};
  acc.accum = BinaryOpId::max;
  acc.c_layout = Layout::col_major;
  run_case<H>(acc, A.nrows(), A.ncols(), n, a, b, c0, 78);
}
