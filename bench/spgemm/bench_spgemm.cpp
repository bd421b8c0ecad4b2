// bench_spgemm: times the sparse x sparse product C = A*A and the masked C<A> = A*A'
// (plus_times, and min_plus with --semirings) in geblas against SuiteSparse:GraphBLAS's GrB_mxm (GrB_DEFAULT descriptor,
// GrB_DESC_T1 for A', SuiteSparse's thread count set to geblas's: GxB_NTHREADS), on the
// shared graphs and on generated R-MAT and uniform ones, in float and double. The two
// libraries are timed in turn, run by run, so that both see the same state of a shared
// machine; each column is the median of --runs timed runs after one warm-up, and every
// result is checked entry by entry against SuiteSparse's before its ratio is printed.
// SuiteSparse's time includes GrB_Matrix_wait: it may leave C's rows unsorted ("jumbled")
// until then, while geblas returns them sorted. Values are 1..3 (sums exact in float).
//
// Columns are per implementation (the `Impl` list): geblas on the CPU and SuiteSparse now;
// --device names which geblas devices run (only cpu is built here).
//
// usage: bench_spgemm [--graphs luxembourg_osm,...] [--generated rmat:14:16,uniform:100000:800000]
//                     [--types float,double] [--runs 5] [--threads 2] [--products plain,masked]
//                     [--device cpu] [--variant gustavson|hash|dense|esc|dot[+one_pass|+two_pass]]
//                     [--semirings plus_times,min_plus]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "graphblas_glue.hpp"
#include "graphs.hpp"
#include "results.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using geblas::ColIndex;
using geblas::Index;

#ifdef GEBLAS_HAVE_GRAPHBLAS

using geblas::bench::Grb;

// A host CSR product: what every implementation returns, for the entry-by-entry check.
template <class T>
struct Csr {
  Index nrows = 0, ncols = 0;
  std::vector<Index> offsets;
  std::vector<ColIndex> cols;
  std::vector<T> vals;
};

template <class T>
Csr<T> csr_of(const geblas::SparseMatrix<T>& M) {
  const auto& s = M.storage();
  Csr<T> c;
  c.nrows = M.nrows();
  c.ncols = M.ncols();
  c.offsets.assign(s.row_offsets.template as<Index>(), s.row_offsets.template as<Index>() + c.nrows + 1);
  c.cols.assign(s.col_indices.template as<ColIndex>(), s.col_indices.template as<ColIndex>() + M.nvals());
  c.vals.assign(s.values.template as<T>(), s.values.template as<T>() + M.nvals());
  return c;
}

template <class T>
Csr<T> csr_of(GrB_Matrix M) {
  GrB_Index m = 0, n = 0, nv = 0;
  GRB_CHECK(GrB_Matrix_nrows(&m, M));
  GRB_CHECK(GrB_Matrix_ncols(&n, M));
  GRB_CHECK(GrB_Matrix_nvals(&nv, M));
  std::vector<GrB_Index> I(nv + 1), J(nv + 1);
  std::vector<T> X(nv + 1);
  GRB_CHECK(Grb<T>::extract(I.data(), J.data(), X.data(), &nv, M));
  std::vector<std::size_t> order(nv);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return I[a] != I[b] ? I[a] < I[b] : J[a] < J[b]; });
  Csr<T> c;
  c.nrows = static_cast<Index>(m);
  c.ncols = static_cast<Index>(n);
  c.offsets.assign(m + 1, 0);
  for (std::size_t q : order) {
    ++c.offsets[I[q] + 1];
    c.cols.push_back(static_cast<ColIndex>(J[q]));
    c.vals.push_back(X[q]);
  }
  for (GrB_Index i = 0; i < m; ++i) c.offsets[i + 1] += c.offsets[i];
  return c;
}

// "" when got and want hold the same entries (values to a relative 1e-5 / 1e-12), else
// the first difference.
template <class T>
std::string compare(const Csr<T>& got, const Csr<T>& want) {
  if (got.offsets != want.offsets) {
    for (std::size_t i = 0; i + 1 < want.offsets.size(); ++i)
      if (got.offsets[i + 1] - got.offsets[i] != want.offsets[i + 1] - want.offsets[i])
        return "row " + std::to_string(i) + " has " + std::to_string(got.offsets[i + 1] - got.offsets[i]) +
               " entries, SuiteSparse's " + std::to_string(want.offsets[i + 1] - want.offsets[i]);
    return "row offsets differ";
  }
  const T tol = std::is_same_v<T, float> ? T(1e-5) : T(1e-12);
  for (std::size_t q = 0; q < want.cols.size(); ++q)
    if (got.cols[q] != want.cols[q] ||
        !(std::abs(got.vals[q] - want.vals[q]) <= tol * std::max(T(1), std::abs(want.vals[q]))))
      return "entry " + std::to_string(q) + ": column " + std::to_string(got.cols[q]) + " value " +
             std::to_string(got.vals[q]) + ", SuiteSparse's column " + std::to_string(want.cols[q]) + " value " +
             std::to_string(want.vals[q]);
  return "";
}

// One product to time: C = A*A ("plain") or C<A> = A*A' ("masked"), over `semiring`.
template <class T>
struct Problem {
  std::string graph, product, semiring;
  const geblas::SparseMatrix<T>* A;
  GrB_Matrix Ag;
};

// An implementation: run(problem) computes the product once; result() hands back the
// last one. Another device is one more entry of this list.
template <class T>
struct Impl {
  std::string name;
  std::function<void(const Problem<T>&)> run;
  std::function<Csr<T>()> result;
};

std::string g_variant;  // --variant: geblas's Options::variant ("" chooses per row)
geblas::bench::Results* g_results = nullptr;  // --results FILE (bench/common/results.hpp)

template <class T>
std::vector<Impl<T>> implementations(geblas::SparseMatrix<T>& Cg, GrB_Matrix& Cs) {
  std::vector<Impl<T>> impls;
  impls.push_back({"geblas_cpu",
                   [&](const Problem<T>& p) {
                     Cg = geblas::SparseMatrix<T>(p.A->nrows(), p.A->ncols());
                     geblas::Options o;
                     o.variant = g_variant;
                     if (p.product == "masked") {
                       o.mask = geblas::Mask(*p.A);
                       o.transpose_b = true;
                     }
                     if (p.semiring == "min_plus") geblas::mxm(Cg, *p.A, *p.A, geblas::semiring::min_plus<T>{}, o);
                     else geblas::mxm(Cg, *p.A, *p.A, geblas::semiring::plus_times<T>{}, o);
                   },
                   [&] { return csr_of(Cg); }});
  impls.push_back({"suitesparse",
                   [&](const Problem<T>& p) {
                     if (Cs) GrB_Matrix_free(&Cs);
                     GrB_Index n = 0;
                     GRB_CHECK(GrB_Matrix_nrows(&n, p.Ag));
                     GRB_CHECK(GrB_Matrix_new(&Cs, Grb<T>::type(), n, n));
                     if (p.product == "masked")
                       GRB_CHECK(GrB_mxm(Cs, p.Ag, nullptr, Grb<T>::semiring(p.semiring), p.Ag, p.Ag, GrB_DESC_T1));
                     else
                       GRB_CHECK(GrB_mxm(Cs, nullptr, nullptr, Grb<T>::semiring(p.semiring), p.Ag, p.Ag, nullptr));  // the default descriptor
                     GRB_CHECK(GrB_Matrix_wait(Cs, GrB_MATERIALIZE));
                   },
                   [&] { return csr_of<T>(Cs); }});
  return impls;
}

// Median wall times (ms) of each implementation, timed in turn run by run.
template <class T>
std::vector<double> medians(const std::vector<Impl<T>>& impls, const Problem<T>& p, int runs) {
  std::vector<std::vector<double>> t(impls.size());
  for (const auto& impl : impls) impl.run(p);  // warm-up (and geblas's cached transposes)
  for (int r = 0; r < runs; ++r)
    for (std::size_t q = 0; q < impls.size(); ++q) {
      const auto t0 = Clock::now();
      impls[q].run(p);
      t[q].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
  std::vector<double> out;
  for (auto& x : t) {
    std::sort(x.begin(), x.end());
    out.push_back(x[x.size() / 2]);
  }
  return out;
}

template <class T>
geblas::SparseMatrix<T> with_values(const geblas::SparseMatrix<float>& G) {
  std::vector<geblas::Tuple<T>> t;
  for (const auto& x : G.extract_tuples()) t.push_back({x.row, x.col, T(1 + (x.row * 5 + x.col * 11) % 3)});
  return geblas::SparseMatrix<T>::from_tuples(G.nrows(), G.ncols(), t);
}

template <class T>
GrB_Matrix grb_of(const geblas::SparseMatrix<T>& A) {
  std::vector<GrB_Index> I, J;
  std::vector<T> X;
  for (const auto& x : A.extract_tuples()) {
    I.push_back(static_cast<GrB_Index>(x.row));
    J.push_back(static_cast<GrB_Index>(x.col));
    X.push_back(x.value);
  }
  GrB_Matrix M = nullptr;
  GRB_CHECK(GrB_Matrix_new(&M, Grb<T>::type(), A.nrows(), A.ncols()));
  GRB_CHECK(Grb<T>::build(M, I.data(), J.data(), X.data(), I.size(), Grb<T>::add("plus_times")));  // no duplicates
  GRB_CHECK(GrB_Matrix_wait(M, GrB_MATERIALIZE));
  return M;
}

struct Row {
  std::string graph, type, product, semiring;
  Index nnz_a, nnz_c;
  std::vector<double> ms;
  std::string check;
};

template <class T>
void bench_graph(const std::string& name, const geblas::SparseMatrix<float>& G, const std::vector<std::string>& products,
                 const std::vector<std::string>& semirings, int runs, std::vector<Row>& rows) {
  const geblas::SparseMatrix<T> A = with_values<T>(G);
  GrB_Matrix Ag = grb_of(A);
  geblas::SparseMatrix<T> Cg(1, 1);
  GrB_Matrix Cs = nullptr;
  const auto impls = implementations<T>(Cg, Cs);
  for (const auto& semiring : semirings)
  for (const auto& product : products) {
    if (product == "masked" && A.nrows() != A.ncols()) continue;
    const Problem<T> p{name, product, semiring, &A, Ag};
    const std::vector<double> ms = medians(impls, p, runs);
    const Csr<T> want = impls.back().result();
    std::string check = "ok";
    for (std::size_t q = 0; q + 1 < impls.size(); ++q)
      if (const std::string e = compare(impls[q].result(), want); !e.empty()) check = impls[q].name + " WRONG: " + e;
    rows.push_back({name, std::is_same_v<T, float> ? "float" : "double", product, semiring, A.nvals(),
                    static_cast<Index>(want.cols.size()), ms, check});
    const Row& r = rows.back();
    std::printf("%-26s %-6s %-10s %-6s %9lld %10lld %10.2f %10.2f %7.2f  %s\n", r.graph.c_str(), r.type.c_str(),
                r.semiring.c_str(), r.product.c_str(), static_cast<long long>(r.nnz_a), static_cast<long long>(r.nnz_c), ms[0], ms[1],
                ms[0] / ms[1], check.c_str());
    const geblas::bench::CaseKey key{{"graph", r.graph}, {"type", r.type}, {"C", r.product}};
    g_results->add(key, {{"nnz(A)", double(r.nnz_a)}, {"nnz(C)", double(r.nnz_c)}});
    g_results->add(key, {{"geblas_ms", ms[0]}, {"grb_ms", ms[1]}}, "ms");
    g_results->add(key, "ratio", ms[0] / ms[1]);  // geblas / SuiteSparse: not an "x" speed-up
    g_results->add_text(key, "check", check);
    std::fflush(stdout);
  }
  if (Cs) GrB_Matrix_free(&Cs);
  GrB_Matrix_free(&Ag);
}

std::string arg(int argc, char** argv, const char* name, const char* fallback) {
  for (int q = 1; q + 1 < argc; ++q)
    if (std::string(argv[q]) == name) return argv[q + 1];
  return fallback;
}

#endif

}  // namespace

int main(int argc, char** argv) {
#ifndef GEBLAS_HAVE_GRAPHBLAS
  (void)argc;
  (void)argv;
  std::printf("bench_spgemm: SKIPPED: SuiteSparse:GraphBLAS was not found when this bench was configured "
              "(GraphBLAS.h, libgraphblas); it is the reference every product is checked against\n");
  return 0;
#else
  namespace gb = geblas::bench;
  gb::Results results("bench_spgemm", argc, argv);
  g_results = &results;
  const auto graphs = gb::split(arg(argc, argv, "--graphs",
                                    "luxembourg_osm,ca-CondMat,wiki-Vote,bcsstk16,cit-HepPh,as-caida20071105,"
                                    "email-Enron,soc-Slashdot0902"),
                                ',');
  const std::string generated = arg(argc, argv, "--generated", "rmat:14:16,uniform:100000:800000");
  const auto types = gb::split(arg(argc, argv, "--types", "float,double"), ',');
  const auto products = gb::split(arg(argc, argv, "--products", "plain,masked"), ',');
  const auto semirings = gb::split(arg(argc, argv, "--semirings", "plus_times"), ',');
  for (const auto& s : semirings)
    if (s != "plus_times" && s != "min_plus") {
      std::fprintf(stderr, "bench_spgemm: --semirings %s: this bench has plus_times and min_plus\n", s.c_str());
      return 2;
    }
  const int runs = std::max(1, std::atoi(arg(argc, argv, "--runs", "5").c_str()));
  const int threads = std::max(1, std::atoi(arg(argc, argv, "--threads", "2").c_str()));
  const std::string device = arg(argc, argv, "--device", "cpu");
  g_variant = arg(argc, argv, "--variant", "");
  if (device != "cpu") {
    std::fprintf(stderr, "bench_spgemm: --device %s: only cpu is built in this bench\n", device.c_str());
    return 2;
  }
  omp_set_num_threads(threads);
  GrB_init(GrB_NONBLOCKING);
  GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads);  // GxB_set is a C11 _Generic macro
  std::printf("# bench_spgemm: %d threads (geblas: OpenMP; SuiteSparse: GxB_NTHREADS), median of %d "
              "runs, the two timed in turn; ratio = geblas / suitesparse (below 1: geblas faster)\n",
              threads, runs);
  std::printf("%-26s %-6s %-10s %-6s %9s %10s %10s %10s %7s  %s\n", "graph", "type", "semiring", "C", "nnz(A)", "nnz(C)", "geblas_ms",
              "grb_ms", "ratio", "check");
  std::vector<gb::HostGraph> inputs;
  const auto dir = gb::data_dir(GEBLAS_DEFAULT_DATA_DIR);
  for (const auto& name : graphs) {
    const auto path = dir / (name + ".mtx.gz");
    try {
      inputs.push_back({name, true, geblas::io::read_matrix_market<float>(path.string())});
    } catch (const geblas::Error& e) {
      std::printf("# skipped %s: %s\n", name.c_str(), e.what());
    }
  }
  if (!generated.empty())
    for (auto& g : gb::generated_graphs(generated)) inputs.push_back(std::move(g));
  std::vector<Row> rows;
  for (const auto& g : inputs)
    for (const auto& t : types) {
      if (t == "float") bench_graph<float>(g.name, g.A, products, semirings, runs, rows);
      else if (t == "double") bench_graph<double>(g.name, g.A, products, semirings, runs, rows);
      else std::printf("# unknown type %s\n", t.c_str());
    }
  bool all_ok = true;
  for (const auto& product : products) {
    double log_sum = 0, worst = 0;
    int count = 0;
    for (const auto& r : rows)
      if (r.product == product) {
        log_sum += std::log(r.ms[0] / r.ms[1]);
        worst = std::max(worst, r.ms[0] / r.ms[1]);
        ++count;
        all_ok = all_ok && r.check == "ok";
      }
    if (count) {
      std::printf("# %s: geomean geblas/suitesparse %.3f, worst %.3f over %d cases\n", product.c_str(),
                  std::exp(log_sum / count), worst, count);
      g_results->add({{"C", product}}, {{"geomean geblas/suitesparse", std::exp(log_sum / count)}, {"worst", worst}});
    }
  }
  GrB_finalize();
  return all_ok ? 0 : 1;
#endif
}
