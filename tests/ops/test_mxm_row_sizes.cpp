// Sparse x sparse mxm on test::device() with output rows of every size at once: empty
// rows, rows of a few entries, of hundreds and thousands, and hundreds of rows of more
// than 8192 entries, so that every size class of the methods is taken (the GPU's hash
// bins, from one warp's table to tables in global memory, with more of the largest rows
// than blocks that take them, and its dense rows; the CPU's per-row accumulators), in C
// of 100000 and of 2^20 + 4096 columns, checked entry by entry
// against a dense-accumulator product on the host (nothing of geblas's products); and
// rows of global tables with more entries than one of the GPU's fill chunks.
// Values are small integers, so every sum is exact in every type.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "support/catch.hpp"
#include "support/device.hpp"

using namespace geblas;
using namespace geblas::test;

namespace {

struct HostCsr {
  Index nrows = 0, ncols = 0;
  std::vector<Index> ro{0};
  std::vector<ColIndex> ci;
  std::vector<std::int64_t> v;
};

// Rows of `lengths[i]` distinct random columns, values 1..3.
HostCsr random_rows(Index ncols, const std::vector<Index>& lengths, std::mt19937_64& rng) {
  HostCsr h;
  h.nrows = static_cast<Index>(lengths.size());
  h.ncols = ncols;
  std::uniform_int_distribution<ColIndex> col(0, static_cast<ColIndex>(ncols - 1));
  std::uniform_int_distribution<int> val(1, 3);
  for (Index len : lengths) {
    std::vector<ColIndex> row;
    while (static_cast<Index>(row.size()) < len) {
      row.push_back(col(rng));
      if (static_cast<Index>(row.size()) == len) {
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
      }
    }
    for (ColIndex j : row) {
      h.ci.push_back(j);
      h.v.push_back(val(rng));
    }
    h.ro.push_back(static_cast<Index>(h.ci.size()));
  }
  return h;
}

// The shapes: B's rows mostly short, every 16th long; A's rows cycle through lengths
// whose products span every size class (every 8th row reaches about 12k columns).
struct Operands {
  HostCsr A, B;
};

// Two widths of C: `wide` columns exceed what a dense row of columns takes on the GPU
// (2^20), so every row goes to a hash table; `narrow` (100000) sends the rows that touch
// a large share of the columns to dense rows and the rest to tables.
constexpr Index narrow = 100000, wide = (Index{1} << 20) + 4096;

// Rows of A: 2400, of which 300 long, so that the longest class has more rows than an
// H200 runs blocks for them. A sanitizer build (CPU only, 10-30x slower) takes a quarter:
// the same size classes, fewer rows of each.
#if defined(GEBLAS_TEST_UNDER_SANITIZER)
constexpr Index case_rows = 600;
#else
constexpr Index case_rows = 2400;
#endif

Operands operands(std::uint64_t seed, Index n, Index m = case_rows) {
  std::mt19937_64 rng(seed);
  const Index k = 3000;
  std::vector<Index> blen(k);
  for (Index q = 0; q < k; ++q) blen[q] = q % 16 == 0 ? 400 : 20;
  std::vector<Index> alen(m);
  const Index cycle[] = {0, 1, 2, 3, 6, 12, 30, 60, 100};
  for (Index i = 0; i < m; ++i) alen[i] = i % 8 == 7 ? 300 : cycle[(i / 8) % 9];
  return {random_rows(k, alen, rng), random_rows(n, blen, rng)};
}

template <class T>
SparseMatrix<T> matrix_of(const HostCsr& h) {
  std::vector<T> vals(h.v.begin(), h.v.end());
  if constexpr (std::is_same_v<T, bool>)
    for (std::size_t p = 0; p < vals.size(); ++p) vals[p] = (h.v[p] & 1) != 0;
  return SparseMatrix<T>::from_csr(h.nrows, h.ncols, h.ro, h.ci, vals, device());
}

enum class Rule { plus_times, min_plus, lor_land };

// C = A (+).(x) B on the host with a dense accumulator per row; `keep(i, j)` is the mask.
template <class Keep>
HostCsr reference(const HostCsr& A, const HostCsr& B, Rule rule, Keep keep) {
  HostCsr C;
  C.nrows = A.nrows;
  C.ncols = B.ncols;
  std::vector<std::int64_t> acc(static_cast<std::size_t>(B.ncols));
  std::vector<char> seen(static_cast<std::size_t>(B.ncols), 0);
  std::vector<ColIndex> touched;
  for (Index i = 0; i < A.nrows; ++i) {
    touched.clear();
    for (Index p = A.ro[i]; p < A.ro[i + 1]; ++p) {
      const Index k = A.ci[p];
      for (Index q = B.ro[k]; q < B.ro[k + 1]; ++q) {
        const ColIndex j = B.ci[q];
        if (!keep(i, j)) continue;
        const std::int64_t a = A.v[p], b = B.v[q];
        const std::int64_t x = rule == Rule::plus_times ? a * b : rule == Rule::min_plus ? a + b : ((a & 1) && (b & 1));
        if (!seen[j]) {
          seen[j] = 1;
          acc[j] = x;
          touched.push_back(j);
        } else {
          acc[j] = rule == Rule::plus_times ? acc[j] + x : rule == Rule::min_plus ? std::min(acc[j], x) : (acc[j] | x);
        }
      }
    }
    std::sort(touched.begin(), touched.end());
    for (ColIndex j : touched) {
      C.ci.push_back(j);
      C.v.push_back(acc[j]);
      seen[j] = 0;
    }
    C.ro.push_back(static_cast<Index>(C.ci.size()));
  }
  return C;
}

// Every row's columns and values equal; the message names the first few that differ.
template <class T>
std::string compare(const SparseMatrix<T>& got_m, const HostCsr& want) {
  const SparseMatrix<T> got = got_m.to(Device::cpu());
  const auto& s = got.storage();
  const Index* ro = s.row_offsets.template as<Index>();
  const ColIndex* ci = s.col_indices.template as<ColIndex>();
  const T* v = s.values.template as<T>();
  if (got.nvals() != static_cast<Index>(want.ci.size()))
    return "nvals " + std::to_string(got.nvals()) + ", want " + std::to_string(want.ci.size());
  std::string msg;
  int bad = 0;
  for (Index i = 0; i < want.nrows && bad < 5; ++i) {
    if (ro[i + 1] != want.ro[i + 1]) {
      msg += " row " + std::to_string(i) + " ends at " + std::to_string(ro[i + 1]) + ", want " +
             std::to_string(want.ro[i + 1]) + ";";
      ++bad;
      continue;
    }
    for (Index p = want.ro[i]; p < want.ro[i + 1]; ++p)
      if (ci[p] != want.ci[p] || static_cast<std::int64_t>(v[p]) != want.v[p]) {
        msg += " row " + std::to_string(i) + " entry " + std::to_string(p - want.ro[i]) + ": (" +
               std::to_string(ci[p]) + ", " + std::to_string(static_cast<std::int64_t>(v[p])) + ") want (" +
               std::to_string(want.ci[p]) + ", " + std::to_string(want.v[p]) + ");";
        ++bad;
        break;
      }
  }
  return msg;
}

// Rows of C by entry count, to show the case reaches every size class.
std::string row_sizes(const HostCsr& C) {
  Index small = 0, mid = 0, large = 0, huge = 0, longest = 0;
  for (Index i = 0; i < C.nrows; ++i) {
    const Index len = C.ro[i + 1] - C.ro[i];
    longest = std::max(longest, len);
    (len <= 32 ? small : len <= 2048 ? mid : len <= 8192 ? large : huge) += 1;
  }
  return std::to_string(small) + " rows <= 32, " + std::to_string(mid) + " <= 2048, " + std::to_string(large) +
         " <= 8192, " + std::to_string(huge) + " above (longest " + std::to_string(longest) + ")";
}

}  // namespace

TEMPLATE_TEST_CASE("mxm sparse x sparse: output rows of every size", "[mxm]", float, double, std::int32_t,
                   std::int64_t) {
  const auto all = [](Index, ColIndex) { return true; };
  for (const Index n : {narrow, wide}) {
    const Operands ops = operands(42, n);
    const auto A = matrix_of<TestType>(ops.A);
    const auto B = matrix_of<TestType>(ops.B);
    const HostCsr want = reference(ops.A, ops.B, Rule::plus_times, all);
    INFO(row_sizes(want));
    Index huge = 0;
    for (Index i = 0; i < want.nrows; ++i) huge += want.ro[i + 1] - want.ro[i] > 8192 ? 1 : 0;
    // more rows of the largest class than an H200 runs blocks for them (2 per SM)
    if (case_rows == 2400) REQUIRE(huge > 264);
    REQUIRE(huge > 0);
    SparseMatrix<TestType> C(A.nrows(), B.ncols(), device());
    mxm(C, A, B, semiring::plus_times<TestType>{});
    CHECK(compare(C, want) == "");
  }
  {
    const Operands ops = operands(45, narrow);
    const auto A = matrix_of<TestType>(ops.A);
    const auto B = matrix_of<TestType>(ops.B);
    const HostCsr want = reference(ops.A, ops.B, Rule::min_plus, all);
    SparseMatrix<TestType> C(A.nrows(), B.ncols(), device());
    mxm(C, A, B, semiring::min_plus<TestType>{});
    CHECK(compare(C, want) == "");
  }
}

TEST_CASE("mxm sparse x sparse: output rows of every size, logical and through a complemented mask", "[mxm]") {
  for (const Index n : {narrow, wide}) {
    const Operands ops = operands(43, n);
    const HostCsr want = reference(ops.A, ops.B, Rule::lor_land, [](Index, ColIndex) { return true; });
    const auto A = matrix_of<bool>(ops.A);
    const auto B = matrix_of<bool>(ops.B);
    SparseMatrix<bool> C(A.nrows(), B.ncols(), device());
    mxm(C, A, B, semiring::lor_land<bool>{});
    // lor_land keeps false entries where a product exists: the reference's pattern is
    // every product, its values the logical fold
    CHECK(compare(C, want) == "");
  }
  {
    const Operands ops = operands(43, narrow);
    // M: every 7th column of [0, 7000) in every 4th row, and the whole of every 200th row
    const auto in_mask = [](Index i, ColIndex j) { return i % 200 == 0 || (i % 4 == 0 && j < 7000 && j % 7 == 0); };
    std::vector<Tuple<float>> m;
    for (Index i = 0; i < ops.A.nrows; ++i)
      for (ColIndex j = 0; j < (i % 200 == 0 ? ops.B.ncols : i % 4 == 0 ? 7000 : 0); ++j)
        if (in_mask(i, j)) m.push_back({i, j, 1.0f});
    const auto M = SparseMatrix<float>::from_tuples(ops.A.nrows, ops.B.ncols, m).to(device());
    const HostCsr want = reference(ops.A, ops.B, Rule::plus_times, [&](Index i, ColIndex j) { return !in_mask(i, j); });
    const auto A = matrix_of<float>(ops.A);
    const auto B = matrix_of<float>(ops.B);
    SparseMatrix<float> C(A.nrows(), B.ncols(), device());
    mxm(C, A, B, semiring::plus_times<float>{}, {.mask = Mask::structure(M).complement()});
    CHECK(compare(C, want) == "");
  }
}

TEST_CASE("mxm sparse x sparse: every size class once, small enough for the sanitizers", "[mxm][sanitize]") {
  // 80 rows: each length of the cycle, and ten rows of more than 8192 entries
  for (const Index n : {narrow, wide}) {
    const Operands ops = operands(44, n, 80);
    const HostCsr want = reference(ops.A, ops.B, Rule::plus_times, [](Index, ColIndex) { return true; });
    INFO(row_sizes(want));
    const auto A = matrix_of<double>(ops.A);
    const auto B = matrix_of<double>(ops.B);
    SparseMatrix<double> C(A.nrows(), B.ncols(), device());
    mxm(C, A, B, semiring::plus_times<double>{});
    CHECK(compare(C, want) == "");
  }
}

TEMPLATE_TEST_CASE("mxm sparse x sparse: rows of global tables whose entries pass one fill chunk", "[mxm]", float,
                   double) {
  // C of 2^22 columns (no dense rows) whose rows all have 150000 to 340000 entries, about
  // 22 million in all: the GPU's fill pass takes these global-table rows in chunks of at
  // most 256 MiB of unsorted and sorted entries (HashSpgemmPolicy::hub_chunk_bytes), here
  // two or more, each sorted and copied into C on its own. Every third row adds two rows of
  // B (overlapping columns summed in the table), the others take one.
  std::mt19937_64 rng(46);
  const Index n = Index{1} << 22, m = case_rows / 25;
  const HostCsr B = random_rows(n, {200000, 150000}, rng);
  HostCsr A;
  A.nrows = m;
  A.ncols = 2;
  for (Index i = 0; i < m; ++i) {
    if (i % 3 == 0) {
      A.ci.insert(A.ci.end(), {0, 1});
      A.v.insert(A.v.end(), {1, 2});
    } else {
      A.ci.push_back(static_cast<ColIndex>(i % 2));
      A.v.push_back(1 + i % 2);
    }
    A.ro.push_back(static_cast<Index>(A.ci.size()));
  }
  const HostCsr want = reference(A, B, Rule::plus_times, [](Index, ColIndex) { return true; });
  INFO(row_sizes(want) << ", " << want.ci.size() << " entries");
  if (case_rows == 2400) REQUIRE(want.ci.size() * (sizeof(ColIndex) + sizeof(TestType)) * 2 > (std::size_t{256} << 20));
  SparseMatrix<TestType> C(A.nrows, B.ncols, device());
  mxm(C, matrix_of<TestType>(A), matrix_of<TestType>(B), semiring::plus_times<TestType>{});
  CHECK(compare(C, want) == "");
}
