// The tensor-core row-window SpMM (tc_window, tc_window_all; float plus_times in TF32)
// against the fp64 Eigen reference. TF32 keeps 10 mantissa bits of each input, so a
// product term carries a relative error up to about 2^-10 and a sum of them an error up
// to about 1e-3 of sum |A(i,k)| |B(k,j)|; every output entry is checked against that
// bound (with fp32's own rounding added), which a wrong column map or a lost window
// exceeds by far. Matrices are built so that windows of every kind occur (all dense,
// all sparse, mixed, a partial last window, empty windows), and the plan's routing is
// checked to be the intended one, so no case passes through the wrong path.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <zlib.h>

#include "geblas/geblas.hpp"
#include "reference/products.hpp"
#include "geblas/tensor_cores.hpp"
#include "support/catch.hpp"
#include "support/data.hpp"

using namespace geblas;

namespace {

// TF32 error bound factor on sum |a||b| (2^-10 per product, summation in fp32 with a
// margin) and the fp32 floor for tiny sums.
constexpr double tf32_tolerance = 2e-3;

struct Case {
  Index nrows = 0, ncols = 0;
  std::vector<Tuple<float>> tuples;
  std::string what;
};

using DenseD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using SparseD = Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>;

SparseD eigen_of(const Case& c, bool absolute) {
  std::vector<Eigen::Triplet<double, std::int64_t>> t;
  for (const auto& x : c.tuples) t.emplace_back(x.row, x.col, absolute ? std::abs(double(x.value)) : double(x.value));
  SparseD E(c.nrows, c.ncols);
  E.setFromTriplets(t.begin(), t.end());
  return E;
}

float random_value(std::mt19937_64& rng) { return static_cast<float>(std::uniform_real_distribution<double>(-1, 1)(rng)); }

// Rows [16 w, 16 w + 16) of window w: dense windows draw each row's entries from a few
// shared columns, sparse ones from all columns; `kinds` holds one letter per window:
// 'd' dense, 's' sparse, 'e' empty, 'w' wide dense (600 shared columns: a tensor-core
// window split into segments), 'h' a sparse window with one hub row of 700 entries (a
// CUDA-core row split into pieces).
Case windows_case(const std::string& kinds, Index nrows, Index ncols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c;
  c.nrows = nrows;
  c.ncols = ncols;
  c.what = "kinds=" + kinds + " nrows=" + std::to_string(nrows) + " ncols=" + std::to_string(ncols) +
           " seed=" + std::to_string(seed);
  for (Index w = 0; w * 16 < nrows; ++w) {
    const char kind = kinds[static_cast<std::size_t>(w) % kinds.size()];
    std::vector<Index> pool;
    if (kind == 'd' || kind == 'w') {
      const Index width = kind == 'w' ? 600 : 8 + static_cast<Index>(rng() % 25);  // 8..32 shared columns
      std::set<Index> s;
      while (static_cast<Index>(s.size()) < std::min(width, ncols)) s.insert(static_cast<Index>(rng() % ncols));
      pool.assign(s.begin(), s.end());
    }
    for (Index i = w * 16; i < std::min(nrows, w * 16 + 16); ++i) {
      std::set<Index> cols;
      if (kind == 'd' || kind == 'w') {
        for (Index j : pool)
          if (rng() % 4 != 0) cols.insert(j);  // about 3/4 of the pool in each row
      } else if (kind == 'h' && i == w * 16 + 5) {
        while (cols.size() < 700) cols.insert(static_cast<Index>(rng() % ncols));
      } else if (kind == 's' || kind == 'h') {
        const Index len = static_cast<Index>(rng() % 4);  // 0..3 entries, spread wide
        for (Index k = 0; k < len; ++k) cols.insert(static_cast<Index>(rng() % ncols));
      }
      for (Index j : cols) c.tuples.push_back({i, j, random_value(rng)});
    }
  }
  return c;
}

DenseD random_b(Index k, Index n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  DenseD B(k, n);
  for (Index i = 0; i < k; ++i)
    for (Index j = 0; j < n; ++j) B(i, j) = static_cast<float>(std::uniform_real_distribution<double>(-1, 1)(rng));
  return B;
}

DenseMatrix<float> to_device_dense(const DenseD& D, Layout layout) {
  std::vector<float> v(static_cast<std::size_t>(D.size()));
  for (Index i = 0; i < D.rows(); ++i)
    for (Index j = 0; j < D.cols(); ++j)
      v[static_cast<std::size_t>(layout == Layout::row_major ? i * D.cols() + j : j * D.rows() + i)] =
          static_cast<float>(D(i, j));
  auto M = layout == Layout::row_major ? DenseMatrix<float>::from_row_major(D.rows(), D.cols(), v)
                                       : DenseMatrix<float>::from_col_major(D.rows(), D.cols(), v);
  return M.to(Device::cuda(0));
}

// Empty when every entry of got is within the TF32 bound of want; else the first
// mismatches. `bound` is sum |A||B| per entry; `C0` (if given) was accumulated into.
std::string check_tf32(const DenseMatrix<float>& got_d, const DenseD& want, const DenseD& bound) {
  const std::vector<float> got = got_d.to(Device::cpu()).to_row_major();
  std::ostringstream msg;
  Index bad = 0;
  bool any_nonzero = false;
  for (Index i = 0; i < want.rows(); ++i)
    for (Index j = 0; j < want.cols(); ++j) {
      const double g = got[static_cast<std::size_t>(i * want.cols() + j)];
      any_nonzero = any_nonzero || g != 0;
      const double tol = tf32_tolerance * bound(i, j) + 1e-6 * std::abs(want(i, j)) + 1e-30;
      if (!(std::abs(g - want(i, j)) <= tol)) {
        if (bad < 5) msg << " (" << i << "," << j << "): got " << g << " want " << want(i, j) << " tol " << tol << ";";
        ++bad;
      }
    }
  if (bad) msg << " " << bad << " of " << want.size() << " entries out of bound";
  if (!any_nonzero && want.size() > 0 && want.cwiseAbs().maxCoeff() > 0) msg << " output is all zeros";
  return msg.str();
}

struct Run {
  std::string variant;  // "" = the dispatcher
  bool accumulate = false;
  Layout lb = Layout::row_major, lc = Layout::row_major;
};

// Runs A x B on the GPU with `run` and checks it against fp64 Eigen.
void check_product(const Case& c, const SparseMatrix<float>& dA, Index n, std::uint64_t seed, const Run& run) {
  const SparseD E = eigen_of(c, false), Eabs = eigen_of(c, true);
  const DenseD B = random_b(c.ncols, n, seed);
  DenseD want = E * B;
  const DenseD bound = Eabs * B.cwiseAbs();
  DenseD C0 = random_b(c.nrows, n, seed + 7);
  DenseMatrix<float> C = run.accumulate ? to_device_dense(C0, run.lc)
                                        : to_device_dense(DenseD::Constant(c.nrows, n, -12345.678), run.lc);
  if (run.accumulate) want += C0;
  const DenseMatrix<float> dB = to_device_dense(B, run.lb);
  Options o;
  o.variant = run.variant;
  o.allow_tf32 = true;
  if (run.accumulate) o.accum = binop::plus<float>{};
  mxm(C, dA, dB, semiring::plus_times<float>{}, o);
  INFO(c.what << " n=" << n << " variant=" << (run.variant.empty() ? "auto:" + last_dispatch().variant : run.variant)
              << " accumulate=" << run.accumulate << " layout B/C=" << (run.lb == Layout::row_major ? "row" : "col")
              << "/" << (run.lc == Layout::row_major ? "row" : "col") << " seed=" << seed);
  CHECK(check_tf32(C, want, bound) == "");
}

SparseMatrix<float> on_gpu(const Case& c) {
  return SparseMatrix<float>::from_tuples(c.nrows, c.ncols, c.tuples).to(Device::cuda(0));
}

// A Matrix Market coordinate file (.mtx.gz) read with zlib alone, so that this test
// does not depend on geblas's own reader: symmetric files are mirrored, pattern files
// get the value 1. Enough for the shared graphs; anything else fails the test.
Case read_graph(const std::string& path, const std::string& name) {
  Case c;
  c.what = name;
  gzFile f = gzopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  char line[1024];
  bool symmetric = false, pattern = false, have_size = false;
  while (gzgets(f, line, sizeof line)) {
    std::string s(line);
    if (s.rfind("%%MatrixMarket", 0) == 0) {
      symmetric = s.find("symmetric") != std::string::npos;
      pattern = s.find("pattern") != std::string::npos;
      REQUIRE(s.find("coordinate") != std::string::npos);
      continue;
    }
    if (s.empty() || s[0] == '%' || s[0] == '\n') continue;
    std::istringstream in(s);
    if (!have_size) {
      Index nnz = 0;
      in >> c.nrows >> c.ncols >> nnz;
      c.tuples.reserve(static_cast<std::size_t>(symmetric ? 2 * nnz : nnz));
      have_size = true;
      continue;
    }
    Index i = 0, j = 0;
    double v = 1;
    in >> i >> j;
    if (!pattern) in >> v;
    c.tuples.push_back({i - 1, j - 1, static_cast<float>(v)});
    if (symmetric && i != j) c.tuples.push_back({j - 1, i - 1, static_cast<float>(v)});
  }
  gzclose(f);
  REQUIRE(have_size);
  return c;
}

// The plan's counts recomputed on the host from the tuples: per 16-row window its
// entries and distinct columns, routed by the documented rule (entries >= threshold x
// distinct columns rounded up to 8).
struct HostPlan {
  Index windows = 0, distinct = 0, tc_windows = 0, tc_nvals = 0, tc_columns = 0, empty = 0;
};
HostPlan host_plan(const Case& c, double threshold) {
  HostPlan h;
  h.windows = (c.nrows + 15) / 16;
  std::vector<std::set<Index>> cols(static_cast<std::size_t>(h.windows));
  std::vector<Index> nv(static_cast<std::size_t>(h.windows));
  for (const auto& t : c.tuples) {
    cols[static_cast<std::size_t>(t.row / 16)].insert(t.col);
    ++nv[static_cast<std::size_t>(t.row / 16)];
  }
  for (Index w = 0; w < h.windows; ++w) {
    const Index n = nv[static_cast<std::size_t>(w)], d = static_cast<Index>(cols[static_cast<std::size_t>(w)].size());
    const Index padded = (d + 7) / 8 * 8;
    h.distinct += d;
    if (n == 0) ++h.empty;
    else if (static_cast<double>(n) >= threshold * static_cast<double>(padded)) {
      ++h.tc_windows;
      h.tc_nvals += n;
      h.tc_columns += padded;
    }
  }
  return h;
}

const std::vector<Index> n_sweep = {1, 2, 5, 8, 13, 31, 32, 33, 64, 65, 127, 128, 129, 256, 257};

}  // namespace

TEST_CASE("tc_window: windows of every kind match fp64 within the TF32 bound", "[hybrid][gpu]") {
  struct Kind {
    std::string kinds;
    Index nrows, ncols;
    bool expect_tc, expect_cc, expect_empty;
  };
  const std::vector<Kind> kinds = {
      {"d", 160, 300, true, false, false},          // all dense
      {"s", 160, 300, false, true, false},          // all sparse
      {"ds", 200, 300, true, true, false},          // mixed, partial last window (200 = 12 * 16 + 8)
      {"dse", 16 * 9 + 3, 300, true, true, true},   // mixed with empty windows, last window of 3 rows
      {"e", 37, 300, false, false, true},           // nothing at all
      {"wshd", 16 * 6 + 9, 2000, true, true, false},  // segmented windows and pieces of a hub row
  };
  std::uint64_t seed = 100;
  for (const auto& k : kinds) {
    const Case c = windows_case(k.kinds, k.nrows, k.ncols, ++seed);
    const SparseMatrix<float> dA = on_gpu(c);
    const WindowPlanInfo info = window_plan_info(dA);
    INFO(c.what << ": windows " << info.windows << ", tensor-core " << info.tensor_core_windows << ", cuda-core "
                << info.cuda_core_windows << ", empty " << info.empty_windows);
    CHECK(info.windows == (k.nrows + 15) / 16);
    CHECK((info.tensor_core_windows > 0) == k.expect_tc);
    CHECK((info.cuda_core_windows > 0) == k.expect_cc);
    CHECK((info.empty_windows > 0) == k.expect_empty);
    CHECK(info.tensor_core_windows + info.cuda_core_windows + info.empty_windows == info.windows);
    const HostPlan h = host_plan(c, info.threshold);
    CHECK(info.distinct_columns == h.distinct);
    CHECK(info.tensor_core_windows == h.tc_windows);
    CHECK(info.tensor_core_nvals == h.tc_nvals);
    CHECK(info.empty_windows == h.empty);
    for (Index n : n_sweep) {
      check_product(c, dA, n, ++seed, {"tc_window"});
      check_product(c, dA, n, ++seed, {"tc_window_all"});
    }
  }
}

TEST_CASE("tc_window: layouts, accumulation and the dispatcher with allow_tf32", "[hybrid][gpu]") {
  std::uint64_t seed = 500;
  const Case c = windows_case("dswhe", 16 * 11 + 5, 1000, seed);
  const SparseMatrix<float> dA = on_gpu(c);
  for (const char* v : {"tc_window", "tc_window_all"})
    for (Index n : {Index{7}, Index{64}, Index{129}}) {
      check_product(c, dA, n, ++seed, {v, false, Layout::col_major, Layout::row_major});
      check_product(c, dA, n, ++seed, {v, false, Layout::row_major, Layout::col_major});
      check_product(c, dA, n, ++seed, {v, true, Layout::row_major, Layout::row_major});
      check_product(c, dA, n, ++seed, {v, true, Layout::col_major, Layout::col_major});
    }
  // The dispatcher takes tc_window for this matrix when TF32 is allowed: most of its
  // entries lie in dense windows.
  check_product(c, dA, 64, ++seed, {""});
  CHECK(last_dispatch().variant == "tc_window");
}

TEST_CASE("tc_window: repeated calls reuse the cached plan; a copy builds its own", "[hybrid][gpu]") {
  const Case c = windows_case("ds", 100, 90, 7);
  SparseMatrix<float> dA = on_gpu(c);
  const WindowPlanInfo first = window_plan_info(dA);
  CHECK_FALSE(first.cached);
  CHECK(first.build_ms >= 0);
  for (int rep = 0; rep < 3; ++rep) check_product(c, dA, 40, 70 + static_cast<std::uint64_t>(rep), {"tc_window"});
  CHECK(window_plan_info(dA).cached);
  const SparseMatrix<float> copy = dA;
  CHECK_FALSE(window_plan_info(copy).cached);
  check_product(c, copy, 40, 80, {"tc_window"});
}

TEST_CASE("tc_window: refused without allow_tf32, for other types and other semirings", "[hybrid][gpu]") {
  const Case c = windows_case("d", 32, 40, 9);
  const SparseMatrix<float> dA = on_gpu(c);
  auto B = DenseMatrix<float>::random(40, 16, Device::cuda(0));
  DenseMatrix<float> C(32, 16, Device::cuda(0));
  for (const char* v : {"tc_window", "tc_window_all"}) {
    CHECK_THROWS_AS(mxm(C, dA, B, semiring::plus_times<float>{}, {.variant = v}), InvalidValue);
    CHECK_THROWS_AS(mxm(C, dA, B, semiring::max_times<float>{}, {.variant = v, .allow_tf32 = true}), InvalidValue);
    auto dA64 = SparseMatrix<double>::from_tuples(32, 40, [&] {
                  std::vector<Tuple<double>> t;
                  for (const auto& x : c.tuples) t.push_back({x.row, x.col, x.value});
                  return t;
                }()).to(Device::cuda(0));
    auto B64 = DenseMatrix<double>::random(40, 16, Device::cuda(0));
    DenseMatrix<double> C64(32, 16, Device::cuda(0));
    CHECK_THROWS_AS(mxm(C64, dA64, B64, semiring::plus_times<double>{}, {.variant = v, .allow_tf32 = true}),
                    InvalidValue);
  }
  // Without allow_tf32 the dispatcher never picks a tensor-core variant, even for a
  // matrix made of dense windows.
  mxm(C, dA, B, semiring::plus_times<float>{});
  CHECK(last_dispatch().variant.rfind("tc_", 0) != 0);
}

TEST_CASE("tc_window: with allow_tf32 the dispatcher keeps sparse matrices on CUDA cores", "[hybrid][gpu]") {
  const Case c = windows_case("s", 320, 5000, 31);
  const SparseMatrix<float> dA = on_gpu(c);
  CHECK(window_plan_info(dA).tensor_core_windows == 0);
  check_product(c, dA, 64, 32, {""});
  INFO(last_dispatch().reason);
  CHECK(last_dispatch().variant.rfind("tc_", 0) != 0);
}

TEST_CASE("window_row_order: a permutation that regroups rows with shared columns", "[hybrid][gpu]") {
  // 8 groups of 16 rows, each group over its own 12 columns, rows shuffled: windows of
  // the shuffled matrix mix groups; the reordered one should bring them back together.
  std::mt19937_64 rng(11);
  const Index groups = 8, nrows = groups * 16, ncols = 400;
  std::vector<std::vector<Index>> group_cols(groups);
  for (Index g = 0; g < groups; ++g) {  // disjoint column ranges of 50
    std::set<Index> s;
    while (s.size() < 12) s.insert(g * 50 + static_cast<Index>(rng() % 50));
    group_cols[static_cast<std::size_t>(g)].assign(s.begin(), s.end());
  }
  std::vector<Index> shuffle(static_cast<std::size_t>(nrows));
  std::iota(shuffle.begin(), shuffle.end(), Index{0});
  std::shuffle(shuffle.begin(), shuffle.end(), rng);
  Case c;
  c.nrows = nrows;
  c.ncols = ncols;
  c.what = "shuffled groups";
  for (Index i = 0; i < nrows; ++i)
    for (Index j : group_cols[static_cast<std::size_t>(shuffle[static_cast<std::size_t>(i)] / 16)])
      c.tuples.push_back({i, j, random_value(rng)});
  const SparseMatrix<float> dA = on_gpu(c);
  const std::vector<Index> perm = window_row_order(dA);
  REQUIRE(static_cast<Index>(perm.size()) == nrows);
  std::vector<Index> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (Index i = 0; i < nrows; ++i) REQUIRE(sorted[static_cast<std::size_t>(i)] == i);
  std::vector<Index> position(static_cast<std::size_t>(nrows));
  for (Index i = 0; i < nrows; ++i) position[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])] = i;
  Case r = c;
  r.what = "reordered groups";
  for (auto& t : r.tuples) t.row = position[static_cast<std::size_t>(t.row)];
  const SparseMatrix<float> dR = on_gpu(r);
  const WindowPlanInfo before = window_plan_info(dA), after = window_plan_info(dR);
  INFO("distinct columns per window: before " << before.distinct_columns << ", after " << after.distinct_columns);
  CHECK(after.distinct_columns == groups * 12);  // each window is one group again
  CHECK(after.tensor_core_windows == groups);
  check_product(r, dR, 64, 12, {"tc_window"});
}

TEST_CASE("tc_window: real graphs match fp64 within the TF32 bound", "[hybrid][gpu]") {
  const std::vector<std::string> graphs = {"cora.mtx.gz",     "citeseer.mtx.gz", "bcsstk16.mtx.gz",
                                           "ca-CondMat.mtx.gz", "email-Enron.mtx.gz", "power.mtx.gz"};
  int found = 0;
  std::uint64_t seed = 900;
  for (const auto& name : graphs) {
    const std::string path = test::data_file(name);
    if (path.empty()) continue;
    ++found;
    const Case c = read_graph(path, name);
    const SparseMatrix<float> dA = on_gpu(c);
    const WindowPlanInfo info = window_plan_info(dA);
    std::printf("%s: %lld windows, %lld on tensor cores (%.1f%% of entries), plan %.2f ms\n", name.c_str(),
                static_cast<long long>(info.windows), static_cast<long long>(info.tensor_core_windows),
                100.0 * static_cast<double>(info.tensor_core_nvals) / std::max<double>(1, dA.nvals()), info.build_ms);
    for (Index n : {Index{33}, Index{64}}) {
      check_product(c, dA, n, ++seed, {"tc_window"});
      check_product(c, dA, n, ++seed, {"tc_window_all"});
    }
  }
  if (found == 0) {
    std::printf("SKIPPED (real graphs): none of the graphs is in %s\n", test::data_dir().string().c_str());
    SUCCEED("no data");
  }
}
