// Bad and extreme inputs on the host: each must raise the documented geblas::Error
// subclass with a message naming the call, never crash or allocate a wrapped size, and
// the library must work normally afterwards. docs/RELIABILITY.md lists these cases.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/catch.hpp"
#include "support/compare.hpp"
#include "support/random.hpp"

using namespace geblas;

namespace {

// The message of the geblas::Error `f` throws, or "" (and a failed check) if it throws
// nothing or something else.
template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("threw the wrong exception: " << e.what());
  }
  FAIL("threw nothing");
  return "";
}

bool mentions(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The library still computes correctly: a small product checked against the reference.
void library_still_works() {
  const auto As = test::random_sparse<float>(17, 11, 0.3, test::Shape::uniform, 5);
  const auto Bd = test::random_dense<float>(11, 4, 6);
  DenseMatrix<float> C(17, 4);
  mxm(C, As.geblas(), test::to_geblas(Bd), semiring::plus_times<float>{});
  CHECK(test::compare_dense(C, ref::spmm<float>(As.eigen(), Bd, ref::semiring<float>("plus_times"))) == "");
}

}  // namespace

TEST_CASE("dimensions outside [0, 2^31 - 1] are InvalidValue", "[reliability][bad]") {
  for (Index bad : {Index{-1}, max_dimension + 1, std::numeric_limits<Index>::min(), std::numeric_limits<Index>::max()}) {
    INFO("dimension " << bad);
    CHECK(mentions(error_of<InvalidValue>([&] { SparseMatrix<float> x(bad, 3); }), "SparseMatrix"));
    CHECK(mentions(error_of<InvalidValue>([&] { SparseMatrix<float> x(3, bad); }), "SparseMatrix"));
    CHECK(mentions(error_of<InvalidValue>([&] { DenseMatrix<float> x(bad, 3); }), "DenseMatrix"));
    CHECK(mentions(error_of<InvalidValue>([&] { Vector<float> x(bad); }), "Vector"));
    CHECK(mentions(error_of<InvalidValue>([&] {
                     SparseMatrix<float>::from_tuples(bad, 3, std::vector<Tuple<float>>{});
                   }),
                   "from_tuples"));
  }
}

TEST_CASE("dense sizes beyond memory or beyond 2^64 bytes are OutOfMemory with the bytes asked", "[reliability][oom]") {
  // 2^31-1 squared floats: about 1.8e19 bytes, more than any host has.
  const std::size_t floats = static_cast<std::size_t>(max_dimension) * static_cast<std::size_t>(max_dimension) * 4;
  try {
    DenseMatrix<float> D(max_dimension, max_dimension);
    FAIL("allocated " << floats << " bytes");
  } catch (const OutOfMemory& e) {
    CHECK(e.bytes_requested() == floats);
    CHECK(e.info() == Info::out_of_memory);
    CHECK(mentions(e.what(), std::to_string(floats)));
  }
  // (2^31-1) x (2^30+1) doubles is 2^64 + 2^33 - 8 bytes: a wrapped product would ask for
  // 8 GiB and the kernels would overrun it. It must be refused as too large.
  try {
    DenseMatrix<double> D(max_dimension, (Index{1} << 30) + 1);
    FAIL("a wrapped size was allocated");
  } catch (const OutOfMemory& e) {
    CHECK(e.bytes_requested() == SIZE_MAX);
    CHECK(mentions(e.what(), "64-bit"));
  }
  library_still_works();
}

TEST_CASE("bad tuples name the tuple and the shape", "[reliability][bad]") {
  const std::vector<Index> r = {0, 1, 2}, c = {0, 1, 5};
  const std::vector<float> v = {1, 2, 3};
  const auto msg = error_of<InvalidIndex>([&] { SparseMatrix<float>::from_tuples(3, 5, r, c, v); });
  CHECK(mentions(msg, "tuple 2 (2, 5)"));
  CHECK(mentions(msg, "3 x 5"));
  CHECK(mentions(error_of<InvalidIndex>([&] {
                   SparseMatrix<float>::from_tuples(3, 6, std::vector<Index>{0, -1}, std::vector<Index>{0, 0},
                                                    std::vector<float>{1, 2});
                 }),
                 "tuple 1 (-1, 0)"));
  CHECK(mentions(error_of<DimensionMismatch>([&] {
                   SparseMatrix<float>::from_tuples(3, 6, r, std::vector<Index>{0, 1}, v);
                 }),
                 "differ in length"));
  CHECK(mentions(error_of<InvalidValue>([&] {
                   SparseMatrix<float>::from_tuples(3, 6, std::vector<Index>{1, 1}, std::vector<Index>{2, 2},
                                                    std::vector<float>{1, 2});
                 }),
                 "duplicate"));
  library_still_works();
}

TEST_CASE("inconsistent CSR arrays are rejected before use", "[reliability][bad]") {
  using V = std::vector<float>;
  using O = std::vector<Index>;
  using C = std::vector<ColIndex>;
  CHECK(mentions(error_of<InvalidObject>([&] { SparseMatrix<float>::from_csr(2, 3, O{0, 1}, C{0}, V{1}); }),
                 "nrows + 1"));
  CHECK(mentions(error_of<InvalidObject>([&] { SparseMatrix<float>::from_csr(2, 3, O{1, 1, 1}, C{0}, V{1}); }),
                 "row_offsets[0]"));
  CHECK(mentions(error_of<InvalidObject>([&] { SparseMatrix<float>::from_csr(2, 3, O{0, 2, 1}, C{0}, V{1}); }),
                 "row_offsets"));
  // Regression: offsets that rise past nvals and come back read columns past the end
  // (found by the sanitizer build); they must be refused before any column is read.
  CHECK(mentions(error_of<InvalidObject>([&] { SparseMatrix<float>::from_csr(2, 3, O{0, 1, 0}, C{}, V{}); }),
                 "pass nvals at row 0"));
  CHECK(mentions(error_of<InvalidObject>([&] { SparseMatrix<float>::from_csr(3, 3, O{0, 5, 1, 1}, C{0}, V{1}); }),
                 "pass nvals"));
  CHECK(mentions(error_of<InvalidObject>([&] { SparseMatrix<float>::from_csr(2, 3, O{0, 2, 2}, C{2, 1}, V{1, 1}); }),
                 "not sorted"));
  CHECK(mentions(error_of<InvalidIndex>([&] { SparseMatrix<float>::from_csr(2, 3, O{0, 1, 1}, C{3}, V{1}); }),
                 "column 3"));
  CHECK(mentions(error_of<InvalidIndex>([&] { SparseMatrix<float>::from_csr(2, 3, O{0, 1, 1}, C{-7}, V{1}); }),
                 "column -7"));
  CHECK(mentions(error_of<DimensionMismatch>([&] { SparseMatrix<float>::from_csr(2, 3, O{0, 1, 1}, C{0}, V{}); }),
                 "from_csr"));
  CHECK_THROWS_AS(DenseMatrix<float>::from_row_major(2, 3, V{1, 2, 3}), Error);
  library_still_works();
}

TEST_CASE("mxm rejects mismatched operands and unknown variants", "[reliability][bad]") {
  SparseMatrix<float> A(4, 5);
  DenseMatrix<float> B(5, 3), C(4, 3);
  CHECK(mentions(error_of<DimensionMismatch>([&] {
                   DenseMatrix<float> Bbad(6, 3);
                   mxm(C, A, Bbad, semiring::plus_times<float>{});
                 }),
                 "inner dimensions"));
  CHECK(mentions(error_of<DimensionMismatch>([&] {
                   DenseMatrix<float> Cbad(5, 3);
                   mxm(Cbad, A, B, semiring::plus_times<float>{});
                 }),
                 "C is 5 x 3"));
  CHECK(mentions(error_of<InvalidValue>([&] {
                   mxm(C, A, B, semiring::plus_times<float>{}, {.variant = "no_such_variant"});
                 }),
                 "no_such_variant"));
  CHECK(mentions(error_of<DomainMismatch>([&] {
                   SparseMatrix<bool> Ab(4, 5);
                   DenseMatrix<bool> Bb(5, 3), Cb(4, 3);
                   mxm(Cb, Ab, Bb, semiring::plus_times<bool>{});
                 }),
                 "plus_times"));
  CHECK(mentions(error_of<DimensionMismatch>([&] {
                   DenseMatrix<float> M(3, 3);
                   mxm(C, A, B, semiring::plus_times<float>{}, {.mask = M});
                 }),
                 "mask"));
  if (cuda_compiled() && cuda_device_count() > 0) {
    const auto Ag = A.to(Device::cuda(0));
    CHECK(mentions(error_of<DeviceMismatch>([&] { mxm(C, Ag, B, semiring::plus_times<float>{}); }), "cuda:0"));
  }
  library_still_works();
}
