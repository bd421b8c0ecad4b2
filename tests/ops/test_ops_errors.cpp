// Bad input to the non-mxm operations on test::device(): each must throw the matching
// geblas::Error naming the operation and what is wrong (dimension, type, index, device,
// mask), before any backend runs.
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/ops_harness.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

// Runs f, expects an exception of type E whose message contains every piece.
template <class E, class F>
void expect_error(F&& f, std::vector<std::string> pieces) {
  try {
    f();
    FAIL("no exception; expected one mentioning " << pieces.front());
  } catch (const E& e) {
    const std::string what = e.what();
    for (const auto& p : pieces) {
      INFO("message: " << what);
      CHECK(what.find(p) != std::string::npos);
    }
  }
}

}  // namespace

TEST_CASE("dimension mismatches are reported with the shapes", "[errors]") {
  const Device d = device();
  SparseMatrix<float> A(4, 5, d), B(5, 4, d), C(4, 5, d);
  Vector<float> u = Vector<float>::dense(4, 0.0f, d), w(4, d), v5(5, d);
  expect_error<DimensionMismatch>([&] { mxv(w, A, u, semiring::plus_times<float>{}); },
                                  {"mxv", "u has size 4", "4 x 5"});
  expect_error<DimensionMismatch>([&] { vxm(w, v5, A, semiring::plus_times<float>{}); },
                                  {"vxm", "u has size 5", "rows"});
  expect_error<DimensionMismatch>([&] { ewise_add(C, A, B, binop::plus<float>{}); }, {"ewise_add", "5 x 4"});
  expect_error<DimensionMismatch>([&] { ewise_mult(w, u, v5, binop::times<float>{}); }, {"ewise_mult", "v 5"});
  expect_error<DimensionMismatch>([&] { apply(C, B, unop::abs<float>{}); }, {"apply", "4 x 5"});
  expect_error<DimensionMismatch>([&] { reduce(v5, A, monoid::plus<float>{}); }, {"reduce", "w has size 5"});
  expect_error<DimensionMismatch>([&] { select(C, B, selectop::tril{0}); }, {"select"});
  expect_error<DimensionMismatch>([&] { transpose(C, A); }, {"transpose", "5 x 4"});
  SparseMatrix<float> E(2, 2, d);
  expect_error<DimensionMismatch>([&] { extract(E, A, {0, 1, 2}, {0, 1}); }, {"extract", "3 x 2"});
  expect_error<DimensionMismatch>([&] { assign(C, E, {0, 1, 2}, {0, 1}); }, {"assign", "2 x 2", "3 x 2"});
  // a mask of the wrong shape / kind
  SparseMatrix<float> M(3, 3, d);
  expect_error<DimensionMismatch>([&] { ewise_add(C, A, A, binop::plus<float>{}, {.mask = M}); }, {"mask is 3 x 3"});
  expect_error<InvalidValue>([&] { ewise_add(C, A, A, binop::plus<float>{}, {.mask = u}); }, {"Vector mask"});
  expect_error<DimensionMismatch>([&] { apply(w, u, unop::abs<float>{}, {.mask = v5}); }, {"mask has size 5"});
}

TEST_CASE("type mismatches name the operand and both types", "[errors]") {
  const Device d = device();
  SparseMatrix<float> A(4, 4, d);
  Vector<float> w(4, d), u = Vector<float>::dense(4, 0.0f, d);
  // The typed templates reject mixed types at compile time; the detail entry points
  // (what the CLI and bindings call) check at run time.
  SparseMatrix<double> Ad(4, 4, d);
  expect_error<DomainMismatch>([&] { detail::mxv(w.storage(), Ad.storage(), u.storage(), SemiringId::plus_times, {}); },
                               {"mxv", "A is float64", "float32"});
  expect_error<DomainMismatch>([&] { mxv(w, A, u, semiring::plus_times<float>{}, {.accum = binop::plus<double>{}}); },
                               {"mxv", "accumulator", "float64"});
  Vector<bool> wb(4, d), ub = Vector<bool>::dense(4, false, d);
  SparseMatrix<bool> Ab(4, 4, d);
  expect_error<DomainMismatch>(
      [&] { detail::mxv(wb.storage(), Ab.storage(), ub.storage(), SemiringId::plus_times, {}); }, {"mxv", "bool"});
  Vector<std::int32_t> wi(4, d);
  expect_error<DomainMismatch>(
      [&] { detail::ewise(wi.storage(), u.storage(), u.storage(), BinaryOpId::plus, detail::EwiseKind::add, {}); },
      {"ewise_add", "u is float32", "int32"});
  expect_error<DomainMismatch>([&] { detail::reduce_rows(wi.storage(), A.storage(), MonoidId::plus, {}); },
                               {"reduce", "float32"});
}

TEST_CASE("index out of range names the operation, the argument and the index", "[errors]") {
  const Device d = device();
  SparseMatrix<float> A(4, 5, d), C2(2, 2, d);
  Vector<float> u = Vector<float>::dense(4, 0.0f, d), w2(2, d);
  expect_error<IndexOutOfBounds>([&] { extract(C2, A, {0, 4}, {0, 1}); }, {"extract", "rows[1] = 4", "[0, 4)"});
  expect_error<IndexOutOfBounds>([&] { extract(C2, A, {0, 1}, {-1, 1}); }, {"extract", "cols[0] = -1"});
  expect_error<IndexOutOfBounds>([&] { extract(w2, u, {9, 0}); }, {"extract", "indices[0] = 9"});
  expect_error<IndexOutOfBounds>([&] { extract_column(w2, A, {0, 1}, 5); }, {"extract_column", "col = 5"});
  SparseMatrix<float> C(4, 5, d);
  expect_error<IndexOutOfBounds>([&] { assign(C, 1.0f, {0, 7}, IndexList::all()); }, {"assign", "rows[1] = 7"});
  Vector<float> w(4, d);
  expect_error<IndexOutOfBounds>([&] { assign(w, 1.0f, {4}); }, {"assign", "indices[0] = 4"});
  expect_error<InvalidIndex>([&] { assign(w, 1.0f, {1, 2, 1}); }, {"assign", "indices[2] = 1", "repeats"});
}

TEST_CASE("unknown variants and inapplicable options are InvalidValue", "[errors]") {
  const Device d = device();
  SparseMatrix<float> A(4, 4, d);
  Vector<float> w(4, d), u = Vector<float>::dense(4, 0.0f, d);
  expect_error<InvalidValue>([&] { mxv(w, A, u, semiring::plus_times<float>{}, {.variant = "crc"}); },
                             {"mxv", "unknown variant"});
  expect_error<InvalidValue>([&] { mxv(w, A, u, semiring::plus_times<float>{}, {.variant = "push"}); },
                             {"mxv", "sparse u"});
  expect_error<InvalidValue>([&] { apply(w, u, unop::abs<float>{}, {.transpose_a = true}); }, {"apply"});
}

TEST_CASE("operands on another device are a DeviceMismatch naming both devices", "[errors]") {
  // Empty sparse objects allocate nothing, so they can be tagged with a GPU even on a
  // machine without one; validation rejects them before any memory is touched.
  const Device here = device(), other = here.is_cpu() ? Device::cuda(0) : Device::cpu();
  SparseMatrix<float> A(0, 0, here);
  Vector<float> w(0, here), u_other(0, other);
  expect_error<DeviceMismatch>([&] { mxv(w, A, u_other, semiring::plus_times<float>{}); },
                               {"mxv", "u is on " + other.str(), "runs on " + here.str()});
  expect_error<DeviceMismatch>([&] { ewise_add(w, w, u_other, binop::plus<float>{}); }, {"ewise_add", other.str()});
  expect_error<DeviceMismatch>([&] { apply(w, u_other, unop::abs<float>{}); }, {"apply", other.str()});
  expect_error<DeviceMismatch>([&] { extract(w, u_other, IndexList::all()); }, {"extract", other.str()});
  expect_error<DeviceMismatch>([&] { assign(w, u_other, IndexList::all()); }, {"assign", other.str()});
  expect_error<DeviceMismatch>([&] { apply(w, w, unop::abs<float>{}, {.mask = u_other}); }, {"the mask", other.str()});
}
