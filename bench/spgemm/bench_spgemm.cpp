// bench_spgemm: times the sparse x sparse product C = A*A and the masked C<A> = A*A'
// (plus_times, and min_plus with --semirings) in geblas against SuiteSparse:GraphBLAS's GrB_mxm (GrB_DEFAULT
// descriptor, GrB_DESC_T1 for A', SuiteSparse's thread count set to geblas's: GxB_NTHREADS), on the shared graphs and
// on generated R-MAT and uniform ones, in float and double. The two libraries are timed in turn, run by run, so that
// both see the same state of a shared machine; each column is the median of --runs timed runs after one warm-up, and
// every result is checked entry by entry against SuiteSparse's before its ratio is printed. SuiteSparse's time includes
// GrB_Matrix_wait: it may leave C's rows unsorted ("jumbled") until then, while geblas returns them sorted. Values
// are 1..3 (sums exact in float).
//
// Columns are per implementation (the `Impl` list): geblas on the CPU and SuiteSparse now;
// --device names which geblas device runs.
//
// --device cuda times geblas's GPU mxm instead, against cusparseSpGEMM (bench/common/
// cusparse_ref.hpp: DEFAULT, ALG2, ALG3; float, plus_times; SuiteSparse is not needed),
// on the same graphs, in one process, all on geblas's stream. Each time is the median
// of --runs (default 11) one-call samples between two CUDA events, after a warm-up, each
// sample started on an idle GPU. geblas is its public mxm on device matrices
// (SparseMatrix::to(Device::cuda(0)); C<A> = A*A' with a structural mask and
// Options::transpose_b), C made fresh before each sample outside the timing; its method
// is the dispatch record's variant. cuSPARSE is timed two ways: "call", the whole
// sequence a user pays (descriptors, workEstimation, estimateMemory for ALG2/ALG3,
// compute, the cudaMallocs of its buffers and of C, copy, the frees), and "pre", the same
// calls into buffers and C allocated beforehand. cuSPARSE has no masked SpGEMM, so the
// masked row's cuSPARSE columns are its unmasked A*A' (A' built once on the host), the
// product the mask would otherwise be applied to (issue 41: masked products at least as
// fast as a full cuSPARSE SpGEMM). An algorithm cuSPARSE refuses shows its status
// (INSUFFICIENT_RESOURCES) and the run goes on. Every geblas GPU result is checked entry
// by entry against geblas on the CPU and against each cuSPARSE result (rows sorted on
// the host; the masked row against A*A' cut to A's pattern); a mismatch prints WRONG and
// the exit status is 1. Columns: graph, C, nnz(A), nnz(C), geblas_ms, method, then per
// cuSPARSE algorithm ALG_call and ALG_pre (ms, or the status), then /call and /pre: geblas
// over the best cuSPARSE time of each way (below 1: geblas faster), and check.
//
// usage: bench_spgemm [--graphs luxembourg_osm,...] [--generated rmat:14:16,uniform:100000:800000]
//                     [--types float,double] [--runs 5] [--threads 2] [--products plain,masked]
//                     [--device cpu|cuda] [--variant gustavson|hash|dense|esc|dot[+one_pass|+two_pass]]
//                     [--semirings plus_times,min_plus] [--results FILE]
// with --device cuda: --types float and --semirings plus_times only, --runs defaults to
// 11, --threads to OpenMP's default (the CPU reference's threads), and --variant is the
// GPU's (masked_dot|hash|esc), e.g. on the device machine:
//   GEBLAS_DATA_DIR=.data build/bench/spgemm/bench_spgemm --device cuda --results out.csv
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

#include "cusparse_ref.hpp"
#include "geblas/geblas.hpp"
#include "graphblas_glue.hpp"
#include "graphs.hpp"
#include "results.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using geblas::ColIndex;
using geblas::Index;

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

// "" when got and want hold the same entries (values to a relative 1e-5 / 1e-12), else
// the first difference; `ref` names want's maker in it.
template <class T>
std::string compare(const Csr<T>& got, const Csr<T>& want, const std::string& ref = "SuiteSparse's") {
  if (got.offsets != want.offsets) {
    for (std::size_t i = 0; i + 1 < want.offsets.size(); ++i)
      if (got.offsets[i + 1] - got.offsets[i] != want.offsets[i + 1] - want.offsets[i])
        return "row " + std::to_string(i) + " has " + std::to_string(got.offsets[i + 1] - got.offsets[i]) +
               " entries, " + ref + " " + std::to_string(want.offsets[i + 1] - want.offsets[i]);
    return "row offsets differ";
  }
  const T tol = std::is_same_v<T, float> ? T(1e-5) : T(1e-12);
  for (std::size_t q = 0; q < want.cols.size(); ++q)
    if (got.cols[q] != want.cols[q] ||
        !(std::abs(got.vals[q] - want.vals[q]) <= tol * std::max(T(1), std::abs(want.vals[q]))))
      return "entry " + std::to_string(q) + ": column " + std::to_string(got.cols[q]) + " value " +
             std::to_string(got.vals[q]) + ", " + ref + " column " + std::to_string(want.cols[q]) + " value " +
             std::to_string(want.vals[q]);
  return "";
}

template <class T>
geblas::SparseMatrix<T> with_values(const geblas::SparseMatrix<float>& G) {
  std::vector<geblas::Tuple<T>> t;
  for (const auto& x : G.extract_tuples()) t.push_back({x.row, x.col, T(1 + (x.row * 5 + x.col * 11) % 3)});
  return geblas::SparseMatrix<T>::from_tuples(G.nrows(), G.ncols(), t);
}

std::string arg(int argc, char** argv, const char* name, const char* fallback) {
  for (int q = 1; q + 1 < argc; ++q)
    if (std::string(argv[q]) == name) return argv[q + 1];
  return fallback;
}

std::string g_variant;                        // --variant: geblas's Options::variant ("" chooses per row)
geblas::bench::Results* g_results = nullptr;  // --results FILE (bench/common/results.hpp)

constexpr const char* kDefaultGraphs =
    "luxembourg_osm,ca-CondMat,wiki-Vote,bcsstk16,cit-HepPh,as-caida20071105,email-Enron,soc-Slashdot0902";
constexpr const char* kDefaultGenerated = "rmat:14:16,uniform:100000:800000";

// The named shared graphs (a missing one is skipped with a line saying why), then the
// generated ones: the inputs of both devices.
std::vector<geblas::bench::HostGraph> load_graphs(const std::vector<std::string>& graphs,
                                                  const std::string& generated) {
  namespace gb = geblas::bench;
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
  return inputs;
}

#ifdef GEBLAS_HAVE_GRAPHBLAS

using geblas::bench::Grb;

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

#endif

// ---- --device cuda: geblas's GPU mxm against cusparseSpGEMM (see the file header) ----

using geblas::bench::CusparseSpgemm;

// A' on the host, built once per graph for cuSPARSE's B of the masked row.
geblas::SparseMatrix<float> transposed(const geblas::SparseMatrix<float>& A) {
  std::vector<geblas::Tuple<float>> t;
  for (const auto& x : A.extract_tuples()) t.push_back({x.col, x.row, x.value});
  return geblas::SparseMatrix<float>::from_tuples(A.ncols(), A.nrows(), t);
}

// The entries of `full` at the positions of `pattern` (both with sorted rows): cuSPARSE's
// unmasked A*A' cut to what C<A> = A*A' keeps.
template <class T>
Csr<T> restricted(const Csr<T>& full, const Csr<T>& pattern) {
  Csr<T> c;
  c.nrows = full.nrows;
  c.ncols = full.ncols;
  c.offsets.assign(1, 0);
  for (Index i = 0; i < full.nrows; ++i) {
    Index p = full.offsets[i], q = pattern.offsets[i];
    while (p < full.offsets[i + 1] && q < pattern.offsets[i + 1]) {
      if (full.cols[p] == pattern.cols[q]) {
        c.cols.push_back(full.cols[p]);
        c.vals.push_back(full.vals[p]);
        ++p;
        ++q;
      } else if (full.cols[p] < pattern.cols[q]) {
        ++p;
      } else {
        ++q;
      }
    }
    c.offsets.push_back(static_cast<Index>(c.cols.size()));
  }
  return c;
}

struct GpuRow {
  std::string graph, product;
  Index nnz_a = 0, nnz_c = 0;
  double geblas_ms = -1;                         // < 0: geblas failed (check says why)
  std::string method;                            // the dispatch record's variant
  std::vector<CusparseSpgemm::Timing> cusparse;  // CusparseSpgemm::algorithms() order
  double vs_call = -1, vs_pre = -1;              // geblas / the best cuSPARSE time of each way; < 0: none
  bool ok = true;
  std::string check;
};

// The fastest successful time of one way (in the call or preallocated); < 0 when none.
double best_ms(const std::vector<CusparseSpgemm::Timing>& t, double CusparseSpgemm::Timing::*way) {
  double best = -1;
  for (const auto& x : t)
    if (x.*way >= 0 && (best < 0 || x.*way < best)) best = x.*way;
  return best;
}

std::string ms_cell(double ms, const std::string& status) {
  if (ms < 0) return status;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ms);
  return buf;
}

std::string ratio_cell(double r) {
  if (r < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", r);
  return buf;
}

// One product (plain: C = A*A, cuSPARSE's B = A; masked: C<A> = A*A', cuSPARSE's B = A'
// unmasked) of one graph, timed and checked.
GpuRow gpu_row(const std::string& name, const std::string& product, const geblas::SparseMatrix<float>& A,
               const geblas::SparseMatrix<float>& Ad, const geblas::SparseMatrix<float>& B, void* stream, int runs) {
  namespace gb = geblas::bench;
  const bool masked = product == "masked";
  const geblas::Device gpu = Ad.device();
  GpuRow r;
  r.graph = name;
  r.product = product;
  r.nnz_a = A.nvals();
  // the reference: geblas on the CPU, the same options
  geblas::SparseMatrix<float> Cc(A.nrows(), A.ncols());
  geblas::Options oc;
  if (masked) {
    oc.mask = geblas::Mask::structure(A);
    oc.transpose_b = true;
  }
  geblas::mxm(Cc, A, A, geblas::semiring::plus_times<float>{}, oc);
  const Csr<float> want_cpu = csr_of(Cc);
  // geblas on the GPU
  Csr<float> got;
  try {
    geblas::SparseMatrix<float> Cd(A.nrows(), A.ncols(), gpu);
    geblas::Options o;
    o.variant = g_variant;
    if (masked) {
      o.mask = geblas::Mask::structure(Ad);
      o.transpose_b = true;
    }
    r.geblas_ms = gb::event_median_ms(
        stream, runs, [&] { geblas::mxm(Cd, Ad, Ad, geblas::semiring::plus_times<float>{}, o); },
        [&] { Cd = geblas::SparseMatrix<float>(A.nrows(), A.ncols(), gpu); });
    const geblas::DispatchRecord rec = geblas::last_dispatch();
    r.method = rec.backend == "cuda" ? rec.variant : rec.backend + ":" + rec.variant;
    got = csr_of(Cd.to(geblas::Device::cpu()));
    r.nnz_c = static_cast<Index>(got.cols.size());
    if (const std::string e = compare(got, want_cpu, "the CPU's"); !e.empty()) {
      r.ok = false;
      r.check = "WRONG vs cpu: " + e;
    }
  } catch (const std::exception& e) {
    r.ok = false;
    r.method = "-";
    r.check = std::string("geblas FAILED: ") + e.what();
  }
  // cuSPARSE, each algorithm, each result checked against geblas's
  CusparseSpgemm ref(A, B, stream);
  const Csr<float> pattern = masked ? csr_of(A) : Csr<float>{};
  for (const auto& alg : CusparseSpgemm::algorithms()) {
    r.cusparse.push_back(ref.time(alg, runs));
    const geblas::SparseMatrix<float>* C = ref.result();
    if (!C || r.geblas_ms < 0) continue;
    const Csr<float> full = csr_of(*C);
    const Csr<float> want = masked ? restricted(full, pattern) : full;
    if (const std::string e = compare(got, want, "cuSPARSE " + alg + "'s"); !e.empty() && r.ok) {
      r.ok = false;
      r.check = "WRONG vs cuSPARSE " + alg + ": " + e;
    }
  }
  if (r.ok) r.check = "ok";
  const double bc = best_ms(r.cusparse, &CusparseSpgemm::Timing::in_call_ms);
  const double bp = best_ms(r.cusparse, &CusparseSpgemm::Timing::preallocated_ms);
  if (r.geblas_ms >= 0 && bc > 0) r.vs_call = r.geblas_ms / bc;
  if (r.geblas_ms >= 0 && bp > 0) r.vs_pre = r.geblas_ms / bp;
  return r;
}

void print_gpu_row(const GpuRow& r) {
  std::printf("%-26s %-6s %9lld %11lld %10s %-10s", r.graph.c_str(), r.product.c_str(), static_cast<long long>(r.nnz_a),
              static_cast<long long>(r.nnz_c), ms_cell(r.geblas_ms, "FAILED").c_str(), r.method.c_str());
  for (const auto& t : r.cusparse) std::printf(" %12s", ms_cell(t.in_call_ms, t.status).c_str());
  for (const auto& t : r.cusparse) std::printf(" %12s", ms_cell(t.preallocated_ms, t.status).c_str());
  std::printf(" %7s %7s  %s\n", ratio_cell(r.vs_call).c_str(), ratio_cell(r.vs_pre).c_str(), r.check.c_str());
  for (const auto& t : r.cusparse)
    if (!t.error.empty()) std::printf("#   cuSPARSE %s: %s\n", t.alg.c_str(), t.error.c_str());
  std::fflush(stdout);
}

void record_gpu_row(const GpuRow& r) {
  const geblas::bench::CaseKey key{{"graph", r.graph}, {"type", "float"}, {"C", r.product}};
  g_results->add(key, {{"nnz(A)", double(r.nnz_a)}, {"nnz(C)", double(r.nnz_c)}});
  if (r.geblas_ms >= 0) g_results->add(key, "geblas_ms", r.geblas_ms, "ms");
  g_results->add_text(key, "method", r.method);
  for (const auto& t : r.cusparse) {
    if (t.in_call_ms >= 0) g_results->add(key, "cusparse_" + t.alg + "_call_ms", t.in_call_ms, "ms");
    if (t.preallocated_ms >= 0) g_results->add(key, "cusparse_" + t.alg + "_pre_ms", t.preallocated_ms, "ms");
    if (t.status != "ok") g_results->add_text(key, "cusparse_" + t.alg + "_status", t.status);
  }
  // geblas / cuSPARSE, as the CPU rows' ratio: not an "x" speed-up
  if (r.vs_call >= 0) g_results->add(key, "ratio_call", r.vs_call);
  if (r.vs_pre >= 0) g_results->add(key, "ratio_pre", r.vs_pre);
  g_results->add_text(key, "check", r.check);
}

int cuda_main(int argc, char** argv) {
  namespace gb = geblas::bench;
  gb::Results results("bench_spgemm", argc, argv);
  g_results = &results;
  for (const char* opt : {"--types", "--semirings"}) {
    const std::string v = arg(argc, argv, opt, "");
    if (!v.empty() && v != (std::string(opt) == "--types" ? "float" : "plus_times")) {
      std::fprintf(stderr, "bench_spgemm: %s %s: --device cuda has float and plus_times only (cuSPARSE's SpGEMM)\n",
                   opt, v.c_str());
      return 2;
    }
  }
  const auto products = gb::split(arg(argc, argv, "--products", "plain,masked"), ',');
  for (const auto& p : products)
    if (p != "plain" && p != "masked") {
      std::fprintf(stderr, "bench_spgemm: --products %s: this bench has plain and masked\n", p.c_str());
      return 2;
    }
  const int runs = std::max(1, std::atoi(arg(argc, argv, "--runs", "11").c_str()));
  if (const std::string t = arg(argc, argv, "--threads", ""); !t.empty())
    omp_set_num_threads(std::max(1, std::atoi(t.c_str())));
  g_variant = arg(argc, argv, "--variant", "");
  if (!gb::cusparse_available()) {
    std::printf("bench_spgemm --device cuda: SKIPPED: %s\n",
                CusparseSpgemm::algorithms().empty() ? "built without CUDA / cuSPARSE" : "no CUDA device");
    return 0;
  }
  const geblas::Device gpu = geblas::Device::cuda(0);
  void* stream = geblas::cuda::current_stream(gpu);  // geblas's stream: cuSPARSE and the events use it too
  results.set_device(gb::gpu_name(0));
  const auto algs = CusparseSpgemm::algorithms();
  std::printf(
      "# bench_spgemm --device cuda: %s; median of %d one-call samples (CUDA events, after a warm-up); "
      "cuSPARSE in the call (_call) and preallocated (_pre); /call, /pre = geblas / the best cuSPARSE "
      "time of that way (below 1: geblas faster); masked rows against cuSPARSE's unmasked A*A'\n",
      gb::gpu_name(0).c_str(), runs);
  std::printf("%-26s %-6s %9s %11s %10s %-10s", "graph", "C", "nnz(A)", "nnz(C)", "geblas_ms", "method");
  for (const auto& a : algs) std::printf(" %12s", (a + "_call").c_str());
  for (const auto& a : algs) std::printf(" %12s", (a + "_pre").c_str());
  std::printf(" %7s %7s  %s\n", "/call", "/pre", "check");
  const auto inputs = load_graphs(gb::split(arg(argc, argv, "--graphs", kDefaultGraphs), ','),
                                  arg(argc, argv, "--generated", kDefaultGenerated));
  std::vector<GpuRow> rows;
  for (const auto& g : inputs) {
    const geblas::SparseMatrix<float> A = with_values<float>(g.A);
    const geblas::SparseMatrix<float> Ad = A.to(gpu);
    for (const auto& product : products) {
      if (product == "masked" && A.nrows() != A.ncols()) continue;
      const geblas::SparseMatrix<float> B = product == "masked" ? transposed(A) : A;
      rows.push_back(gpu_row(g.name, product, A, Ad, B, stream, runs));
      print_gpu_row(rows.back());
      record_gpu_row(rows.back());
    }
  }
  bool all_ok = true;
  for (const auto& r : rows) all_ok = all_ok && r.ok;
  for (const auto& product : products) {
    double log_call = 0, log_pre = 0, worst_call = 0, worst_pre = 0;
    int n_call = 0, n_pre = 0;
    for (const auto& r : rows) {
      if (r.product != product) continue;
      if (r.vs_call >= 0) {
        log_call += std::log(r.vs_call);
        worst_call = std::max(worst_call, r.vs_call);
        ++n_call;
      }
      if (r.vs_pre >= 0) {
        log_pre += std::log(r.vs_pre);
        worst_pre = std::max(worst_pre, r.vs_pre);
        ++n_pre;
      }
    }
    if (n_call + n_pre == 0) continue;
    const double g_call = n_call ? std::exp(log_call / n_call) : -1, g_pre = n_pre ? std::exp(log_pre / n_pre) : -1;
    std::printf(
        "# %s: geomean geblas/best-cusparse in the call %s (worst %s, %d cases), preallocated %s (worst %s, "
        "%d cases)\n",
        product.c_str(), ratio_cell(g_call).c_str(), ratio_cell(n_call ? worst_call : -1).c_str(), n_call,
        ratio_cell(g_pre).c_str(), ratio_cell(n_pre ? worst_pre : -1).c_str(), n_pre);
    const gb::CaseKey key{{"C", product}};
    if (n_call) g_results->add(key, {{"geomean geblas/cusparse_call", g_call}, {"worst_call", worst_call}});
    if (n_pre) g_results->add(key, {{"geomean geblas/cusparse_pre", g_pre}, {"worst_pre", worst_pre}});
  }
  if (!all_ok) std::printf("# bench_spgemm --device cuda: WRONG or FAILED rows above\n");
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (arg(argc, argv, "--device", "cpu") == "cuda") {
    try {
      return cuda_main(argc, argv);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_spgemm --device cuda: %s\n", e.what());
      return 1;
    }
  }
#ifndef GEBLAS_HAVE_GRAPHBLAS
  std::printf("bench_spgemm: SKIPPED: SuiteSparse:GraphBLAS was not found when this bench was configured "
              "(GraphBLAS.h, libgraphblas); it is the reference every product is checked against\n");
  return 0;
#else
  namespace gb = geblas::bench;
  gb::Results results("bench_spgemm", argc, argv);
  g_results = &results;
  const auto graphs = gb::split(arg(argc, argv, "--graphs", kDefaultGraphs), ',');
  const std::string generated = arg(argc, argv, "--generated", kDefaultGenerated);
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
    std::fprintf(stderr, "bench_spgemm: --device %s: this bench has cpu and cuda\n", device.c_str());
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
  const std::vector<gb::HostGraph> inputs = load_graphs(graphs, generated);
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
