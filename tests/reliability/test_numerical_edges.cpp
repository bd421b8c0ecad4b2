// Numerical edge cases of mxm against the Eigen reference: NaN and infinities in A and B
// through every built-in semiring (NaN propagates through plus and times; min and max
// drop a NaN term, so a row of only NaN terms gives the identity, as binary_op.hpp
// documents), integer wrap-around, empty matrices, a zero inner dimension, N = 0, and
// empty or all-zero masks. Built for the host and, as a gpu test, for cuda:0.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/device.hpp"
#include "support/catch.hpp"
#include "support/compare.hpp"
#include "support/random.hpp"

using namespace geblas;
using test::device;

namespace {

const std::vector<std::string> semiring_names = {"plus_times", "max_times", "min_plus",  "max_plus", "min_times",
                                                 "max_min",    "min_max",   "plus_pair", "min_second", "plus_second"};

// Values a float takes at its edges, mixed with small integers so finite sums are exact.
template <class T>
T edge_value(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0: return std::numeric_limits<T>::quiet_NaN();
    case 1: return std::numeric_limits<T>::infinity();
    case 2: return -std::numeric_limits<T>::infinity();
    case 3: return T(0);
    default: return static_cast<T>(static_cast<int>(rng() % 5) - 2);
  }
}

template <class T>
test::RandomSparse<T> with_edge_values(test::RandomSparse<T> A, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (auto& t : A.tuples) t.value = edge_value<T>(rng);
  return A;
}

template <class T>
ref::Dense<T> edge_dense(Index m, Index n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  ref::Dense<T> D(m, n);
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j) D(i, j) = edge_value<T>(rng);
  return D;
}

template <class T>
DenseMatrix<T> run_mxm(const std::string& name, const SparseMatrix<T>& A, const DenseMatrix<T>& B, Options o = {}) {
  const Device dev = device();
  DenseMatrix<T> C = DenseMatrix<T>::constant(A.nrows(), B.ncols(), test::poison<T>(), dev);
  visit_semiring<T>(semiring_from_string(name.c_str()), [&]<class S>() { mxm(C, A, B, S{}, o); });
  return C.to(Device::cpu());
}

template <class T>
T identity_of(const std::string& name) {
  return ref::semiring<T>(name).identity;
}

}  // namespace

TEMPLATE_TEST_CASE("mxm propagates NaN and infinities as each semiring defines", "[reliability][nan]", float,
                   double) {
  using T = TestType;
  const Device dev = device();
  std::uint64_t seed = 500;
  for (const auto& name : semiring_names)
    for (Index n : {1, 7, 32, 33})
      for (test::Shape shape : {test::Shape::uniform, test::Shape::heavy_row, test::Shape::empty_rows}) {
        ++seed;
        const auto As = with_edge_values(test::random_sparse<T>(45, 38, 0.15, shape, seed), seed + 1);
        const ref::Dense<T> Bd = edge_dense<T>(38, n, seed + 2);
        const auto want = ref::spmm<T>(As.eigen(), Bd, ref::semiring<T>(name));
        const auto got = run_mxm<T>(name, As.geblas().to(dev), test::to_geblas(Bd, Layout::row_major, dev));
        INFO(name << " n=" << n << " shape=" << test::to_string(shape) << " seed=" << seed);
        CHECK(test::compare_dense(got, want) == "");
      }
}

TEST_CASE("max and min drop NaN terms; a row of only NaN terms gives the identity", "[reliability][nan]") {
  const Device dev = device();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Row 0: terms NaN and 3 (from A(0,0)*B(0,0) = NaN, A(0,1)*B(1,0) = 3); row 1: only a NaN
  // term; row 2: no entries.
  const auto A = SparseMatrix<float>::from_tuples(3, 2, std::vector<Index>{0, 0, 1}, std::vector<Index>{0, 1, 0},
                                                     std::vector<float>{nan, 1, nan})
                     .to(dev);
  const auto B = DenseMatrix<float>::from_row_major(2, 1, {2, 3}, dev);
  for (std::string name : {"max_times", "min_times"}) {
    const auto C = run_mxm<float>(name, A, B).to_row_major();
    const float id = identity_of<float>(name);
    INFO(name);
    CHECK(C[0] == 3.0f);   // the NaN term is dropped
    CHECK(C[1] == id);     // every term NaN: the identity, like an empty row
    CHECK(C[2] == id);
  }
  // plus_times: NaN wins.
  const auto C = run_mxm<float>("plus_times", A, B).to_row_major();
  CHECK(std::isnan(C[0]));
  CHECK(std::isnan(C[1]));
  CHECK(C[2] == 0.0f);
}

TEST_CASE("integer semirings wrap around instead of overflowing", "[reliability][overflow]") {
  const Device dev = device();
  using T = std::int32_t;
  const T big = std::numeric_limits<T>::max(), small = std::numeric_limits<T>::min();
  std::uint64_t seed = 900;
  for (const auto& name : semiring_names) {
    ++seed;
    auto As = test::random_sparse<T>(30, 20, 0.3, test::Shape::heavy_row, seed);
    std::mt19937_64 rng(seed);
    for (auto& t : As.tuples) t.value = (rng() % 3 == 0) ? big : (rng() % 2 ? small : T(rng() % 1000));
    ref::Dense<T> Bd(20, 5);
    for (Index i = 0; i < 20; ++i)
      for (Index j = 0; j < 5; ++j) Bd(i, j) = (rng() % 3 == 0) ? big : T(rng() % 1000) - 500;
    // Renamed so that the reference takes its own wrapping loop, not Eigen's product
    // (whose int arithmetic overflows, which is undefined behaviour).
    auto s = ref::semiring<T>(name);
    s.name += " (wrapping loop)";
    const auto want = ref::spmm<T>(As.eigen(), Bd, s);
    const auto got = run_mxm<T>(name, As.geblas().to(dev), test::to_geblas(Bd, Layout::row_major, dev));
    INFO(name << " seed=" << seed);
    CHECK(test::compare_dense(got, want) == "");
  }
}

TEST_CASE("mxm on empty matrices, a zero inner dimension and N = 0", "[reliability][empty]") {
  const Device dev = device();
  for (const auto& name : semiring_names) {
    INFO(name);
    const double id = identity_of<double>(name);
    // 0 rows.
    CHECK(run_mxm<double>(name, SparseMatrix<double>(0, 5, dev), DenseMatrix<double>(5, 3, dev)).nrows() == 0);
    // Inner dimension 0: no term anywhere, every entry is the identity.
    auto C = run_mxm<double>(name, SparseMatrix<double>(4, 0, dev), DenseMatrix<double>(0, 3, dev));
    for (double x : C.to_row_major()) CHECK(x == id);
    // No entries at all.
    C = run_mxm<double>(name, SparseMatrix<double>(4, 6, dev), DenseMatrix<double>::constant(6, 3, 2.0, dev));
    for (double x : C.to_row_major()) CHECK(x == id);
    // N = 0.
    const auto As = test::random_sparse<double>(9, 6, 0.4, test::Shape::uniform, 77);
    C = run_mxm<double>(name, As.geblas().to(dev), DenseMatrix<double>(6, 0, dev));
    CHECK(C.nrows() == 9);
    CHECK(C.ncols() == 0);
    CHECK(C.to_row_major().empty());
  }
  // 0 x 0 everything.
  DenseMatrix<float> C00(0, 0, dev);
  mxm(C00, SparseMatrix<float>(0, 0, dev), DenseMatrix<float>(0, 0, dev), semiring::plus_times<float>{});
  CHECK(C00.nrows() == 0);
}

TEST_CASE("empty and all-zero masks", "[reliability][mask]") {
  const Device dev = device();
  const auto As = test::random_sparse<float>(20, 15, 0.2, test::Shape::empty_rows, 31);
  const ref::Dense<float> Bd = test::random_dense<float>(15, 6, 32);
  const ref::Dense<float> C0 = test::random_dense<float>(20, 6, 33);
  const ref::Dense<float> T = ref::spmm<float>(As.eigen(), Bd, ref::semiring<float>("plus_times"));
  const auto A = As.geblas().to(dev);
  const auto B = test::to_geblas(Bd, Layout::row_major, dev);
  // A mask whose entries are all explicit zeros: a value mask allows nothing, a
  // structural mask allows exactly its entries.
  std::vector<Index> mr, mc;
  for (Index i = 0; i < 20; i += 2)
    for (Index j = 0; j < 6; j += 3) mr.push_back(i), mc.push_back(j);
  const auto Mzero = SparseMatrix<float>::from_tuples(20, 6, mr, mc, std::vector<float>(mr.size(), 0.0f)).to(dev);
  const SparseMatrix<float> Mempty(20, 6, dev);
  struct Case {
    const char* what;
    Mask mask;
    bool replace;
  };
  const std::vector<Case> cases = {
      {"empty value mask", Mask(Mempty), false},
      {"empty value mask, replace", Mask(Mempty), true},
      {"complemented empty mask", Mask(Mempty).complement(), false},
      {"all-zero value mask", Mask(Mzero), false},
      {"all-zero value mask, replace", Mask(Mzero), true},
      {"all-zero structural mask", Mask::structure(Mzero), false},
      {"complemented all-zero value mask", Mask(Mzero).complement(), true},
  };
  const auto E = As.eigen();
  for (const auto& c : cases) {
    ref::Dense<float> want = C0;
    for (Index i = 0; i < 20; ++i)
      for (Index j = 0; j < 6; ++j) {
        bool allowed = false;
        if (c.mask.sparse() == &Mzero.storage() && c.mask.structural()) allowed = (i % 2 == 0 && j % 3 == 0);
        if (c.mask.complemented()) allowed = !allowed;
        const bool row_has = E.outerIndexPtr()[i + 1] > E.outerIndexPtr()[i];
        if (allowed) want(i, j) = row_has ? T(i, j) : 0.0f;
        else if (c.replace) want(i, j) = 0.0f;
      }
    DenseMatrix<float> C = test::to_geblas(C0, Layout::row_major, dev);
    mxm(C, A, B, semiring::plus_times<float>{}, {.mask = c.mask, .replace = c.replace});
    INFO(c.what);
    CHECK(test::compare_dense(C.to(Device::cpu()), want) == "");
  }
}

namespace {

// The hand-written oracle of binary_op.hpp's rule for max and min: fold the terms from the
// identity, dropping each NaN; so a list of only NaN terms gives the identity.
float min_max_fold(const std::string& name, std::initializer_list<float> terms) {
  const bool is_max = name.rfind("max", 0) == 0;
  float acc = is_max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  for (float t : terms)
    if (!std::isnan(t)) acc = is_max ? std::max(acc, t) : std::min(acc, t);
  return acc;
}
float multiply_of(const std::string& name, float a, float b) {
  return name.find("plus") != std::string::npos ? a + b : a * b;
}

template <class Vec>
std::vector<std::pair<Index, float>> tuples_of(const Vec& w) {
  return w.to(Device::cpu()).extract_tuples();
}

}  // namespace

// Every operation that folds terms with max or min, on the device under test: an entry
// whose terms are all NaN is the identity, an entry with one finite term among NaNs is
// that term's fold. The inputs: rows 0 and 1 of A are {NaN, 1} and {NaN}, row 2 is empty.
TEST_CASE("every max / min fold gives the identity for an entry of only NaN terms", "[reliability][nan]") {
  const Device dev = device();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto A = SparseMatrix<float>::from_tuples(3, 2, std::vector<Index>{0, 0, 1}, std::vector<Index>{0, 1, 0},
                                                  std::vector<float>{nan, 1, nan})
                     .to(dev);
  // The dense twin of A, row 2 and A(1,1) NaN too, so that row 1 and row 2 are all-NaN rows.
  const auto Ad = DenseMatrix<float>::from_row_major(3, 2, {nan, 1, nan, nan, nan, nan}, dev);
  const auto Bd = DenseMatrix<float>::from_row_major(2, 1, {2, 3}, dev);
  const auto Bs = SparseMatrix<float>::from_tuples(2, 1, std::vector<Index>{0, 1}, std::vector<Index>{0, 0},
                                                   std::vector<float>{2, 3})
                      .to(dev);
  for (std::string name : {"max_times", "min_times", "max_plus", "min_plus"}) {
    INFO(name << " on " << dev.str());
    const float id = min_max_fold(name, {});
    const float row0 = min_max_fold(name, {nan, multiply_of(name, 1, 3)});
    const SemiringId s = semiring_from_string(name.c_str());
    visit_semiring<float>(s, [&]<class S>() {
      {  // sparse x dense
        auto C = DenseMatrix<float>::constant(3, 1, test::poison<float>(), dev);
        mxm(C, A, Bd, S{});
        CHECK(C.to(Device::cpu()).to_row_major() == std::vector<float>{row0, id, id});
      }
      {  // sparse x sparse: the all-NaN entry is stored (it has terms), with the identity
        SparseMatrix<float> C(3, 1, dev);
        mxm(C, A, Bs, S{});
        CHECK(C.to(Device::cpu()).extract_tuples() == std::vector<Tuple<float>>{{0, 0, row0}, {1, 0, id}});
      }
      {  // dense x dense
        auto C = DenseMatrix<float>::constant(3, 1, test::poison<float>(), dev);
        mxm(C, Ad, Bd, S{});
        CHECK(C.to(Device::cpu()).to_row_major() == std::vector<float>{row0, id, id});
      }
      {  // dense x sparse
        auto C = DenseMatrix<float>::constant(3, 1, test::poison<float>(), dev);
        mxm(C, Ad, Bs, S{});
        CHECK(C.to(Device::cpu()).to_row_major() == std::vector<float>{row0, id, id});
      }
      for (std::string_view variant : {"pull", "push"}) {  // mxv: w = A u
        INFO("mxv " << variant);
        const auto u = Vector<float>::from_tuples(2, std::vector<Index>{0, 1}, std::vector<float>{2, 3}).to(dev);
        Vector<float> w(3, dev);
        Options o;
        o.variant = variant;
        mxv(w, A, u, S{}, o);
        CHECK(tuples_of(w) == std::vector<std::pair<Index, float>>{{0, row0}, {1, id}});
      }
      for (std::string_view variant : {"pull", "push"}) {  // vxm: w = u A, column 0 of A is {NaN, NaN}
        INFO("vxm " << variant);
        const auto u = Vector<float>::from_tuples(3, std::vector<Index>{0, 1}, std::vector<float>{2, 3}).to(dev);
        Vector<float> w(2, dev);
        Options o;
        o.variant = variant;
        vxm(w, u, A, S{}, o);
        const float col1 = min_max_fold(name, {multiply_of(name, 2, 1)});
        CHECK(tuples_of(w) == std::vector<std::pair<Index, float>>{{0, id}, {1, col1}});
      }
    });
  }
  for (std::string name : {"max", "min"}) {  // reduce with the monoid alone
    INFO("reduce " << name << " on " << dev.str());
    const float id = min_max_fold(name, {});
    visit_monoid<float>(name == "max" ? MonoidId::max : MonoidId::min, [&]<class M>() {
      Vector<float> w(3, dev);
      reduce(w, A, M{});
      CHECK(tuples_of(w) == std::vector<std::pair<Index, float>>{{0, 1.0f}, {1, id}});
      Vector<float> wd(3, dev);
      reduce(wd, Ad, M{});
      CHECK(tuples_of(wd) == std::vector<std::pair<Index, float>>{{0, 1.0f}, {1, id}, {2, id}});
      const auto all_nan = Vector<float>::from_dense(std::vector<float>(100, nan), dev);
      CHECK(reduce(all_nan, M{}) == id);
    });
  }
}
