// mxm on the CPU against SuiteSparse:GraphBLAS's GrB_mxm with the matching built-in
// semiring: the four forms, every semiring and type geblas builds, masks (value /
// structural, complemented), accumulators, replace and transposes, on random matrices
// and on the shared real graphs. Where GraphBLAS leaves an entry of a dense output
// absent, geblas holds the semiring's identity (docs/DESIGN.md). any_second may pick a
// different term than GraphBLAS: for it only the presence of entries is compared (the
// CPU tests check that each value is a valid term).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ops/mxm_driver.hpp"
#include "support/catch.hpp"
#include "support/data.hpp"

#ifdef GEBLAS_HAVE_GRAPHBLAS
extern "C" {  // GraphBLAS.h declares C functions without a C++ guard
#include <GraphBLAS.h>
}

using namespace geblas;
using namespace geblas::test;

namespace {

#define GRB_OK(call) REQUIRE((call) == GrB_SUCCESS)

// GraphBLAS's names for one value type.
#define GEBLAS_GRB_TRAITS(T, SUFFIX)                                                         \
  template <>                                                                                \
  struct Grb<T> {                                                                            \
    static GrB_Type type() { return GrB_##SUFFIX; }                                          \
    static GrB_Info build(GrB_Matrix A, const GrB_Index* I, const GrB_Index* J, const T* X,  \
                          GrB_Index n) {                                                     \
      return GrB_Matrix_build_##SUFFIX(A, I, J, X, n, GrB_FIRST_##SUFFIX);                  \
    }                                                                                        \
    static GrB_Info extract(GrB_Index* I, GrB_Index* J, T* X, GrB_Index* n, GrB_Matrix A) {  \
      return GrB_Matrix_extractTuples_##SUFFIX(I, J, X, n, A);                               \
    }                                                                                        \
    static GrB_BinaryOp accum(const std::string& name) {                                     \
      if (name == "plus") return GrB_PLUS_##SUFFIX;                                          \
      if (name == "min") return GrB_MIN_##SUFFIX;                                            \
      return nullptr;                                                                        \
    }                                                                                        \
    static GrB_Semiring semiring(const std::string& s) {                                     \
      if (s == "plus_times") return GxB_PLUS_TIMES_##SUFFIX;                                 \
      if (s == "max_times") return GxB_MAX_TIMES_##SUFFIX;                                   \
      if (s == "min_plus") return GxB_MIN_PLUS_##SUFFIX;                                     \
      if (s == "max_plus") return GxB_MAX_PLUS_##SUFFIX;                                     \
      if (s == "min_times") return GxB_MIN_TIMES_##SUFFIX;                                   \
      if (s == "max_min") return GxB_MAX_MIN_##SUFFIX;                                       \
      if (s == "min_max") return GxB_MIN_MAX_##SUFFIX;                                       \
      if (s == "plus_pair") return GxB_PLUS_PAIR_##SUFFIX;                                   \
      if (s == "min_second") return GxB_MIN_SECOND_##SUFFIX;                                 \
      if (s == "any_second") return GxB_ANY_SECOND_##SUFFIX;                                 \
      if (s == "plus_second") return GxB_PLUS_SECOND_##SUFFIX;                               \
      return nullptr;                                                                        \
    }                                                                                        \
  };

template <class T>
struct Grb;
GEBLAS_GRB_TRAITS(float, FP32)
GEBLAS_GRB_TRAITS(double, FP64)
GEBLAS_GRB_TRAITS(std::int32_t, INT32)
GEBLAS_GRB_TRAITS(std::int64_t, INT64)
template <>
struct Grb<bool> {
  static GrB_Type type() { return GrB_BOOL; }
  static GrB_Info build(GrB_Matrix A, const GrB_Index* I, const GrB_Index* J, const bool* X, GrB_Index n) {
    return GrB_Matrix_build_BOOL(A, I, J, X, n, GrB_FIRST_BOOL);
  }
  static GrB_Info extract(GrB_Index* I, GrB_Index* J, bool* X, GrB_Index* n, GrB_Matrix A) {
    return GrB_Matrix_extractTuples_BOOL(I, J, X, n, A);
  }
  static GrB_BinaryOp accum(const std::string& name) { return name == "lor" ? GrB_LOR : nullptr; }
  static GrB_Semiring semiring(const std::string& s) {
    if (s == "lor_land") return GxB_LOR_LAND_BOOL;
    if (s == "any_second") return GxB_ANY_SECOND_BOOL;
    return nullptr;
  }
};

// A GraphBLAS matrix with the present entries of F.
template <class T>
GrB_Matrix to_grb(const ref::Full<T>& F) {
  std::vector<GrB_Index> I, J;
  std::vector<T> X;
  for (Eigen::Index i = 0; i < F.rows(); ++i)
    for (Eigen::Index j = 0; j < F.cols(); ++j)
      if (F.present(i, j)) {
        I.push_back(static_cast<GrB_Index>(i));
        J.push_back(static_cast<GrB_Index>(j));
        X.push_back(F.value(i, j));
      }
  GrB_Matrix A = nullptr;
  GRB_OK(GrB_Matrix_new(&A, Grb<T>::type(), F.rows(), F.cols()));
  std::unique_ptr<T[]> x(new T[std::max<std::size_t>(X.size(), 1)]);  // vector<bool> has no data()
  for (std::size_t q = 0; q < X.size(); ++q) x[q] = X[q];
  GRB_OK(Grb<T>::build(A, I.data(), J.data(), x.get(), I.size()));
  return A;
}

template <class T>
ref::Full<T> from_grb(GrB_Matrix A, Eigen::Index m, Eigen::Index n) {
  GrB_Index nv = 0;
  GRB_OK(GrB_Matrix_nvals(&nv, A));
  std::vector<GrB_Index> I(nv + 1), J(nv + 1);
  std::unique_ptr<T[]> X(new T[nv + 1]);
  GRB_OK(Grb<T>::extract(I.data(), J.data(), X.get(), &nv, A));
  ref::Full<T> F{ref::Dense<T>::Zero(m, n), decltype(ref::Full<T>::present)::Constant(m, n, false)};
  for (GrB_Index q = 0; q < nv; ++q) {
    F.value(I[q], J[q]) = X[q];
    F.present(I[q], J[q]) = true;
  }
  return F;
}

struct GrbCase {
  Form form = Form::sparse_dense;
  std::string semiring = "plus_times";
  Index m = 40, k = 35, n = 17;
  std::uint64_t seed = 1;
  MaskKind mask = MaskKind::none;
  bool structural = false, complement = false, replace = false, ta = false, tb = false;
  std::string accum;
};

std::string describe(const GrbCase& c) {
  std::ostringstream s;
  s << to_string(c.form) << " " << c.semiring << " m=" << c.m << " k=" << c.k << " n=" << c.n << " seed=" << c.seed
    << " mask=" << int(c.mask) << " structural=" << c.structural << " complement=" << c.complement
    << " replace=" << c.replace << " tA=" << c.ta << " tB=" << c.tb << " accum=" << (c.accum.empty() ? "none" : c.accum);
  return s.str();
}

// geblas's mxm and GrB_mxm on the same operands; "" when every entry agrees.
template <class T>
std::string compare_with_graphblas(const GrbCase& c) {
  const bool a_sparse = c.form == Form::sparse_dense || c.form == Form::sparse_sparse;
  const bool b_sparse = c.form == Form::sparse_sparse || c.form == Form::dense_sparse;
  const bool sparse_out = c.form == Form::sparse_sparse;
  const Index ar = c.ta ? c.k : c.m, ac = c.ta ? c.m : c.k, br = c.tb ? c.n : c.k, bc = c.tb ? c.k : c.n;
  SparseMatrix<T> As, Bs, Cs, Ms;
  DenseMatrix<T> Ad, Bd, Cd, Md;
  ref::Full<T> FA, FB, FC, FM;
  if (a_sparse) { auto R = random_sparse<T>(ar, ac, 0.1, Shape::empty_rows, c.seed); As = R.geblas(); FA = ref::full_of(R.eigen()); }
  else { auto D = random_dense<T>(ar, ac, c.seed); Ad = to_geblas(D); FA = ref::full_of(D); }
  if (b_sparse) { auto R = random_sparse<T>(br, bc, 0.2, Shape::heavy_row, c.seed + 1); Bs = R.geblas(); FB = ref::full_of(R.eigen()); }
  else { auto D = random_dense<T>(br, bc, c.seed + 1); Bd = to_geblas(D, Layout::col_major); FB = ref::full_of(D); }
  if (sparse_out) { auto R = random_sparse<T>(c.m, c.n, 0.2, Shape::uniform, c.seed + 2); Cs = R.geblas(); FC = ref::full_of(R.eigen()); }
  else { auto D = random_dense<T>(c.m, c.n, c.seed + 2); Cd = to_geblas(D); FC = ref::full_of(D); }
  Options o;
  if (c.mask == MaskKind::sparse) { auto R = random_sparse<T>(c.m, c.n, 0.4, Shape::uniform, c.seed + 3); Ms = R.geblas(); FM = ref::full_of(R.eigen()); o.mask = c.structural ? Mask::structure(Ms) : Mask(Ms); }
  if (c.mask == MaskKind::dense) { auto D = random_dense<T>(c.m, c.n, c.seed + 3); Md = to_geblas(D); FM = ref::full_of(D); o.mask = c.structural ? Mask::structure(Md) : Mask(Md); }
  if (c.mask != MaskKind::none && c.complement) o.mask = o.mask.complement();
  o.accum = accum_of<T>(c.accum);
  o.replace = c.replace;
  o.transpose_a = c.ta;
  o.transpose_b = c.tb;
  MxmCase mc;
  mc.semiring = c.semiring;
  ref::Full<T> got;
  if (sparse_out) { call_mxm<T>(Cs, As, Bs, mc, o); got = full_of_geblas(Cs); }
  else {
    if (a_sparse) call_mxm<T>(Cd, As, Bd, mc, o);
    else if (b_sparse) call_mxm<T>(Cd, Ad, Bs, mc, o);
    else call_mxm<T>(Cd, Ad, Bd, mc, o);
    got = full_of_geblas(Cd);
  }

  GrB_Matrix A = to_grb(FA), B = to_grb(FB), C = to_grb(FC), M = c.mask != MaskKind::none ? to_grb(FM) : nullptr;
  GrB_Descriptor d = nullptr;
  GRB_OK(GrB_Descriptor_new(&d));
  if (c.ta) GRB_OK(GrB_Descriptor_set(d, GrB_INP0, GrB_TRAN));
  if (c.tb) GRB_OK(GrB_Descriptor_set(d, GrB_INP1, GrB_TRAN));
  if (c.replace) GRB_OK(GrB_Descriptor_set(d, GrB_OUTP, GrB_REPLACE));
  if (c.mask != MaskKind::none && c.structural) GRB_OK(GrB_Descriptor_set(d, GrB_MASK, GrB_STRUCTURE));
  if (c.mask != MaskKind::none && c.complement) GRB_OK(GrB_Descriptor_set(d, GrB_MASK, GrB_COMP));
  GRB_OK(GrB_mxm(C, M, Grb<T>::accum(c.accum), Grb<T>::semiring(c.semiring), A, B, d));
  ref::Full<T> want = from_grb<T>(C, c.m, c.n);
  GrB_Matrix_free(&A);
  GrB_Matrix_free(&B);
  GrB_Matrix_free(&C);
  if (M) GrB_Matrix_free(&M);
  GrB_Descriptor_free(&d);
  const T identity = ref::semiring<T>(c.semiring).identity;
  if (!sparse_out)
    for (Eigen::Index i = 0; i < want.rows(); ++i)
      for (Eigen::Index j = 0; j < want.cols(); ++j)
        if (!want.present(i, j)) { want.present(i, j) = true; want.value(i, j) = identity; }
  if (c.semiring == "any_second") {
    // presence only: which term "any" keeps is up to each library
    got.value = want.value;
    if (!sparse_out)
      for (Eigen::Index i = 0; i < got.rows(); ++i)
        for (Eigen::Index j = 0; j < got.cols(); ++j) got.present(i, j) = true;
  }
  return compare_full(got, want);
}

struct GrbSession {
  GrbSession() { GrB_init(GrB_NONBLOCKING); }
  ~GrbSession() { GrB_finalize(); }
};
const GrbSession session;

}  // namespace

TEMPLATE_TEST_CASE("mxm agrees with GraphBLAS: every form, semiring, type and N", "[mxm][graphblas]", bool,
                   std::int32_t, std::int64_t, float, double) {
  std::uint64_t seed = 100;
  for (Form form : {Form::sparse_dense, Form::sparse_sparse, Form::dense_sparse, Form::dense_dense})
    for (const auto& name : semirings_for<TestType>())
      for (Index n : {1, 5, 16, 33, 64, 129}) {
        GrbCase c;
        c.form = form;
        c.semiring = name;
        c.n = n;
        c.seed = ++seed;
        const std::string e = compare_with_graphblas<TestType>(c);
        INFO(describe(c));
        CHECK(e == "");
      }
}

TEMPLATE_TEST_CASE("mxm agrees with GraphBLAS: masks, accumulators, replace, transposes", "[mxm][graphblas]",
                   std::int32_t, double) {
  std::uint64_t seed = 3000;
  for (Form form : {Form::sparse_dense, Form::sparse_sparse, Form::dense_sparse, Form::dense_dense})
    for (const std::string s : {"plus_times", "min_plus"})
      for (MaskKind mk : {MaskKind::none, MaskKind::sparse, MaskKind::dense})
        for (int flags = 0; flags < 8; ++flags)
          for (const std::string accum : {"", "plus", "min"}) {
            if (mk == MaskKind::none && (flags & 3)) continue;
            GrbCase c;
            c.form = form;
            c.semiring = s;
            c.seed = ++seed;
            c.mask = mk;
            c.structural = flags & 1;
            c.complement = flags & 2;
            c.replace = flags & 4;
            c.accum = accum;
            c.ta = seed % 3 == 0;
            c.tb = seed % 5 == 0;
            const std::string e = compare_with_graphblas<TestType>(c);
            INFO(describe(c));
            CHECK(e == "");
          }
}

TEST_CASE("mxm sparse x dense agrees with GraphBLAS on the shared real graphs", "[mxm][graphblas][data]") {
  const auto graphs = data_graphs();
  if (graphs.empty()) {
    WARN("no shared graphs in " << data_dir() << " (set GEBLAS_DATA_DIR): real-graph cases skipped");
    return;
  }
  int checked = 0;
  for (const auto& name : graphs) {
    if (io::read_matrix_market_header((data_dir() / name).string()).stored_entries > data_entry_limit(400000)) continue;
    const auto G = io::read_matrix_market<float>((data_dir() / name).string());
    std::vector<Tuple<float>> t = G.extract_tuples();
    for (auto& x : t) x.value = float(1 + (x.row * 5 + x.col * 11) % 3);
    const auto A = SparseMatrix<float>::from_tuples(G.nrows(), G.ncols(), t);
    GrB_Matrix Ag = nullptr;
    {
      std::vector<GrB_Index> I, J;
      std::vector<float> X;
      for (auto& x : t) { I.push_back(x.row); J.push_back(x.col); X.push_back(x.value); }
      GRB_OK(GrB_Matrix_new(&Ag, GrB_FP32, G.nrows(), G.ncols()));
      GRB_OK(GrB_Matrix_build_FP32(Ag, I.data(), J.data(), X.data(), I.size(), GrB_FIRST_FP32));
    }
    const Index n = 16;
    const ref::Dense<float> Bd = random_dense<float>(G.ncols(), n, 99);
    const auto B = to_geblas(Bd);
    GrB_Matrix Bg = to_grb(ref::full_of(Bd));
    for (const std::string s : {"plus_times", "max_times", "min_plus", "plus_pair"}) {
      DenseMatrix<float> C(G.nrows(), n);
      visit_semiring<float>(semiring_from_string(s.c_str()), [&]<class S>() { mxm(C, A, B, S{}); });
      GrB_Matrix Cg = nullptr;
      GRB_OK(GrB_Matrix_new(&Cg, GrB_FP32, G.nrows(), n));
      GRB_OK(GrB_mxm(Cg, nullptr, nullptr, Grb<float>::semiring(s), Ag, Bg, nullptr));
      ref::Full<float> want = from_grb<float>(Cg, G.nrows(), n);
      GrB_Matrix_free(&Cg);
      const float identity = ref::semiring<float>(s).identity;
      for (Eigen::Index i = 0; i < want.rows(); ++i)
        for (Eigen::Index j = 0; j < want.cols(); ++j)
          if (!want.present(i, j)) { want.present(i, j) = true; want.value(i, j) = identity; }
      INFO(name << " " << s);
      CHECK(compare_full(full_of_geblas(C), want) == "");
    }
    GrB_Matrix_free(&Ag);
    GrB_Matrix_free(&Bg);
    ++checked;
  }
  CHECK(checked > 0);
}

TEST_CASE("mxm sparse x sparse agrees with GraphBLAS on the shared real graphs", "[mxm][graphblas][data]") {
  const auto graphs = data_graphs();
  if (graphs.empty()) {
    WARN("no shared graphs in " << data_dir() << " (set GEBLAS_DATA_DIR): real-graph cases skipped");
    return;
  }
  int checked = 0;
  for (const auto& name : graphs) {
    const auto header = io::read_matrix_market_header((data_dir() / name).string());
    if (header.stored_entries > data_entry_limit(150000) || header.nrows != header.ncols) continue;
    const auto G = io::read_matrix_market<double>((data_dir() / name).string());
    std::vector<Tuple<double>> t = G.extract_tuples();
    for (auto& x : t) x.value = double(1 + (x.row * 5 + x.col * 11) % 3);
    const auto A = SparseMatrix<double>::from_tuples(G.nrows(), G.ncols(), t);
    GrB_Matrix Ag = nullptr;
    {
      std::vector<GrB_Index> I, J;
      std::vector<double> X;
      for (auto& x : t) { I.push_back(x.row); J.push_back(x.col); X.push_back(x.value); }
      GRB_OK(GrB_Matrix_new(&Ag, GrB_FP64, G.nrows(), G.ncols()));
      GRB_OK(GrB_Matrix_build_FP64(Ag, I.data(), J.data(), X.data(), I.size(), GrB_FIRST_FP64));
    }
    for (const bool masked : {false, true})
      for (const std::string s : {"plus_times", "min_plus"}) {
        GrB_Matrix Cg = nullptr;
        GRB_OK(GrB_Matrix_new(&Cg, GrB_FP64, G.nrows(), G.ncols()));
        GRB_OK(GrB_mxm(Cg, masked ? Ag : nullptr, nullptr, Grb<double>::semiring(s), Ag, Ag,
                       masked ? GrB_DESC_T1 : nullptr));
        GrB_Index nv = 0;
        GRB_OK(GrB_Matrix_nvals(&nv, Cg));
        std::vector<GrB_Index> I(nv + 1), J(nv + 1);
        std::vector<double> X(nv + 1);
        GRB_OK(GrB_Matrix_extractTuples_FP64(I.data(), J.data(), X.data(), &nv, Cg));
        GrB_Matrix_free(&Cg);
        std::vector<std::size_t> order(nv);
        for (std::size_t q = 0; q < nv; ++q) order[q] = q;
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return I[a] != I[b] ? I[a] < I[b] : J[a] < J[b]; });
        const char* forced_list[] = {"", "hash", "dense", "dot"};
        for (const char* forced : forced_list) {
          if (std::string(forced) == "dot" && !masked) continue;
          Options o;
          o.variant = forced;
          if (masked) {
            o.mask = Mask(A);
            o.transpose_b = true;
          }
          SparseMatrix<double> C(G.nrows(), G.ncols());
          visit_semiring<double>(semiring_from_string(s.c_str()), [&]<class S>() { mxm(C, A, A, S{}, o); });
          const auto got = C.extract_tuples();
          INFO(name << " " << s << (masked ? " C<A> = A*A'" : " C = A*A") << " variant '" << forced << "'");
          REQUIRE(got.size() == nv);
          std::size_t bad = 0;
          for (std::size_t q = 0; q < nv; ++q) {
            const std::size_t w = order[q];
            if (got[q].row != Index(I[w]) || got[q].col != Index(J[w]) ||
                std::abs(got[q].value - X[w]) > 1e-9 * std::max(1.0, std::abs(X[w])))
              ++bad;
          }
          CHECK(bad == 0);
        }
      }
    GrB_Matrix_free(&Ag);
    ++checked;
  }
  CHECK(checked > 0);
}

#else  // no GraphBLAS: the program reports itself skipped (exit code 77) with the reason

namespace {
const int skip_without_graphblas = [] {
  std::printf("SKIPPED: SuiteSparse:GraphBLAS was not found when this test was configured (GraphBLAS.h, libgraphblas)\n");
  std::exit(77);
  return 0;
}();
}  // namespace

#endif
