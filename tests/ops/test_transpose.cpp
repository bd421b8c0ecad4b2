// transpose on test::device() against the reference: sparse and dense matrices of every
// type and shape (small ones, ones that are not multiples of the GPU's 32 x 32 tiles,
// a heavy row, no entries), every mask case, accumulators, replace, and transpose_a (a
// plain copy); real graphs where the data folder has them.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "geblas/io.hpp"
#include "support/catch.hpp"
#include "support/data.hpp"
#include "support/ops_harness.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

template <class T>
void run_all(const std::vector<Dims>& dims, int reps, Shape shape, const char* accum_name, BinaryOpId accum_id,
             std::uint64_t seed) {
  int combo = 0;
  const ref::Binary<T> accum = ref::binary<T>(accum_name);
  for (int rep = 0; rep < reps; ++rep)
    for (const Dims& d : dims)
      for (MaskCase mc : all_mask_cases) {
        ++combo;
        ++seed;
        if (!in_sweep(combo)) continue;
        const bool use_accum = combo & 1, replace = combo & 2, ta = combo & 4;
        const ref::Binary<T>* acc = use_accum ? &accum : nullptr;
        Options o;
        o.replace = replace;
        o.transpose_a = ta;
        if (use_accum) o.accum = accum_of<T>(accum_id);
        std::ostringstream where;
        where << "transpose " << type_traits<T>::name << " m=" << d.m << " n=" << d.n << " shape=" << to_string(shape)
              << " mask=" << to_string(mc) << " accum=" << (use_accum ? accum_name : "none") << " replace=" << replace
              << " ta=" << ta << " seed=" << seed << " on " << device().str();
        MaskHolder mh(mc, d.m, d.n, false, seed + 2);
        o.mask = mh.mask;
        {
          auto [A, Ap] = random_matrix<T>(ta ? d.m : d.n, ta ? d.n : d.m, 0.2, seed, shape);
          auto [C, Cp] = random_matrix<T>(d.m, d.n, 0.2, seed + 1);
          const auto want = ref::write_back(Cp, ta ? Ap : ref::transpose(Ap), mh.allow, replace, acc, false, T{});
          detail::transpose(C.storage(), A.storage(), o);
          INFO("sparse " << where.str());
          CHECK(compare_partial(partial_of(C), want) == "");
        }
        {
          auto [A, Ap] = random_dense_matrix<T>(ta ? d.m : d.n, ta ? d.n : d.m, seed + 3,
                                                (combo & 8) ? Layout::col_major : Layout::row_major);
          auto [C, Cp] =
              random_dense_matrix<T>(d.m, d.n, seed + 4, (combo & 16) ? Layout::col_major : Layout::row_major);
          const auto want = ref::write_back(Cp, ta ? Ap : ref::transpose(Ap), mh.allow, replace, acc, true, T{});
          detail::transpose(C.storage(), A.storage(), o);
          INFO("dense " << where.str());
          CHECK(compare_partial(partial_of(C), want) == "");
        }
      }
}

}  // namespace

TEST_CASE("transpose matches the reference for every type and mask", "[transpose]") {
  for_each_type([&]<class T>() { run_all<T>(sweep_dims, 4, Shape::uniform, "minus", BinaryOpId::minus, 17000); });
}

// Shapes that are not multiples of 32 x 32 tiles, a heavy row, no entries; the plus and
// min accumulators.
TEMPLATE_TEST_CASE("transpose of larger and skewed matrices", "[transpose]", bool, std::int32_t, std::int64_t, float,
                   double) {
  const std::vector<Dims> dims = {{70, 45}, {33, 129}, {300, 2}, {37, 37}};
  std::uint64_t seed = 170000;
  run_all<TestType>(dims, 1, Shape::heavy_row, "plus", BinaryOpId::plus, seed += 100000);
  run_all<TestType>(dims, 1, Shape::empty, "min", BinaryOpId::min, seed += 100000);
}

TEST_CASE("transpose of real graphs matches the reference's CSR, entry for entry", "[transpose][data]") {
  const auto graphs = data_graphs();
  if (graphs.empty()) {
    WARN("no graphs in " << data_dir() << ": real-graph transposes not run");
    return;
  }
  int done = 0;
  for (const auto& g : graphs) {
    if (done == 3) break;
    const auto A = io::read_matrix_market<double>(data_file(g));
    if (A.nvals() > 3'000'000) continue;
    ++done;
    // the reference transpose: the tuples with row and column swapped, sorted by the
    // CSR builder
    std::vector<Tuple<double>> swapped;
    for (const auto& t : A.extract_tuples()) swapped.push_back({t.col, t.row, t.value});
    const auto want = SparseMatrix<double>::from_tuples(A.ncols(), A.nrows(), swapped);
    SparseMatrix<double> T(A.ncols(), A.nrows(), device());
    transpose(T, A.to(device()));
    const auto got = T.to(Device::cpu());
    INFO(g << " on " << device().str());
    CHECK(got.row_offsets() == want.row_offsets());
    CHECK(got.col_indices() == want.col_indices());
    CHECK(got.values() == want.values());
  }
}

TEST_CASE("transposed() and transpose in place of a square matrix", "[transpose]") {
  auto [A, Ap] = random_matrix<float>(30, 50, 0.1, 8);
  CHECK(compare_partial(partial_of(transposed(A)), ref::transpose(Ap)) == "");
  auto [S, Sp] = random_matrix<float>(30, 30, 0.1, 9);
  transpose(S, S);
  CHECK(compare_partial(partial_of(S), ref::transpose(Sp)) == "");
}

TEST_CASE("transpose of matrices large enough to be split over threads", "[transpose]") {
  // Above 2^15 entries the host counts and places each block of rows on its own thread
  // (as many as the entries per column allow): shapes with short and long rows, empty
  // rows and columns, more columns than rows and the reverse, against the tuples swapped.
  struct Case {
    Index m, n, entries;
    double skew;  // rows drawn as floor(m * u^skew): > 1 piles entries onto the first rows
  };
  for (const Case c : {Case{3000, 3000, 200000, 1.0}, Case{500, 40000, 300000, 3.0}, Case{60000, 700, 250000, 1.0},
                       Case{20000, 20000, 40000, 2.0}}) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(c.m * 7 + c.n));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<Tuple<float>> t, swapped;
    for (Index k = 0; k < c.entries; ++k) {
      const auto i = static_cast<Index>(static_cast<double>(c.m) * std::pow(u(rng), c.skew));
      const auto j = static_cast<Index>(rng() % static_cast<std::uint64_t>(c.n - c.n / 10));  // last tenth empty
      t.push_back({std::min(i, c.m - 1), j, static_cast<float>(k % 1000)});
    }
    const auto A = SparseMatrix<float>::from_tuples(c.m, c.n, t, binop::plus<float>{}, device());
    for (const auto& e : A.extract_tuples()) swapped.push_back({e.col, e.row, e.value});
    const auto want = SparseMatrix<float>::from_tuples(c.n, c.m, swapped);
    SparseMatrix<float> T(c.n, c.m, device());
    transpose(T, A);
    const auto got = T.to(Device::cpu());
    INFO(c.m << " x " << c.n << ", " << A.nvals() << " entries on " << device().str());
    CHECK(got.row_offsets() == want.row_offsets());
    CHECK(got.col_indices() == want.col_indices());
    CHECK(got.values() == want.values());
  }
}
