// Out of GPU memory: an object or an operation that cannot fit on cuda:0 raises
// geblas::OutOfMemory carrying the bytes asked for; afterwards the process holds no more
// device memory than before and the next operation runs and is correct.
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "reliability/gpu_memory.hpp"
#include "support/catch.hpp"
#include "support/compare.hpp"
#include "support/random.hpp"

using namespace geblas;

namespace {

void gpu_still_works() {
  const Device dev = Device::cuda(0);
  const auto As = test::random_sparse<float>(300, 200, 0.05, test::Shape::heavy_row, 99);
  const auto Bd = test::random_dense<float>(200, 33, 98);
  DenseMatrix<float> C = DenseMatrix<float>::constant(300, 33, test::poison<float>(), dev);
  mxm(C, As.geblas().to(dev), test::to_geblas(Bd, Layout::row_major, dev), semiring::plus_times<float>{});
  CHECK(test::compare_dense(C.to(Device::cpu()), ref::spmm<float>(As.eigen(), Bd, ref::semiring<float>("plus_times"))) ==
        "");
}

}  // namespace

TEST_CASE("a dense matrix larger than the GPU is OutOfMemory with the bytes asked", "[reliability][oom][gpu]") {
  std::size_t total = 0;
  test::device_free_bytes(&total);
  const Index ncols = 65536;
  const Index nrows = static_cast<Index>(2 * total / (sizeof(float) * ncols));  // twice the card
  const std::size_t before = test::pool_bytes_in_use();
  try {
    DenseMatrix<float> D(nrows, ncols, Device::cuda(0));
    FAIL("allocated " << nrows << " x " << ncols << " floats on a " << total << "-byte GPU");
  } catch (const OutOfMemory& e) {
    INFO(e.what());
    CHECK(e.bytes_requested() == static_cast<std::size_t>(nrows) * ncols * sizeof(float));
    CHECK(std::string(e.what()).find("cuda:0") != std::string::npos);
  }
  CHECK(test::pool_bytes_in_use() == before);
  gpu_still_works();
}

TEST_CASE("an mxm whose temporary cannot fit is OutOfMemory, leaks nothing, and the next one works",
          "[reliability][oom][gpu]") {
  // C takes 60% of the free memory; a masked product needs a temporary as large as C
  // before the mask is applied, which cannot fit.
  const Device dev = Device::cuda(0);
  const Index n = 1024;
  const Index m = static_cast<Index>(0.6 * static_cast<double>(test::device_free_bytes()) / (n * sizeof(float)));
  {
    DenseMatrix<float> C(m, n, dev);
    const SparseMatrix<float> A(m, 64, dev);
    const DenseMatrix<float> B = DenseMatrix<float>::random(64, n, dev);
    const SparseMatrix<float> M(m, n, dev);
    const std::size_t before = test::pool_bytes_in_use();
    try {
      mxm(C, A, B, semiring::plus_times<float>{}, {.mask = Mask::structure(M).complement()});
      FAIL("an mxm needing " << m * n * 4 << " more bytes ran with " << test::device_free_bytes() << " free");
    } catch (const OutOfMemory& e) {
      INFO(e.what());
      CHECK(e.bytes_requested() >= static_cast<std::size_t>(m) * n * sizeof(float));
    }
    CHECK(test::pool_bytes_in_use() == before);
    // C was not touched: its first and last rows are still zero.
    std::vector<float> row(static_cast<std::size_t>(n), 1.0f);
    for (Index i : {Index{0}, m - 1}) {
      detail::copy_bytes(row.data(), Device::cpu(), C.storage().data.as<float>() + i * n, dev, n * sizeof(float));
      for (float x : row) CHECK(x == 0.0f);
    }
  }
  gpu_still_works();
}

namespace {

// The outer product of a column (i + 1) and a row (j + 1): C(i, j) = (i + 1)(j + 1), every
// entry present; exact in float for these sizes.
struct Outer {
  SparseMatrix<float> a, b;
};

Outer outer_operands(Index m, Index n, Device dev) {
  std::vector<Index> ar(static_cast<std::size_t>(m)), ac(static_cast<std::size_t>(m), 0);
  std::vector<float> av(static_cast<std::size_t>(m));
  for (Index i = 0; i < m; ++i) {
    ar[static_cast<std::size_t>(i)] = i;
    av[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
  }
  std::vector<Index> br(static_cast<std::size_t>(n), 0), bc(static_cast<std::size_t>(n));
  std::vector<float> bv(static_cast<std::size_t>(n));
  for (Index j = 0; j < n; ++j) {
    bc[static_cast<std::size_t>(j)] = j;
    bv[static_cast<std::size_t>(j)] = static_cast<float>(j + 1);
  }
  return {SparseMatrix<float>::from_tuples(m, 1, ar, ac, av, {}, dev),
          SparseMatrix<float>::from_tuples(1, n, br, bc, bv, {}, dev)};
}

}  // namespace

TEST_CASE("a sparse x sparse product whose C cannot fit is OutOfMemory before it starts, and the next one works",
          "[reliability][oom][gpu]") {
  // C = a column times a row: m x n entries from m + n inputs. n columns make every row a
  // dense row of the hash method; m is chosen so that C's values and columns alone take
  // 1.5 times the free memory. The symbolic pass finds C's exact size, and the numeric
  // phase must refuse it before allocating.
  const Device dev = Device::cuda(0);
  const Index n = 65536;
  const std::size_t free_bytes = test::device_free_bytes();
  const Index m = static_cast<Index>(1.5 * static_cast<double>(free_bytes) / (static_cast<double>(n) * 8.0)) + 1;
  const std::size_t c_bytes = static_cast<std::size_t>(m) * static_cast<std::size_t>(n) * (sizeof(float) + 4);
  {
    const Outer big = outer_operands(m, n, dev);
    SparseMatrix<float> C(m, n, dev);
    const std::size_t before = test::pool_bytes_in_use();
    try {
      mxm(C, big.a, big.b, semiring::plus_times<float>{}, {.variant = "hash"});
      FAIL("a sparse product of " << c_bytes << " bytes ran with " << free_bytes << " free");
    } catch (const OutOfMemory& e) {
      INFO(e.what());
      CHECK(e.bytes_requested() >= c_bytes);
      CHECK(std::string(e.what()).find("numeric phase") != std::string::npos);
      CHECK(std::string(e.what()).find("free") != std::string::npos);
    }
    CHECK(test::pool_bytes_in_use() == before);
    CHECK(C.nvals() == 0);  // C untouched
  }
  // the library goes on: a small product of the same form, every entry checked
  const Index sm = 300, sn = 777;
  const Outer small = outer_operands(sm, sn, dev);
  SparseMatrix<float> C(sm, sn, dev);
  mxm(C, small.a, small.b, semiring::plus_times<float>{});
  const auto t = C.to(Device::cpu()).extract_tuples();
  REQUIRE(static_cast<Index>(t.size()) == sm * sn);
  Index bad = 0;
  for (std::size_t e = 0; e < t.size(); ++e) {
    const Index i = static_cast<Index>(e) / sn, j = static_cast<Index>(e) % sn;
    if (t[e].row != i || t[e].col != j || t[e].value != static_cast<float>((i + 1) * (j + 1))) ++bad;
  }
  CHECK(bad == 0);
  gpu_still_works();
}
