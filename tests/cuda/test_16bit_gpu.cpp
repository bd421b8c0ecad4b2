// half / bfloat16 on a CUDA device (gpu label): matrices keep their bits through to()
// in both directions, and convert on the device gives the same bits as on the host for
// every 16-bit pattern and for random float / double / integer inputs in every pair of
// types (the two share geblas/detail/value_convert.hpp; this catches a device compiler
// that evaluates it differently). Sparse x dense with a mask, another accumulator or a
// transpose (the widened path: float temporaries on the device) is checked entry by
// entry against the float64 reference (tests/reference/mxm_16bit_check.hpp); the direct
// 16-bit kernels are tested with the kernels (tests/cuda).
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "reference/mxm_16bit_check.hpp"
#include "geblas/geblas.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

const Device gpu = Device::cuda(0);

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (std::memcmp(&a[k], &b[k], sizeof(T)) != 0) {
      UNSCOPED_INFO("first difference at entry " << k);
      return false;
    }
  return true;
}

template <class To, class From>
void check_device_convert(const DenseMatrix<From>& host) {
  INFO(type_traits<From>::name << " -> " << type_traits<To>::name);
  const auto on_host = convert<To>(host).to_row_major();
  const auto on_device = convert<To>(host.to(gpu));
  CHECK(on_device.device() == gpu);
  CHECK(same_bits(on_host, on_device.to_row_major()));
}

template <class From>
void check_from(const DenseMatrix<From>& host) {
  check_device_convert<half>(host);
  check_device_convert<bfloat16>(host);
  check_device_convert<float>(host);
  check_device_convert<double>(host);
  check_device_convert<std::int32_t>(host);
  check_device_convert<std::int64_t>(host);
}

}  // namespace

TEMPLATE_TEST_CASE("16-bit matrices keep their bits on the device and back", "[16bit][gpu]", half, bfloat16) {
  using H = TestType;
  std::mt19937_64 rng(31);
  std::vector<H> vals(65536);
  for (std::uint32_t b = 0; b < 65536; ++b) vals[b] = H::from_bits(static_cast<std::uint16_t>(b));
  const auto D = DenseMatrix<H>::from_col_major(256, 256, vals, gpu);
  CHECK(D.device() == gpu);
  CHECK(same_bits(D.to(Device::cpu()).to_col_major(), vals));
  std::vector<Index> rows, cols;
  std::vector<H> sv;
  for (Index i = 0; i < 300; ++i)
    for (Index j = i % 3; j < 200; j += 3) {
      rows.push_back(i);
      cols.push_back(j);
      sv.push_back(H::from_bits(static_cast<std::uint16_t>(rng())));
    }
  const auto A = SparseMatrix<H>::from_tuples(300, 200, rows, cols, sv, {}, gpu);
  CHECK(A.device() == gpu);
  const auto back = A.to(Device::cpu());
  CHECK(same_bits(back.values(), SparseMatrix<H>::from_tuples(300, 200, rows, cols, sv).values()));
  CHECK(same_bits(A.values(), back.values()));  // values() reads the device copy directly
  const auto u =
      Vector<H>::from_tuples(9, std::vector<Index>{4, 1}, std::vector<H>{vals[0x7bff], vals[0x8001]}, {}, gpu);
  CHECK(u.device() == gpu);
  const auto ud = u.densified(vals[0x3c00]).to(Device::cpu()).to_std_vector();
  CHECK(ud[4].bits == 0x7bff);
  CHECK(ud[1].bits == 0x8001);
  CHECK(ud[0].bits == 0x3c00);
}

TEST_CASE("convert on the device matches the host bit for bit", "[16bit][convert][gpu]") {
  std::mt19937_64 rng(2026);
  std::vector<half> hp(65536);
  std::vector<bfloat16> bp(65536);
  for (std::uint32_t b = 0; b < 65536; ++b) {
    hp[b] = half::from_bits(static_cast<std::uint16_t>(b));
    bp[b] = bfloat16::from_bits(static_cast<std::uint16_t>(b));
  }
  check_from(DenseMatrix<half>::from_row_major(256, 256, hp));
  check_from(DenseMatrix<bfloat16>::from_row_major(256, 256, bp));
  std::vector<float> f(1 << 18);
  for (auto& x : f) x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
  check_from(DenseMatrix<float>::from_row_major(512, 512, f));
  std::vector<double> d(1 << 18);
  for (auto& x : d) x = std::bit_cast<double>(rng());
  check_from(DenseMatrix<double>::from_row_major(512, 512, d));
  std::vector<std::int64_t> l(1 << 16);
  for (auto& x : l) x = static_cast<std::int64_t>(rng()) >> (rng() % 63);
  check_from(DenseMatrix<std::int64_t>::from_row_major(256, 256, l));
  // A sparse matrix converts on the device too, keeping its pattern there.
  const auto A =
      SparseMatrix<float>::from_tuples(3, 3, std::vector<Tuple<float>>{{0, 2, 1.0f / 3}, {2, 1, 7e4f}}, {}, gpu);
  const auto Ah = convert<half>(A);
  CHECK(Ah.device() == gpu);
  CHECK(Ah.col_indices() == A.col_indices());
  CHECK(same_bits(Ah.values(), convert<half>(A.to(Device::cpu())).values()));
}

TEMPLATE_TEST_CASE("16-bit sparse x dense with masks, accumulators and transposes on the device", "[16bit][mxm][gpu]",
                   half, bfloat16) {
  using H = TestType;
  using namespace geblas::test::mxm16;
  std::uint64_t seed = 170000;
  int combo = 0;
  for (const auto& [name, id] : semirings)
    for (const auto& [m, k, n] : std::vector<std::array<Index, 3>>{{70, 50, 8}, {33, 120, 5}, {0, 3, 2}}) {
      ++combo;
      ++seed;
      std::vector<Tuple<H>> a;
      std::vector<H> b, c0;
      random_inputs<H>(m, k, n, 0.2, seed, a, b, c0);
      Case c{name, id};
      c.b_layout = combo & 1 ? Layout::col_major : Layout::row_major;
      c.c_layout = combo & 2 ? Layout::col_major : Layout::row_major;
      c.mask = 1 + combo % 2;
      c.replace = combo % 3 == 0;
      c.accum = combo % 4 == 0 ? BinaryOpId::times : BinaryOpId::none;
      run_case<H>(c, m, k, n, a, b, c0, seed, gpu);
      Case t{name, id};
      t.accum = name == "plus_times" ? BinaryOpId::max : BinaryOpId::times;
      t.transpose_a = true;
      run_case<H>(t, m, k, n, a, b, c0, seed, gpu);
    }
}
