// The tensor-core row-window SpMM (tc_window, tc_window_all; float plus_times in TF32,
// half and bfloat16 plus_times with fp32 accumulation, the second half of this file)
// against the fp64 Eigen reference. TF32 keeps 10 mantissa bits of each input, so a
// product term carries a relative error up to about 2^-10 and a sum of them an error up
// to about 1e-3 of sum |A(i,k)| |B(k,j)|; every output entry is checked against that
// bound (with fp32's own rounding added), which a wrong column map or a lost window
// exceeds by far. Matrices are built so that windows of every kind occur (all dense,
// all sparse, mixed, a partial last window, empty windows), and the plan's routing is
// checked to be the intended one, so no case passes through the wrong path.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
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
// distinct columns rounded up to the mma K: 8 for TF32, 16 for half and bfloat16).
struct HostPlan {
  Index windows = 0, distinct = 0, tc_windows = 0, tc_nvals = 0, tc_columns = 0, empty = 0;
};
HostPlan host_plan(const Case& c, double threshold, Index k_step = 8) {
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
    const Index padded = (d + k_step - 1) / k_step * k_step;
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
    const WindowPlanInfo info = window_plan_info(dA, 128);
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

TEST_CASE("tc_window: layouts and accumulation", "[hybrid][gpu]") {
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
}

// Windows whose 16 rows all hold the same `width` columns: entries per padded column
// near 16, far above every threshold of the cost model.
Case full_windows_case(Index windows, Index width, Index ncols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c;
  c.nrows = windows * 16;
  c.ncols = ncols;
  c.what = "full windows width=" + std::to_string(width) + " seed=" + std::to_string(seed);
  for (Index w = 0; w < windows; ++w) {
    std::set<Index> pool;
    while (static_cast<Index>(pool.size()) < width) pool.insert(static_cast<Index>(rng() % ncols));
    for (Index i = w * 16; i < w * 16 + 16; ++i)
      for (Index j : pool) c.tuples.push_back({i, j, random_value(rng)});
  }
  return c;
}

TEST_CASE("tc_window: with allow_tf32 the dispatcher takes tensor cores for full windows", "[hybrid][gpu]") {
  const Case c = full_windows_case(12, 32, 900, 501);
  const SparseMatrix<float> dA = on_gpu(c);
  const WindowPlanInfo info = window_plan_info(dA, 128);
  INFO("predicted gain " << info.predicted_gain << " at threshold " << info.threshold);
  CHECK(info.tensor_core_windows == 12);
  CHECK(info.predicted_gain > 0.5);  // 1 - threshold / 16 for every threshold of the model
  check_product(c, dA, 128, 502, {""});
  INFO(last_dispatch().reason);
  CHECK(last_dispatch().variant.rfind("tc_window", 0) == 0);
}

TEST_CASE("tc_window: repeated calls reuse the cached plan; a copy builds its own", "[hybrid][gpu]") {
  const Case c = windows_case("ds", 100, 90, 7);
  SparseMatrix<float> dA = on_gpu(c);
  const WindowPlanInfo first = window_plan_info(dA, 40);
  CHECK_FALSE(first.cached);
  CHECK(first.build_ms >= 0);
  for (int rep = 0; rep < 3; ++rep) check_product(c, dA, 40, 70 + static_cast<std::uint64_t>(rep), {"tc_window"});
  CHECK(window_plan_info(dA, 40).cached);
  // The routing is per threshold: an N whose band has another threshold builds its own.
  if (tc_window_threshold(TypeId::float32, 200) != tc_window_threshold(TypeId::float32, 40))
    CHECK_FALSE(window_plan_info(dA, 200).cached);
  CHECK(window_plan_info(dA, 200).cached);
  const SparseMatrix<float> copy = dA;
  CHECK_FALSE(window_plan_info(copy, 40).cached);
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
  CHECK(window_plan_info(dA, 64).tensor_core_windows == 0);
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

// ---------------------------------------------------------------------------------
// half and bfloat16 (mma m16n8k16, fp32 accumulation, C rounded once). The inputs are
// rounded to the 16-bit type first and the fp64 Eigen reference runs on those rounded
// values, so the only errors are the fp32 sums and the final rounding:
//   |c - ref| <= u |ref| + (1 + u) (terms + 1) 2^-22 S + 2^-24
// with u the type's unit roundoff (2^-11 half, 2^-8 bfloat16), S = sum |a||b| (+ |C0|
// when accumulating) and `terms` the row's entries (+ 1 when accumulating). 2^-22 per
// term is twice fp32's worst case with a margin for the tensor cores' accumulation
// (products exact, sums rounded toward zero), 2^-24 covers half's subnormal spacing. A
// lost entry, a wrong condensed column or a second rounding of a split row each exceed
// it on most outputs. No allow_tf32 is set: 16-bit inputs need none.
namespace {

template <class H>
constexpr double unit_roundoff = std::is_same_v<H, half> ? 0x1p-11 : 0x1p-8;

template <class H>
Case rounded_to(const Case& c) {
  Case r = c;
  for (auto& t : r.tuples) t.value = static_cast<float>(H(t.value));
  r.what += std::is_same_v<H, half> ? " type=half" : " type=bfloat16";
  return r;
}

template <class H>
DenseD rounded_dense(DenseD D) {
  for (Index i = 0; i < D.rows(); ++i)
    for (Index j = 0; j < D.cols(); ++j) D(i, j) = static_cast<float>(H(static_cast<float>(D(i, j))));
  return D;
}

template <class H>
DenseMatrix<H> to_device_dense16(const DenseD& D, Layout layout) {
  std::vector<H> v(static_cast<std::size_t>(D.size()));
  for (Index i = 0; i < D.rows(); ++i)
    for (Index j = 0; j < D.cols(); ++j)
      v[static_cast<std::size_t>(layout == Layout::row_major ? i * D.cols() + j : j * D.rows() + i)] =
          H(static_cast<float>(D(i, j)));
  auto M = layout == Layout::row_major ? DenseMatrix<H>::from_row_major(D.rows(), D.cols(), v)
                                       : DenseMatrix<H>::from_col_major(D.rows(), D.cols(), v);
  return M.to(Device::cuda(0));
}

// `c` already rounded to H (rounded_to<H>).
template <class H>
SparseMatrix<H> on_gpu16(const Case& c) {
  std::vector<Tuple<H>> t;
  t.reserve(c.tuples.size());
  for (const auto& x : c.tuples) t.push_back({x.row, x.col, H(x.value)});
  return SparseMatrix<H>::from_tuples(c.nrows, c.ncols, t).to(Device::cuda(0));
}

template <class H>
void check_product16(const Case& c, const SparseMatrix<H>& dA, Index n, std::uint64_t seed, const Run& run) {
  const SparseD E = eigen_of(c, false), Eabs = eigen_of(c, true);
  const DenseD B = rounded_dense<H>(random_b(c.ncols, n, seed));
  DenseD want = E * B;
  DenseD bound = Eabs * B.cwiseAbs();
  const DenseD C0 = rounded_dense<H>(random_b(c.nrows, n, seed + 7));
  if (run.accumulate) {
    want += C0;
    bound += C0.cwiseAbs();
  }
  DenseMatrix<H> C = to_device_dense16<H>(run.accumulate ? C0 : DenseD::Constant(c.nrows, n, -1234.5), run.lc);
  const DenseMatrix<H> dB = to_device_dense16<H>(B, run.lb);
  Options o;
  o.variant = run.variant;
  if (run.accumulate) o.accum = binop::plus<H>{};
  mxm(C, dA, dB, semiring::plus_times<H>{}, o);
  INFO(c.what << " n=" << n << " variant=" << (run.variant.empty() ? "auto:" + last_dispatch().variant : run.variant)
              << " accumulate=" << run.accumulate << " layout B/C=" << (run.lb == Layout::row_major ? "row" : "col")
              << "/" << (run.lc == Layout::row_major ? "row" : "col") << " seed=" << seed);
  const std::vector<H> got = C.to(Device::cpu()).to_row_major();
  std::vector<Index> terms(static_cast<std::size_t>(c.nrows), run.accumulate ? 1 : 0);
  for (const auto& t : c.tuples) ++terms[static_cast<std::size_t>(t.row)];
  const double u = unit_roundoff<H>;
  std::ostringstream msg;
  Index bad = 0;
  bool any_nonzero = false;
  for (Index i = 0; i < c.nrows; ++i)
    for (Index j = 0; j < n; ++j) {
      const double g = static_cast<float>(got[static_cast<std::size_t>(i * n + j)]);
      any_nonzero = any_nonzero || g != 0;
      const double tol = u * std::abs(want(i, j)) +
                         (1 + u) * static_cast<double>(terms[static_cast<std::size_t>(i)] + 1) * 0x1p-22 * bound(i, j) +
                         0x1p-24;
      if (!(std::abs(g - want(i, j)) <= tol)) {
        if (bad < 5) msg << " (" << i << "," << j << "): got " << g << " want " << want(i, j) << " tol " << tol << ";";
        ++bad;
      }
    }
  if (bad) msg << " " << bad << " of " << want.size() << " entries out of bound";
  if (!any_nonzero && want.size() > 0 && want.cwiseAbs().maxCoeff() > 0) msg << " output is all zeros";
  CHECK(msg.str() == "");
}

const std::vector<Index> n_sweep16 = {1, 5, 8, 13, 32, 40, 64, 72, 129, 256, 512};

template <class H>
void every_kind_16bit() {
  struct Kind {
    std::string kinds;
    Index nrows, ncols;
    bool expect_tc, expect_cc, expect_empty;
  };
  const std::vector<Kind> kinds = {
      {"d", 160, 300, true, false, false},            // all dense
      {"s", 160, 300, false, true, false},            // all sparse
      {"ds", 200, 300, true, true, false},            // mixed, partial last window (200 = 12 * 16 + 8)
      {"dse", 16 * 9 + 3, 300, true, true, true},     // mixed with empty windows, last window of 3 rows
      {"e", 37, 300, false, false, true},             // nothing at all
      {"wshd", 16 * 6 + 9, 2000, true, true, false},  // wide windows (600 > 256 columns: segments), hub rows
  };
  std::uint64_t seed = std::is_same_v<H, half> ? 1100 : 2100;
  for (const auto& k : kinds) {
    const Case c = rounded_to<H>(windows_case(k.kinds, k.nrows, k.ncols, ++seed));
    const SparseMatrix<H> dA = on_gpu16<H>(c);
    const WindowPlanInfo info = window_plan_info(dA, 128);
    INFO(c.what << ": windows " << info.windows << ", tensor-core " << info.tensor_core_windows << ", cuda-core "
                << info.cuda_core_windows << ", empty " << info.empty_windows);
    CHECK(info.k_step == 16);
    CHECK(info.windows == (k.nrows + 15) / 16);
    CHECK((info.tensor_core_windows > 0) == k.expect_tc);
    CHECK((info.cuda_core_windows > 0) == k.expect_cc);
    CHECK((info.empty_windows > 0) == k.expect_empty);
    const HostPlan h = host_plan(c, info.threshold, 16);
    CHECK(info.distinct_columns == h.distinct);
    CHECK(info.tensor_core_windows == h.tc_windows);
    CHECK(info.tensor_core_nvals == h.tc_nvals);
    CHECK(info.tensor_core_columns == h.tc_columns);
    for (Index n : n_sweep16) {
      check_product16<H>(c, dA, n, ++seed, {"tc_window"});
      check_product16<H>(c, dA, n, ++seed, {"tc_window_all"});
    }
  }
}

template <class H>
void layouts_16bit() {
  std::uint64_t seed = std::is_same_v<H, half> ? 3100 : 4100;
  const Case c = rounded_to<H>(windows_case("dswhe", 16 * 11 + 5, 1000, seed));
  const SparseMatrix<H> dA = on_gpu16<H>(c);
  for (const char* v : {"tc_window", "tc_window_all"})
    for (Index n : {Index{7}, Index{64}, Index{136}}) {
      check_product16<H>(c, dA, n, ++seed, {v, false, Layout::col_major, Layout::row_major});
      check_product16<H>(c, dA, n, ++seed, {v, false, Layout::row_major, Layout::col_major});
      check_product16<H>(c, dA, n, ++seed, {v, true, Layout::row_major, Layout::row_major});
      check_product16<H>(c, dA, n, ++seed, {v, true, Layout::col_major, Layout::col_major});
    }
}

template <class H>
void dispatcher_16bit() {
  // Full windows: the cost model predicts a large gain, and 16-bit plus_times takes
  // tensor cores without allow_tf32.
  const Case full = rounded_to<H>(full_windows_case(12, 32, 900, 601));
  const SparseMatrix<H> dF = on_gpu16<H>(full);
  CHECK(window_plan_info(dF, 128).predicted_gain > 0.5);
  check_product16<H>(full, dF, 128, 602, {""});
  INFO(last_dispatch().reason);
  CHECK(last_dispatch().variant.rfind("tc_window", 0) == 0);
  // Other semirings never run on tensor cores.
  auto B = to_device_dense16<H>(DenseD::Constant(900, 16, 0.5), Layout::row_major);
  DenseMatrix<H> C(12 * 16, 16, Device::cuda(0));
  for (const char* v : {"tc_window", "tc_window_all"})
    CHECK_THROWS_AS(mxm(C, dF, B, semiring::max_times<H>{}, {.variant = v}), InvalidValue);
}

}  // namespace

TEST_CASE("tc_window half: windows of every kind, N = 1..512, match fp64 within the stated bound",
          "[hybrid][gpu][16bit][sanitize]") {
  every_kind_16bit<half>();
}

TEST_CASE("tc_window bfloat16: windows of every kind, N = 1..512, match fp64 within the stated bound",
          "[hybrid][gpu][16bit][sanitize]") {
  every_kind_16bit<bfloat16>();
}

TEST_CASE("tc_window 16-bit: layouts, odd N, accumulation into split rows", "[hybrid][gpu][16bit][sanitize]") {
  layouts_16bit<half>();
  layouts_16bit<bfloat16>();
}

TEST_CASE("tc_window 16-bit: the dispatcher takes tensor cores for full windows, never for other semirings",
          "[hybrid][gpu][16bit][sanitize]") {
  dispatcher_16bit<half>();
  dispatcher_16bit<bfloat16>();
}

TEST_CASE("tc_window 16-bit: real graphs (their structure, random 16-bit values) match fp64", "[hybrid][gpu][16bit]") {
  const std::vector<std::string> graphs = {"bcsstk16.mtx.gz", "ca-CondMat.mtx.gz", "email-Enron.mtx.gz"};
  int found = 0;
  std::uint64_t seed = 5100;
  for (const auto& name : graphs) {
    const std::string path = test::data_file(name);
    if (path.empty()) continue;
    ++found;
    Case c = read_graph(path, name + " (16-bit real graphs)");
    // Random values in [-1, 1]: the graphs' own values (bcsstk16's reach 1e9) overflow half.
    std::mt19937_64 rng(seed);
    for (auto& t : c.tuples) t.value = random_value(rng);
    const Case ch = rounded_to<half>(c), cb = rounded_to<bfloat16>(c);
    const SparseMatrix<half> dh = on_gpu16<half>(ch);
    const SparseMatrix<bfloat16> db = on_gpu16<bfloat16>(cb);
    for (Index n : {Index{64}, Index{128}}) {
      check_product16<half>(ch, dh, n, ++seed, {"tc_window"});
      check_product16<half>(ch, dh, n, ++seed, {"tc_window_all"});
      check_product16<bfloat16>(cb, db, n, ++seed, {"tc_window"});
      check_product16<bfloat16>(cb, db, n, ++seed, {"tc_window_all"});
    }
  }
  if (found == 0) {
    std::printf("SKIPPED (16-bit real graphs): none of the graphs is in %s\n", test::data_dir().string().c_str());
    SUCCEED("no data");
  }
}

// ---------------------------------------------------------------------------------
// Fingerprints: a 64-bit FNV-1a hash of C's bits for fixed operands, per value class,
// variant, N (37: the scalar gathers; 64: the interleaved 16-byte path), layouts and
// accumulation, printed as "fingerprint ..." lines. A kernel change that promises the
// same operations in the same order is checked by running this case on the builds
// before and after it and comparing the lines. The operands keep every window within
// 256 condensed columns and every row within 128 entries, so no part of a row is added
// with atomics and each value is deterministic: the case checks that two calls agree bit
// for bit, and that C was written at all.
namespace {

template <class T>
std::uint64_t fnv1a(const std::vector<T>& v) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (std::size_t i = 0; i < v.size() * sizeof(T); ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

template <class T>
void fingerprints(const char* type_name) {
  const Case c = [] {
    Case r = windows_case("dsde", 16 * 9 + 5, 300, 9001);  // no 'w' (segments) or 'h' (pieces)
    if constexpr (!std::is_same_v<T, float>) r = rounded_to<T>(r);
    return r;
  }();
  std::vector<Tuple<T>> t;
  for (const auto& x : c.tuples) t.push_back({x.row, x.col, T(x.value)});
  const auto dA = SparseMatrix<T>::from_tuples(c.nrows, c.ncols, t).to(Device::cuda(0));
  auto dense = [](const DenseD& D, Layout layout) {
    if constexpr (std::is_same_v<T, float>) return to_device_dense(D, layout);
    else return to_device_dense16<T>(rounded_dense<T>(D), layout);
  };
  std::uint64_t seed = 9100;
  for (const char* variant : {"tc_window", "tc_window_all"})
    for (Index n : {Index{37}, Index{64}})
      for (Layout lb : {Layout::row_major, Layout::col_major})
        for (bool accumulate : {false, true}) {
          ++seed;
          const Layout lc = lb;
          const DenseMatrix<T> dB = dense(random_b(c.ncols, n, seed), lb);
          const DenseD C0 = random_b(c.nrows, n, seed + 1);
          Options o;
          o.variant = variant;
          o.allow_tf32 = true;
          if (accumulate) o.accum = binop::plus<T>{};
          std::uint64_t h[2] = {0, 0};
          for (int rep = 0; rep < 2; ++rep) {
            DenseMatrix<T> C = dense(C0, lc);
            mxm(C, dA, dB, semiring::plus_times<T>{}, o);
            const std::vector<T> got = C.to(Device::cpu()).to_row_major();
            h[rep] = fnv1a(got);
            if (rep == 0) {
              const std::vector<T> before = dense(C0, Layout::row_major).to(Device::cpu()).to_row_major();
              INFO(type_name << " " << variant << " n=" << n);
              CHECK(fnv1a(before) != h[0]);  // C was written
            }
          }
          std::printf("fingerprint %s %s n=%lld layout=%s accumulate=%d: %016llx\n", type_name, variant,
                      static_cast<long long>(n), lb == Layout::row_major ? "row" : "col", int(accumulate),
                      static_cast<unsigned long long>(h[0]));
          INFO(type_name << " " << variant << " n=" << n << " accumulate=" << accumulate);
          CHECK(h[0] == h[1]);
        }
}

}  // namespace

TEST_CASE("tc_window: result fingerprints repeat bit for bit (compare the printed lines across builds)",
          "[hybrid][gpu][fingerprint]") {
  fingerprints<float>("float-tf32");
  fingerprints<half>("half");
  fingerprints<bfloat16>("bfloat16");
}
