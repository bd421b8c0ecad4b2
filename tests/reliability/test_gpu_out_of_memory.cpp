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
