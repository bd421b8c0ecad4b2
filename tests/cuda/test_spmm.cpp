// mxm(sparse x dense) on the GPU: every registered CUDA SpMM variant forced one by one,
// and the dispatcher, against the Eigen references on random shapes (N across the
// off-by-one sizes, empty rows, one row holding half the entries, no entries, no rows),
// every built-in semiring (float for all; double, int32, int64 and bool sampled), both
// layouts and the fused accumulator, and on the shared graphs (read with
// io::read_matrix_market). Outputs are poisoned before every run and every
// entry is checked. half and bfloat16 (the variants that compute them, and the
// dispatcher) are checked against fp64 within a stated bound (see the 16-bit section).
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "geblas/detail/spmm_variants.hpp"
#include "geblas/geblas.hpp"
#include "geblas/io.hpp"
#include "support/catch.hpp"
#include "support/compare.hpp"
#include "support/data.hpp"
#include "support/random.hpp"

using namespace geblas;
using geblas::test::Shape;

namespace {

const Device gpu = Device::cuda(0);

// "" is the dispatcher; the rest are forced variants.
std::vector<std::string> variants_and_auto() {
  std::vector<std::string> v = detail::cuda_spmm_variant_names();
  v.insert(v.begin(), "");
  return v;
}

const std::vector<std::string> float_semirings = {"plus_times", "max_times", "min_plus",   "max_plus",
                                                  "min_times",  "max_min",   "min_max",    "plus_pair",
                                                  "min_second", "plus_second"};

// any_second: every entry of a row with entries is B(k, j) for some entry (i, k) of A;
// rows without entries hold the identity (0).
template <class T>
std::string check_any_second(const DenseMatrix<T>& C, const ref::Sparse<T>& A, const ref::Dense<T>& B) {
  const std::vector<T> g = C.to_row_major();
  Index bad = 0;
  std::string msg;
  for (Index i = 0; i < A.rows(); ++i)
    for (Index j = 0; j < B.cols(); ++j) {
      const T x = g[static_cast<std::size_t>(i * B.cols() + j)];
      bool ok = false;
      bool any = false;
      for (typename ref::Sparse<T>::InnerIterator it(A, i); it; ++it) {
        any = true;
        ok = ok || B(it.col(), j) == x;
      }
      if (!any) ok = x == T(0);
      if (!ok) {
        if (bad < 5) msg += " (" + std::to_string(i) + "," + std::to_string(j) + "): " + std::to_string(+x);
        ++bad;
      }
    }
  return bad ? msg + " " + std::to_string(bad) + " entries are no term of their row" : "";
}

template <class T>
void run_variant(DenseMatrix<T>& C, const SparseMatrix<T>& A, const DenseMatrix<T>& B, SemiringId id,
                 const std::string& variant, bool accumulate) {
  visit_semiring<T>(id, [&]<class S>() {
    if constexpr (supports_semiring(S::id, type_id<T>)) {
      Options o;
      o.variant = variant;
      if (accumulate) {
        using Op = typename S::add_monoid::op;
        o.accum = Op{};
      }
      mxm(C, A, B, S{}, o);
    }
  });
}

// One random case, run by every variant in `variants`.
template <class T>
void check_case(const std::string& name, Index m, Index k, Index n, Shape shape, std::uint64_t seed, Layout lb,
                Layout lc, bool accumulate, const std::vector<std::string>& variants) {
  const auto As = test::random_sparse<T>(m, k, 0.012, shape, seed);
  const ref::Dense<T> Bd = test::random_dense<T>(k, n, seed + 1);
  const auto E = As.eigen();
  ref::Dense<T> want;
  if constexpr (std::is_same_v<T, bool>) {
    // lor_land on bool is "the 0/1 integer product is non-zero", through Eigen's product.
    REQUIRE(!accumulate);
    const ref::Sparse<std::int32_t> Ei = E.template cast<std::int32_t>();
    const ref::Dense<std::int32_t> P = Ei * Bd.template cast<std::int32_t>();
    want = (P.array() != 0).matrix();
  } else {
    want = ref::spmm<T>(E, Bd, ref::semiring<T>(name));
  }
  const ref::Dense<T> C0 = test::random_dense<T>(m, n, seed + 2);
  if constexpr (!std::is_same_v<T, bool>)
  if (accumulate) {
    const auto sr = ref::semiring<T>(name);
    for (Index i = 0; i < m; ++i) {
      const bool has = E.outerIndexPtr()[i + 1] > E.outerIndexPtr()[i];
      for (Index j = 0; j < n; ++j) want(i, j) = has ? sr.add(C0(i, j), want(i, j)) : C0(i, j);
    }
  }
  const SparseMatrix<T> A = As.geblas().to(gpu);
  const DenseMatrix<T> B = test::to_geblas(Bd, lb, gpu);
  const SemiringId id = semiring_from_string(name.c_str());
  for (const auto& v : variants) {
    DenseMatrix<T> C = accumulate ? test::to_geblas(C0, lc, gpu) : DenseMatrix<T>::constant(m, n, test::poison<T>(), gpu, lc);
    run_variant(C, A, B, id, v, accumulate);
    INFO("variant=" << (v.empty() ? "auto(" + last_dispatch().variant + ")" : v) << " " << name << " "
                    << type_traits<T>::name << " m=" << m << " k=" << k << " n=" << n
                    << " shape=" << test::to_string(shape) << " seed=" << seed
                    << " B=" << (lb == Layout::row_major ? "row" : "col") << " C=" << (lc == Layout::row_major ? "row" : "col")
                    << " accumulate=" << accumulate);
    CHECK(last_dispatch().backend == "cuda");
    if (name == "any_second" && !accumulate) CHECK(check_any_second(C, E, Bd) == "");
    else CHECK(test::compare_dense(C, want) == "");
  }
}

const std::vector<Index> widths = {1, 7, 31, 32, 33, 48, 64, 80, 96, 100, 112, 128, 257, 512};

}  // namespace

TEST_CASE("cuda spmm: every variant and the dispatcher match the reference, float, every semiring", "[spmm][gpu]") {
  const auto variants = variants_and_auto();
  REQUIRE(variants.size() >= 5);
  std::uint64_t seed = 5000;
  std::vector<std::string> names = float_semirings;
  names.push_back("any_second");
  for (const auto& name : names)
    for (Shape shape : {Shape::uniform, Shape::empty_rows, Shape::heavy_row, Shape::empty})
      for (Index n : widths) {
        ++seed;
        // m, k vary with the seed so that row counts are not multiples of the block size.
        const Index m = 300 + static_cast<Index>(seed % 37), k = 700 + static_cast<Index>(seed % 91);
        const Layout lb = seed % 5 == 0 ? Layout::col_major : Layout::row_major;
        const Layout lc = seed % 7 == 0 ? Layout::col_major : Layout::row_major;
        check_case<float>(name, m, k, n, shape, seed, lb, lc, false, variants);
      }
}

TEST_CASE("cuda spmm: fused accumulate keeps rows without entries", "[spmm][gpu]") {
  const auto variants = variants_and_auto();
  std::uint64_t seed = 7000;
  for (const std::string name : {"plus_times", "max_times", "min_plus", "min_max"})
    for (Shape shape : {Shape::empty_rows, Shape::heavy_row})
      for (Index n : {1, 33, 128, 257}) {
        ++seed;
        check_case<float>(name, 211, 500, n, shape, seed, Layout::row_major, seed % 2 ? Layout::row_major : Layout::col_major,
                          true, variants);
        check_case<double>(name, 211, 500, n, shape, seed, Layout::row_major, Layout::row_major, true, variants);
      }
}

TEST_CASE("cuda spmm: other types, sampled semirings", "[spmm][gpu]") {
  const auto variants = variants_and_auto();
  std::uint64_t seed = 9000;
  for (Shape shape : {Shape::uniform, Shape::heavy_row, Shape::empty_rows})
    for (Index n : {1, 7, 32, 33, 128, 257}) {
      ++seed;
      const Layout lb = seed % 3 == 0 ? Layout::col_major : Layout::row_major;
      for (const std::string name : {"plus_times", "min_plus", "max_times", "max_plus", "min_second", "plus_pair"})
        check_case<double>(name, 123, 400, n, shape, seed, lb, Layout::row_major, false, variants);
      for (const std::string name : {"plus_times", "min_plus", "plus_pair", "max_min", "any_second"})
        check_case<std::int32_t>(name, 123, 400, n, shape, seed, lb, Layout::row_major, false, variants);
      for (const std::string name : {"plus_times", "max_min", "min_times", "plus_second"})
        check_case<std::int64_t>(name, 123, 400, n, shape, seed, Layout::row_major, lb, false, variants);
      for (const std::string name : {"lor_land", "any_second"})
        check_case<bool>(name, 123, 400, n, shape, seed, lb, Layout::row_major, false, variants);
    }
}

TEST_CASE("cuda spmm: zero sizes", "[spmm][gpu][sanitize]") {
  const auto variants = variants_and_auto();
  for (const auto& v : variants) {
    // m = 0, n = 0, k = 0 (no entries: every row gets the identity)
    check_case<float>("plus_times", 0, 50, 33, Shape::uniform, 11, Layout::row_major, Layout::row_major, false, {v});
    check_case<float>("min_plus", 40, 50, 0, Shape::uniform, 12, Layout::row_major, Layout::row_major, false, {v});
    check_case<float>("min_plus", 40, 0, 9, Shape::uniform, 13, Layout::row_major, Layout::row_major, false, {v});
    check_case<float>("max_times", 40, 50, 64, Shape::empty, 14, Layout::row_major, Layout::row_major, false, {v});
  }
}

TEST_CASE("cuda spmm: real values, long rows and many rows", "[spmm][gpu]") {
  // Real-valued entries, a row longer than any slice (merge_path carries across many
  // slices) and more rows than one grid column; tolerance for reordered float sums.
  const auto variants = variants_and_auto();
  for (Index n : {4, 33, 128}) {
    const auto As = test::random_sparse<float>(6000, 5000, 0.002, Shape::heavy_row, 77 + n, true);
    const ref::Dense<float> Bd = test::random_dense<float>(5000, n, 78 + n, true);
    const auto want = ref::spmm<float>(As.eigen(), Bd, ref::semiring<float>("plus_times"));
    const auto want_max = ref::spmm<float>(As.eigen(), Bd, ref::semiring<float>("max_times"));
    const auto A = As.geblas().to(gpu);
    const auto B = test::to_geblas(Bd, Layout::row_major, gpu);
    for (const auto& v : variants) {
      INFO("variant=" << v << " n=" << n);
      DenseMatrix<float> C = DenseMatrix<float>::constant(6000, n, test::poison<float>(), gpu);
      mxm(C, A, B, semiring::plus_times<float>{}, {.variant = v});
      CHECK(test::compare_dense(C, want, 1e-4) == "");
      // repeated calls reuse the cached workspace and row statistics
      DenseMatrix<float> C2 = DenseMatrix<float>::constant(6000, n, test::poison<float>(), gpu);
      mxm(C2, A, B, semiring::max_times<float>{}, {.variant = v});
      CHECK(test::compare_dense(C2, want_max, 0) == "");
    }
  }
}

TEST_CASE("cuda spmm: unknown variants are an error naming the choices; the dispatch is traced", "[spmm][gpu][sanitize]") {
  const auto As = test::random_sparse<float>(64, 64, 0.1, Shape::uniform, 3);
  const auto A = As.geblas().to(gpu);
  const auto B = DenseMatrix<float>::constant(64, 8, 1.0f, gpu);
  DenseMatrix<float> C(64, 8, gpu);
  CHECK_THROWS_AS(mxm(C, A, B, semiring::plus_times<float>{}, {.variant = "no_such_kernel"}), InvalidValue);
  try {
    mxm(C, A, B, semiring::plus_times<float>{}, {.variant = "fast"});
  } catch (const InvalidValue& e) {
    CHECK(std::string(e.what()).find("row_split") != std::string::npos);
  }
  mxm(C, A, B, semiring::plus_times<float>{});
  const DispatchRecord r = last_dispatch();
  CHECK(r.backend == "cuda");
  const auto names = detail::cuda_spmm_variant_names();
  CHECK(std::set<std::string>(names.begin(), names.end()).count(r.variant) == 1);
  CHECK(r.reason.find("N=8") != std::string::npos);
  for (const auto& v : names) {
    mxm(C, A, B, semiring::plus_times<float>{}, {.variant = v});
    CHECK(last_dispatch().variant == v);
  }
}

TEST_CASE("cuda spmm: a reduced set for the sanitizers", "[spmm][gpu][sanitize]") {
  // Every variant, cut rows, both vector widths and the generic path, few runs: what
  // compute-sanitizer's memcheck and racecheck go over.
  const auto variants = variants_and_auto();
  std::uint64_t seed = 12000;
  for (Index n : {1, 33, 64, 112, 257}) {
    ++seed;
    check_case<float>("plus_times", 157, 600, n, Shape::heavy_row, seed, Layout::row_major, Layout::row_major, false, variants);
    check_case<float>("min_plus", 157, 600, n, Shape::empty_rows, seed, Layout::col_major, Layout::row_major, true, variants);
    check_case<double>("max_times", 157, 600, n, Shape::heavy_row, seed, Layout::row_major, Layout::row_major, false, variants);
    check_case<std::int32_t>("plus_pair", 157, 600, n, Shape::heavy_row, seed, Layout::row_major, Layout::col_major, false, variants);
    check_case<bool>("lor_land", 157, 600, n, Shape::uniform, seed, Layout::row_major, Layout::row_major, false, variants);
  }
}

TEST_CASE("cuda spmm: skewed rows: runs of short rows, empty runs, rows cut into pieces", "[spmm][gpu]") {
  // Row lengths drawn so that work lists of equal entries (nnz_split) get units of many
  // short rows, units of only empty rows (more than 32 in a row), rows longer than any
  // unit (pieces) and rows cut by every slot boundary; every N that changes the slot
  // layout (1, 2, 4, 8, 16 and 32 lanes per slot with 16-byte loads, and the scalar path).
  const auto variants = variants_and_auto();
  std::uint64_t seed = 41000;
  for (Index n : {1, 4, 8, 16, 32, 33, 48, 64, 80, 96, 112, 128, 200}) {
    ++seed;
    std::mt19937_64 rng(seed);
    const Index m = 900, k = 700;
    std::vector<Index> ro{0};
    for (Index i = 0; i < m; ++i) {
      const auto r = rng() % 100;
      Index len = r < 35 ? 0 : r < 85 ? static_cast<Index>(1 + rng() % 12) : r < 97 ? static_cast<Index>(13 + rng() % 60)
                                                                                   : static_cast<Index>(250 + rng() % 450);
      if (i >= 300 && i < 360) len = 0;  // a run of empty rows longer than a unit's row cap
      ro.push_back(ro.back() + len);
    }
    std::vector<ColIndex> ci(static_cast<std::size_t>(ro.back()));
    std::vector<float> vals(ci.size());
    std::vector<Eigen::Triplet<float, std::int64_t>> t;
    for (Index i = 0; i < m; ++i) {
      // distinct sorted columns per row
      std::vector<ColIndex> cols(static_cast<std::size_t>(k));
      for (Index c = 0; c < k; ++c) cols[static_cast<std::size_t>(c)] = static_cast<ColIndex>(c);
      std::shuffle(cols.begin(), cols.end(), rng);
      const Index len = ro[static_cast<std::size_t>(i + 1)] - ro[static_cast<std::size_t>(i)];
      std::sort(cols.begin(), cols.begin() + len);
      for (Index q = 0; q < len; ++q) {
        const auto p = static_cast<std::size_t>(ro[static_cast<std::size_t>(i)] + q);
        ci[p] = cols[static_cast<std::size_t>(q)];
        vals[p] = static_cast<float>(static_cast<int>(rng() % 7) - 3);  // small integers: exact sums
        t.emplace_back(i, ci[p], vals[p]);
      }
    }
    ref::Sparse<float> E(m, k);
    E.setFromTriplets(t.begin(), t.end());
    const SparseMatrix<float> A = SparseMatrix<float>::from_csr(m, k, ro, ci, vals).to(gpu);
    const ref::Dense<float> Bd = test::random_dense<float>(k, n, seed + 1);
    const DenseMatrix<float> B = test::to_geblas(Bd, Layout::row_major, gpu);
    const ref::Dense<float> C0 = test::random_dense<float>(m, n, seed + 2);
    for (const std::string name : {"plus_times", "min_plus"})
      for (bool accumulate : {false, true}) {
        const auto sr = ref::semiring<float>(name);
        ref::Dense<float> want = ref::spmm<float>(E, Bd, sr);
        if (accumulate)
          for (Index i = 0; i < m; ++i)
            for (Index j = 0; j < n; ++j)
              if (ro[static_cast<std::size_t>(i + 1)] > ro[static_cast<std::size_t>(i)]) want(i, j) = sr.add(C0(i, j), want(i, j));
              else want(i, j) = C0(i, j);
        for (const auto& v : variants) {
          DenseMatrix<float> C = accumulate ? test::to_geblas(C0, Layout::row_major, gpu)
                                            : DenseMatrix<float>::constant(m, n, test::poison<float>(), gpu);
          run_variant(C, A, B, semiring_from_string(name.c_str()), v, accumulate);
          INFO("skewed rows " << name << " n=" << n << " seed=" << seed << " accumulate=" << accumulate
                              << " variant=" << (v.empty() ? "auto(" + last_dispatch().variant + ")" : v));
          CHECK(test::compare_dense(C, want) == "");
        }
      }
  }
}

TEST_CASE("cuda spmm: the shared graphs, every variant and the dispatcher", "[spmm][gpu][graphs]") {
  const auto graphs = test::data_graphs();
  if (graphs.empty()) {
    WARN("no shared graphs under " << test::data_dir().string() << " (GEBLAS_DATA_DIR): graph cases skipped");
    return;
  }
  const auto variants = variants_and_auto();
  std::uint64_t seed = 31000;
  for (const auto& file : graphs) {
    const SparseMatrix<float> G = io::read_matrix_market<float>(test::data_file(file));
    // The graph's pattern with small integer values, so that every sum is exact whatever
    // the order (several files hold real values); the Eigen twin from the same arrays.
    std::vector<Index> ro(G.row_offsets_data(), G.row_offsets_data() + G.nrows() + 1);
    std::vector<ColIndex> ci(G.col_indices_data(), G.col_indices_data() + G.nvals());
    std::vector<float> vals(ci.size());
    for (std::size_t p = 0; p < vals.size(); ++p) vals[p] = static_cast<float>(static_cast<int>(p % 7) - 3);
    const SparseMatrix<float> H = SparseMatrix<float>::from_csr(G.nrows(), G.ncols(), ro, ci, vals);
    std::vector<Eigen::Triplet<float, std::int64_t>> t;
    t.reserve(static_cast<std::size_t>(H.nvals()));
    for (Index i = 0; i < H.nrows(); ++i)
      for (Index p = H.row_offsets_data()[i]; p < H.row_offsets_data()[i + 1]; ++p)
        t.emplace_back(i, H.col_indices_data()[p], H.values_data()[p]);
    ref::Sparse<float> E(H.nrows(), H.ncols());
    E.setFromTriplets(t.begin(), t.end());
    const SparseMatrix<float> A = H.to(gpu);
    for (Index n : {33, 64}) {
      ++seed;
      // Small integers: every sum is exact in float whatever the order.
      const ref::Dense<float> Bd = test::random_dense<float>(H.ncols(), n, seed);
      const DenseMatrix<float> B = test::to_geblas(Bd, Layout::row_major, gpu);
      for (const std::string name : {"plus_times", "min_plus"}) {
        const ref::Dense<float> want = ref::spmm<float>(E, Bd, ref::semiring<float>(name));
        for (const auto& v : variants) {
          DenseMatrix<float> C = DenseMatrix<float>::constant(H.nrows(), n, test::poison<float>(), gpu);
          run_variant(C, A, B, semiring_from_string(name.c_str()), v, false);
          INFO(file << " " << name << " n=" << n << " seed=" << seed << " variant="
                    << (v.empty() ? "auto(" + last_dispatch().variant + ")" : v));
          CHECK(test::compare_dense(C, want) == "");
        }
      }
    }
  }
}

namespace {

// ---------------------------------------------------------------------------------------
// half and bfloat16: A, B and C all 16-bit, computed in float, rounded once when stored.
// The reference is fp64 Eigen on the 16-bit-rounded inputs. Every element must satisfy
//   |c - ref| <= u |ref| + (1 + u) (t + 1) 2^-23 S + s
// where u is the type's unit roundoff (2^-11 half, 2^-8 bfloat16: the one rounding of
// the stored result), t the number of terms of the element (entries of the row, plus
// the old C when accumulating), S the sum of the terms' magnitudes |a (x) b| (the fp32
// accumulation error of t terms in any order, with a factor 2 of slack) and s half of
// the smallest subnormal step (2^-25 for half, whose results may be subnormal).
// Infinite references (the identity of max and min in rows without entries) must be
// matched exactly.

// The variants that compute 16-bit values; every other one must refuse them, naming the type.
const std::set<std::string> variants_16bit = {
    "row_split",           "row_pieces",           "row_group",       "nnz_split",
    "nnz_split_fused",     "nnz_split_long",       "nnz_split_line",  "nnz_split_line_long",
    "nnz_split_rows_long", "nnz_split_long_waves", "row_pieces_long", "row_pieces_wide"};

template <class H>
constexpr double unit_roundoff = std::is_same_v<H, half> ? 0x1p-11 : 0x1p-8;
template <class H>
constexpr double subnormal_half_step = std::is_same_v<H, half> ? 0x1p-25 : 0x1p-134;

template <class H>
float round16(double x) {
  return static_cast<float>(H(static_cast<float>(x)));
}

// Whether a 16-bit variant takes the problem: the nnz_split family only the fast path with
// 16-byte loads (plus_times, max_times, min_plus; B and C row-major; N a multiple of 8);
// the others every semiring float takes, any layout.
bool takes16(const std::string& variant, const std::string& semiring, Index n, Layout lb, Layout lc) {
  if (variant.rfind("nnz_split", 0) != 0) return true;
  return (semiring == "plus_times" || semiring == "max_times" || semiring == "min_plus") && lb == Layout::row_major &&
         lc == Layout::row_major && n % 8 == 0;
}

// The variants a 16-bit case runs: the dispatcher ("") and the 16-bit ones.
std::vector<std::string> variants_and_auto_16bit() {
  std::vector<std::string> v{""};
  for (const auto& name : detail::cuda_spmm_variant_names())
    if (variants_16bit.count(name)) v.push_back(name);
  return v;
}

// A 16-bit problem and its fp64 twin: A in CSR with sorted columns, B and C0 dense.
template <class H>
struct Problem16 {
  Index m = 0, k = 0, n = 0;
  std::vector<Index> ro{0};
  std::vector<ColIndex> ci;
  std::vector<float> av;        // A's values, already rounded to H
  ref::Dense<double> Bd, C0d;   // rounded to H
  ref::Sparse<double> E;

  SparseMatrix<H> a16() const {
    std::vector<H> h(av.size());
    for (std::size_t p = 0; p < av.size(); ++p) h[p] = H(av[p]);
    return SparseMatrix<H>::from_csr(m, k, ro, ci, h);
  }
  static DenseMatrix<H> dense16(const ref::Dense<double>& D, Layout layout) {
    std::vector<H> v(static_cast<std::size_t>(D.size()));
    for (Index i = 0; i < D.rows(); ++i)
      for (Index j = 0; j < D.cols(); ++j)
        v[static_cast<std::size_t>(layout == Layout::row_major ? i * D.cols() + j : j * D.rows() + i)] =
            H(static_cast<float>(D(i, j)));
    return layout == Layout::row_major ? DenseMatrix<H>::from_row_major(D.rows(), D.cols(), v, gpu)
                                       : DenseMatrix<H>::from_col_major(D.rows(), D.cols(), v, gpu);
  }
  void finish() {
    std::vector<Eigen::Triplet<double, std::int64_t>> t;
    for (Index i = 0; i < m; ++i)
      for (Index p = ro[static_cast<std::size_t>(i)]; p < ro[static_cast<std::size_t>(i + 1)]; ++p)
        t.emplace_back(i, ci[static_cast<std::size_t>(p)], av[static_cast<std::size_t>(p)]);
    E = ref::Sparse<double>(m, k);
    E.setFromTriplets(t.begin(), t.end());
  }
};

// Real values in [-2, 2) rounded to H.
template <class H>
ref::Dense<double> random_dense16(Index r, Index c, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-2, 2);
  ref::Dense<double> D(r, c);
  for (Index i = 0; i < r; ++i)
    for (Index j = 0; j < c; ++j) D(i, j) = round16<H>(d(rng));
  return D;
}

template <class H>
Problem16<H> random_problem16(Index m, Index k, Index n, Shape shape, std::uint64_t seed) {
  Problem16<H> P;
  P.m = m, P.k = k, P.n = n;
  auto tuples = test::random_sparse<float>(m, k, 0.012, shape, seed, true).tuples;
  std::sort(tuples.begin(), tuples.end(), [](const auto& x, const auto& y) {
    return std::pair(x.row, x.col) < std::pair(y.row, y.col);
  });
  std::size_t q = 0;
  for (Index i = 0; i < m; ++i) {
    for (; q < tuples.size() && tuples[q].row == i; ++q) {
      P.ci.push_back(static_cast<ColIndex>(tuples[q].col));
      P.av.push_back(round16<H>(4.0 * tuples[q].value - 2.0));
    }
    P.ro.push_back(static_cast<Index>(P.ci.size()));
  }
  P.Bd = random_dense16<H>(k, n, seed + 1);
  P.C0d = random_dense16<H>(m, n, seed + 2);
  P.finish();
  return P;
}

Accum accum_of(SemiringId id, TypeId type) {
  Accum a;
  visit_semiring<float>(id, [&]<class S>() {
    if constexpr (supports_semiring(S::id, TypeId::float32)) a.op = S::add_monoid::op::id;
  });
  a.type = type;
  return a;
}

// The fp64 reference of every element and its bound (above); infinite references must be
// met exactly. Computed once per case, for every variant.
struct Expect16 {
  ref::Dense<double> want, bound;
};

template <class H>
Expect16 expect16(const Problem16<H>& P, const std::string& name, bool accumulate) {
  const auto sr = ref::semiring<double>(name);
  Expect16 e{ref::spmm<double>(P.E, P.Bd, sr), ref::Dense<double>(P.m, P.n)};
  const double u = unit_roundoff<H>;
  for (Index i = 0; i < P.m; ++i) {
    const Index beg = P.ro[static_cast<std::size_t>(i)], end = P.ro[static_cast<std::size_t>(i + 1)];
    for (Index j = 0; j < P.n; ++j) {
      double S = 0;
      Index terms = end - beg;
      for (Index p = beg; p < end; ++p)
        S += std::abs(sr.mul(P.av[static_cast<std::size_t>(p)], P.Bd(P.ci[static_cast<std::size_t>(p)], j)));
      if (accumulate) {
        const double c0 = P.C0d(i, j);
        e.want(i, j) = end > beg ? sr.add(c0, e.want(i, j)) : c0;
        S += std::abs(c0);
        ++terms;
      }
      e.bound(i, j) = u * std::abs(e.want(i, j)) + (1 + u) * static_cast<double>(terms + 1) * 0x1p-23 * S +
                      subnormal_half_step<H>;
    }
  }
  return e;
}

// Empty string when every element of C is within its bound.
template <class H>
std::string check16(const DenseMatrix<H>& C, const Expect16& e) {
  const std::vector<H> got = C.to_row_major();
  std::ostringstream msg;
  Index bad = 0;
  const Index m = e.want.rows(), n = e.want.cols();
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < n; ++j) {
      const double w = e.want(i, j), g = static_cast<float>(got[static_cast<std::size_t>(i * n + j)]);
      const bool ok = std::isinf(w) ? g == w : std::abs(g - w) <= e.bound(i, j);
      if (!ok) {
        if (bad < 5) msg << " (" << i << "," << j << "): got " << g << " want " << w << " bound " << e.bound(i, j) << ";";
        ++bad;
      }
    }
  if (bad) msg << " " << bad << " of " << m * n << " entries outside the bound";
  return msg.str();
}

template <class H>
void run16(DenseMatrix<H>& C, const SparseMatrix<H>& A, const DenseMatrix<H>& B, SemiringId id, const std::string& variant,
           bool accumulate) {
  Options o;
  o.variant = variant;
  if (accumulate) o.accum = accum_of(id, type_id<H>);
  detail::mxm(C.storage(), A.storage(), B.storage(), id, o);
}

template <class H>
void check_case16(const std::string& name, const Problem16<H>& P, Layout lb, Layout lc, bool accumulate,
                  const std::vector<std::string>& variants, const std::string& what) {
  const SparseMatrix<H> A = P.a16().to(gpu);
  const DenseMatrix<H> B = Problem16<H>::dense16(P.Bd, lb);
  const SemiringId id = semiring_from_string(name.c_str());
  const Expect16 expect = expect16(P, name, accumulate);
  for (const auto& v : variants) {
    DenseMatrix<H> C = accumulate ? Problem16<H>::dense16(P.C0d, lc)
                                  : DenseMatrix<H>::constant(P.m, P.n, H(test::poison<float>()), gpu, lc);
    if (!v.empty() && !takes16(v, name, P.n, lb, lc)) {
      INFO("variant " << v << " must refuse " << name << " " << type_traits<H>::name << " n=" << P.n);
      try {
        run16(C, A, B, id, v, accumulate);
        FAIL("ran");
      } catch (const InvalidValue& e) {
        CHECK(std::string(e.what()).find(std::string(type_traits<H>::name)) != std::string::npos);
      }
      continue;
    }
    run16(C, A, B, id, v, accumulate);
    INFO("variant=" << (v.empty() ? "auto(" + last_dispatch().variant + ": " + last_dispatch().reason + ")" : v) << " "
                    << name << " " << type_traits<H>::name << " " << what << " m=" << P.m << " k=" << P.k
                    << " n=" << P.n << " B=" << (lb == Layout::row_major ? "row" : "col")
                    << " C=" << (lc == Layout::row_major ? "row" : "col") << " accumulate=" << accumulate);
    CHECK(last_dispatch().backend == "cuda");
    // a variant that computes the type (the dispatcher may also route 16-bit plus_times to tc_window)
    CHECK((variants_16bit.count(last_dispatch().variant) == 1 || last_dispatch().variant.rfind("tc_window", 0) == 0));
    CHECK(check16(C, expect) == "");
  }
}

template <class H>
void random_case16(const std::string& name, Index m, Index k, Index n, Shape shape, std::uint64_t seed, Layout lb,
                   Layout lc, bool accumulate, const std::vector<std::string>& variants) {
  const Problem16<H> P = random_problem16<H>(m, k, n, shape, seed);
  check_case16(name, P, lb, lc, accumulate, variants,
               std::string("shape=") + test::to_string(shape) + " seed=" + std::to_string(seed));
}

}  // namespace

// plus_times, max_times, min_plus run the fast path on row-major operands; max_plus and
// plus_second the generic one.
const std::vector<std::string> semirings_16bit = {"plus_times", "max_times", "min_plus", "max_plus", "plus_second"};

TEST_CASE("cuda spmm 16-bit: every 16-bit variant and the dispatcher within the bound of the fp64 reference",
          "[spmm][gpu][16bit]") {
  const auto variants = variants_and_auto_16bit();
  REQUIRE(variants.size() == variants_16bit.size() + 1);
  std::uint64_t seed = 60000;
  for (const auto& name : semirings_16bit)
    for (Shape shape : {Shape::uniform, Shape::empty_rows, Shape::heavy_row})
      for (Index n : {1, 7, 8, 16, 33, 64, 100, 128, 257, 512}) {
        ++seed;
        const Index m = 300 + static_cast<Index>(seed % 37), k = 700 + static_cast<Index>(seed % 91);
        const Layout lb = seed % 5 == 0 ? Layout::col_major : Layout::row_major;
        const Layout lc = seed % 7 == 0 ? Layout::col_major : Layout::row_major;
        random_case16<half>(name, m, k, n, shape, seed, lb, lc, false, variants);
        random_case16<bfloat16>(name, m, k, n, shape, seed, lb, lc, false, variants);
      }
}

TEST_CASE("cuda spmm 16-bit: fused accumulate rounds once and keeps rows without entries", "[spmm][gpu][16bit]") {
  const auto variants = variants_and_auto_16bit();
  std::uint64_t seed = 61000;
  for (const std::string name : {"plus_times", "max_times", "min_plus", "max_plus"})
    for (Shape shape : {Shape::empty_rows, Shape::heavy_row})
      for (Index n : {1, 8, 33, 128, 264}) {
        ++seed;
        const Layout lc = seed % 3 == 0 ? Layout::col_major : Layout::row_major;
        random_case16<half>(name, 211, 500, n, shape, seed, Layout::row_major, lc, true, variants);
        random_case16<bfloat16>(name, 211, 500, n, shape, seed, Layout::row_major, lc, true, variants);
      }
}

TEST_CASE("cuda spmm 16-bit: variants that do not compute 16-bit values refuse them, naming the type; the trace names it",
          "[spmm][gpu][16bit][sanitize]") {
  const Problem16<half> P = random_problem16<half>(64, 64, 8, Shape::uniform, 3);
  const SparseMatrix<half> A = P.a16().to(gpu);
  const DenseMatrix<half> B = Problem16<half>::dense16(P.Bd, Layout::row_major);
  DenseMatrix<half> C(64, 8, gpu);
  for (const auto& v : detail::cuda_spmm_variant_names()) {
    if (variants_16bit.count(v)) continue;
    INFO("variant " << v);
    try {
      run16(C, A, B, SemiringId::plus_times, v, false);
      FAIL("variant " << v << " ran a float16 problem");
    } catch (const InvalidValue& e) {
      CHECK(std::string(e.what()).find("float16") != std::string::npos);
    }
  }
  run16(C, A, B, SemiringId::plus_times, "", false);
  CHECK(last_dispatch().reason.find("float16") != std::string::npos);
  CHECK(check16(C, expect16(P, "plus_times", false)) == "");
}

TEST_CASE("cuda spmm 16-bit: a reduced set for the sanitizers", "[spmm][gpu][16bit][sanitize]") {
  // Every 16-bit variant, cut rows, 16-byte and scalar loads, the generic path, fused
  // accumulate and zero sizes: what memcheck and racecheck go over for the 16-bit kernels.
  const auto variants = variants_and_auto_16bit();
  std::uint64_t seed = 62000;
  for (Index n : {8, 33, 64}) {
    ++seed;
    random_case16<half>("plus_times", 157, 600, n, Shape::heavy_row, seed, Layout::row_major, Layout::row_major, false, variants);
    random_case16<bfloat16>("min_plus", 157, 600, n, Shape::empty_rows, seed, Layout::row_major, Layout::row_major, true, variants);
    random_case16<bfloat16>("plus_times", 157, 600, n, Shape::heavy_row, seed, Layout::row_major, Layout::row_major, true, variants);
    random_case16<half>("max_plus", 157, 600, n, Shape::heavy_row, seed, Layout::col_major, Layout::row_major, false, variants);
  }
  for (const auto& v : variants) {
    random_case16<half>("plus_times", 0, 50, 16, Shape::uniform, 11, Layout::row_major, Layout::row_major, false, {v});
    random_case16<bfloat16>("min_plus", 40, 50, 0, Shape::uniform, 12, Layout::row_major, Layout::row_major, false, {v});
    random_case16<half>("max_times", 40, 50, 24, Shape::empty, 14, Layout::row_major, Layout::row_major, false, {v});
  }
}

TEST_CASE("cuda spmm 16-bit: shared graphs (power-law and road), every 16-bit variant and the dispatcher",
          "[spmm][gpu][16bit][graphs]") {
  int ran = 0;
  for (const std::string file : {"email-Enron.mtx.gz", "luxembourg_osm.mtx.gz"}) {
    const std::string path = test::data_file(file);
    if (path.empty()) {
      WARN("no " << file << " under " << test::data_dir().string() << " (GEBLAS_DATA_DIR): graph case skipped");
      continue;
    }
    ++ran;
    const SparseMatrix<float> G = io::read_matrix_market<float>(path);
    const auto run_graph = [&]<class H>() {
      Problem16<H> P;
      P.m = G.nrows(), P.k = G.ncols();
      P.ro.assign(G.row_offsets_data(), G.row_offsets_data() + G.nrows() + 1);
      P.ci.assign(G.col_indices_data(), G.col_indices_data() + G.nvals());
      std::mt19937_64 rng(63000 + P.m);
      std::uniform_real_distribution<double> d(-2, 2);
      for (std::size_t p = 0; p < P.ci.size(); ++p) P.av.push_back(round16<H>(d(rng)));
      P.finish();
      for (Index n : {33, 64}) {
        P.n = n;
        P.Bd = random_dense16<H>(P.k, n, 63100 + n);
        for (const std::string name : {"plus_times", "min_plus"})
          check_case16(name, P, Layout::row_major, Layout::row_major, false, variants_and_auto_16bit(), file);
      }
    };
    run_graph.template operator()<half>();
    run_graph.template operator()<bfloat16>();
  }
  if (ran == 0) WARN("16-bit graph cases skipped: no shared graphs");
}
