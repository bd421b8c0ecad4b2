// bench_cpu_spmm: times geblas's CPU mxm (sparse x dense, float or double) against Eigen's sparse x
// dense product and SuiteSparse:GraphBLAS's GrB_mxm, in one process on the same inputs:
// plus_times, max_times and min_plus at N = 16, 64, 256, on a seeded uniform random graph
// and on the largest shared graphs. Each time is the median of --runs timed runs after
// one warm-up; every result is checked entry by entry against the others before it is
// printed. Values are small integers (exact in float in any summation order). --type
// double runs every product in double (GrB_FP64 on SuiteSparse's side).
//
// Eigen has no semirings: for plus_times it runs its own product (A * B with row-major
// B, which Eigen runs on one thread), and "eigen x T" is the same product on T row
// blocks of A in parallel. "geblas_x1" is geblas on one thread: the same resources as
// Eigen's product, and a figure that a loaded machine disturbs less than a parallel run
// (whose end waits for every thread to be scheduled). For max_times and min_plus, the
// Eigen column is a loop over A's rows of Eigen row expressions (cwiseMax / cwiseMin of
// scaled rows of B).
//
// "grb_dense" is SuiteSparse's dense-output path, the one with hand-written AVX2 /
// AVX-512 FMA loops for plus_times: C held full by row, pre-filled with the monoid's
// identity, then C += A*B (GrB_mxm with the semiring's add as accumulator). The pre-fill
// is inside the timed region: it is what that path needs to compute geblas's C = A*B.
// geblas and this path are timed in turn, run by run (on a shared machine both then see
// the same load): column g_paired, and grbD/g is grb_dense / g_paired. Run so, each product
// finds the caches as the other left them (this VM: geblas's max_times / min_plus up to 2x
// slower than back to back); the geblas column is the back-to-back median, the one the
// other ratios use, as the other libraries' columns are.
//
// --processes K re-executes the bench K times (same arguments) and prints, per case, the
// min / median / max over processes of the per-process medians, and their spread
// (max / min): the timings of one process are steady, those of different processes are
// what a user sees from run to run. Each process also times the machine itself at its start
// and end (machine_reference: a gather, a stream, a clock-bound loop), and the parent
// prints how much those vary between processes, and geblas's spread once each process's
// time is divided by its own gather reference.
//
// On a shared machine run it with OMP_WAIT_POLICY=passive in the environment (both
// libraries share libgomp, which reads it once at load): with spinning idle threads the
// small products wait whole scheduler ticks for a descheduled worker, and the spread
// between processes is that of tick counts.
//
// usage: bench_cpu_spmm [--graphs random,ego-Twitter-undirected,...] [--n 16,64,256]
//                       [--semirings plus_times,max_times,min_plus] [--runs 5]
//                       [--eigen 0] [--processes K] [--type float|double] [--warmup-s 3]
//                       [--reorder 0|1|both|scrambled]
// --reorder renames each graph's vertices by algo::locality_order (reverse Cuthill-McKee)
// first; "both" times the graph as read and then renamed, in the same process;
// "scrambled" times it as read, with its ids permuted at random (no locality left in
// them), and that renamed by the order.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <omp.h>

#include "geblas/geblas.hpp"
#include "graphblas_glue.hpp"
#include "results.hpp"

namespace {

using Clock = std::chrono::steady_clock;
geblas::bench::Results* g_results = nullptr;  // --results FILE (bench/common/results.hpp)
template <class T>
using ESparse = Eigen::SparseMatrix<T, Eigen::RowMajor, int>;
template <class T>
using EDense = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Csr {
  std::string name;
  geblas::Index nrows = 0, ncols = 0;
  std::vector<geblas::Index> offsets;
  std::vector<geblas::ColIndex> cols;
  std::vector<float> vals;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Values 1..3 for A's entries, so that max_times and min_plus are not trivial on
// pattern graphs.
void assign_values(Csr& g, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  g.vals.resize(g.cols.size());
  for (auto& v : g.vals) v = static_cast<float>(1 + rng() % 3);
}

// `nrows` x `nrows`, `nnz` positions drawn uniformly (duplicates dropped), seeded.
Csr random_graph(geblas::Index nrows, geblas::Index nnz, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<geblas::ColIndex>> rows(static_cast<std::size_t>(nrows));
  for (geblas::Index k = 0; k < nnz; ++k)
    rows[rng() % static_cast<std::uint64_t>(nrows)].push_back(static_cast<geblas::ColIndex>(rng() % static_cast<std::uint64_t>(nrows)));
  Csr g;
  g.name = "random";
  g.nrows = g.ncols = nrows;
  g.offsets.push_back(0);
  for (auto& r : rows) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    g.cols.insert(g.cols.end(), r.begin(), r.end());
    g.offsets.push_back(static_cast<geblas::Index>(g.cols.size()));
  }
  assign_values(g, seed + 1);
  return g;
}

std::filesystem::path data_dir() {
  if (const char* env = std::getenv("GEBLAS_DATA_DIR"); env && *env) return env;
  return GEBLAS_DEFAULT_DATA_DIR;
}

// A shared graph through geblas's reader; false (with a message) when it cannot be read.
bool load_graph(const std::string& name, Csr& g) {
  const auto path = data_dir() / (name + ".mtx.gz");
  if (!std::filesystem::exists(path)) {
    std::printf("# skipped %s: %s not found (set GEBLAS_DATA_DIR)\n", name.c_str(), path.c_str());
    return false;
  }
  try {
    const auto A = geblas::io::read_matrix_market<float>(path.string());
    const auto& s = A.storage();
    g.name = name;
    g.nrows = A.nrows();
    g.ncols = A.ncols();
    g.offsets.assign(s.row_offsets.as<geblas::Index>(), s.row_offsets.as<geblas::Index>() + g.nrows + 1);
    g.cols.assign(s.col_indices.as<geblas::ColIndex>(), s.col_indices.as<geblas::ColIndex>() + A.nvals());
  } catch (const geblas::Error& e) {
    std::printf("# skipped %s: %s\n", name.c_str(), e.what());
    return false;
  }
  assign_values(g, 7);
  return true;
}

// The band of g: the largest |i - j| over its entries.
geblas::Index bandwidth(const Csr& g) {
  geblas::Index band = 0;
  for (geblas::Index i = 0; i < g.nrows; ++i)
    for (auto e = g.offsets[static_cast<std::size_t>(i)]; e < g.offsets[static_cast<std::size_t>(i) + 1]; ++e)
      band = std::max<geblas::Index>(band, std::abs(i - g.cols[static_cast<std::size_t>(e)]));
  return band;
}

// g with vertex order[i] renamed i (row i of the result is row order[i] of g, with its
// columns renamed alike and sorted), called g.name + suffix. Square graphs only.
Csr renamed(const Csr& g, const std::vector<geblas::Index>& order, const std::string& suffix) {
  std::vector<geblas::Index> rank(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    rank[static_cast<std::size_t>(order[i])] = static_cast<geblas::Index>(i);
  Csr r;
  r.name = g.name + suffix;
  r.nrows = g.nrows;
  r.ncols = g.ncols;
  r.offsets.assign(1, 0);
  std::vector<std::pair<geblas::ColIndex, float>> row;
  for (geblas::Index i = 0; i < g.nrows; ++i) {
    const auto old = order[static_cast<std::size_t>(i)];
    row.clear();
    for (auto e = g.offsets[static_cast<std::size_t>(old)]; e < g.offsets[static_cast<std::size_t>(old) + 1]; ++e)
      row.emplace_back(
          static_cast<geblas::ColIndex>(rank[static_cast<std::size_t>(g.cols[static_cast<std::size_t>(e)])]),
          g.vals[static_cast<std::size_t>(e)]);
    std::sort(row.begin(), row.end());
    for (const auto& [c, v] : row) {
      r.cols.push_back(c);
      r.vals.push_back(v);
    }
    r.offsets.push_back(static_cast<geblas::Index>(r.cols.size()));
  }
  return r;
}

// g with its vertex ids permuted at random (seeded): a graph whose ids carry no locality,
// as hashed or arrival-order ids give, for --reorder scrambled.
Csr scrambled(const Csr& g) {
  if (g.nrows != g.ncols) return g;
  std::vector<geblas::Index> perm(static_cast<std::size_t>(g.nrows));  // vertex v becomes perm[v]
  std::iota(perm.begin(), perm.end(), geblas::Index{0});
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(2026));
  std::vector<geblas::Index> order(perm.size());
  for (std::size_t v = 0; v < perm.size(); ++v)
    order[static_cast<std::size_t>(perm[v])] = static_cast<geblas::Index>(v);
  return renamed(g, order, "+scrambled");
}

// g renamed by algo::locality_order, for --reorder; prints what the order cost and the
// band before and after. Square graphs only (the others are returned as they are).
Csr reordered(const Csr& g) {
  if (g.nrows != g.ncols) {
    std::printf("# %s: not square, not reordered\n", g.name.c_str());
    return g;
  }
  const auto A = geblas::SparseMatrix<float>::from_csr(g.nrows, g.ncols, g.offsets, g.cols, g.vals);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<geblas::Index> order = geblas::algo::locality_order(A);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Csr r = renamed(g, order, "+rcm");
  std::printf("# %s: algo::locality_order took %.3f s; bandwidth %lld -> %lld\n", g.name.c_str(), seconds,
              static_cast<long long>(bandwidth(g)), static_cast<long long>(bandwidth(r)));
  return r;
}

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

// Median wall time in ms; `cpu`, when given, receives the median CPU time of the process
// (all threads), which a loaded machine disturbs less (used for tuning runs).
double median_ms(int runs, const std::function<void()>& f, double* cpu = nullptr) {
  f();  // warm-up
  std::vector<double> t, c;
  for (int r = 0; r < runs; ++r) {
    const double c0 = cpu_ms();
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    c.push_back(cpu_ms() - c0);
  }
  std::sort(t.begin(), t.end());
  std::sort(c.begin(), c.end());
  if (cpu) *cpu = c[c.size() / 2];
  return t[t.size() / 2];
}

// Median wall times in ms of f and g timed in turn (f, g, f, g, ...), so that both see the
// same state of a shared machine: what a same-process ratio needs.
void median_pair_ms(int runs, const std::function<void()>& f, const std::function<void()>& g, double& tf,
                    double& tg) {
  f();  // warm-up
  g();
  std::vector<double> a, b;
  for (int r = 0; r < runs; ++r) {
    auto t0 = Clock::now();
    f();
    a.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    t0 = Clock::now();
    g();
    b.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  tf = a[a.size() / 2];
  tg = b[b.size() / 2];
}

struct SemiringCase {
  std::string name;
  double identity;  // of the add monoid (exact in float and double)
};

const std::vector<SemiringCase>& semiring_cases() {
  static const std::vector<SemiringCase> cases = {
      {"plus_times", 0.0}, {"max_times", -INFINITY}, {"min_plus", INFINITY}};
  return cases;
}

// Eigen: its own product for plus_times; row expressions for the others. Rows
// [r0, r1) only, so the same code serves the row-block parallel run.
template <class T>
void eigen_rows(const SemiringCase& s, const ESparse<T>& A, const EDense<T>& B, EDense<T>& C, Eigen::Index r0,
                Eigen::Index r1) {
  if (s.name == "plus_times") {
    C.middleRows(r0, r1 - r0).noalias() = A.middleRows(r0, r1 - r0) * B;
    return;
  }
  const bool is_max = s.name == "max_times";
  for (Eigen::Index i = r0; i < r1; ++i) {
    auto c = C.row(i);
    typename ESparse<T>::InnerIterator it(A, i);
    if (!it) {
      c.setConstant(static_cast<T>(s.identity));
      continue;
    }
    if (is_max) c = it.value() * B.row(it.index());
    else c = B.row(it.index()).array() + it.value();
    for (++it; it; ++it) {
      if (is_max) c = c.cwiseMax(it.value() * B.row(it.index()));
      else c = c.cwiseMin((B.row(it.index()).array() + it.value()).matrix());
    }
  }
}

// Largest difference between two row-major results, counted in entries that differ.
template <class T>
geblas::Index count_differences(const T* x, const T* y, std::size_t count) {
  const T tol = std::is_same_v<T, float> ? T(1e-5) : T(1e-12);
  geblas::Index bad = 0;
  for (std::size_t k = 0; k < count; ++k)
    if (!(x[k] == y[k] || std::abs(x[k] - y[k]) <= tol * std::max(T(1), std::abs(y[k])))) ++bad;
  return bad;
}

#ifdef GEBLAS_HAVE_GRAPHBLAS
using geblas::bench::Grb;
#endif

// What the machine itself gives this process, timed the same way as the products (median
// of `runs`, after a warm-up), with the products' thread count: a random gather-sum over a
// 64 MiB array (the access pattern of B's rows in an SpMM), a sequential sum over 256 MiB
// (bandwidth) and a chain of dependent FMAs per thread (the clock). The --processes
// parent prints how much each varies between processes beside geblas's spread: where
// the machine varies as much, the variance is not the library's.
struct MachineReference {
  double gather_ms = NAN, stream_ms = NAN, fma_ms = NAN;
};

MachineReference machine_reference(int runs) {
  const std::size_t big = std::size_t{64} << 20;    // floats: 256 MiB
  const std::size_t table = std::size_t{16} << 20;  // floats: 64 MiB
  const std::size_t reads = std::size_t{8} << 20;
  std::vector<float> data(big, 1.0f);
  std::vector<std::uint32_t> index(reads);
  std::mt19937 rng(7);
  for (auto& i : index) i = static_cast<std::uint32_t>(rng() % table);
  auto median_ms = [&](auto&& f) {
    f();
    std::vector<double> t;
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  volatile float sink = 0;
  MachineReference m;
  m.gather_ms = median_ms([&] {
    float s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (std::size_t k = 0; k < reads; ++k) s += data[index[k]];
    sink = s;
  });
  m.stream_ms = median_ms([&] {
    float s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (std::size_t k = 0; k < big; ++k) s += data[k];
    sink = s;
  });
  m.fma_ms = median_ms([&] {
    float s = 0;
#pragma omp parallel reduction(+ : s)
    {
      float x = 1.0f + 1e-7f * static_cast<float>(omp_get_thread_num());
      for (int k = 0; k < (1 << 24); ++k) x = std::fma(x, 0.9999999f, 1e-7f);
      s += x;
    }
    sink = s;
  });
  (void)sink;
  return m;
}

// Keeps every thread busy for `seconds` before anything is timed: on the build VM a
// clock-bound loop ran 1.25-1.35x slower in a process's first seconds than later
// (docs/notes/runs/2026-11-28-cpu-spmm-quiet.md), which the first cases of a process would
// otherwise see as a slower library.
void warm_up(double seconds) {
  if (seconds <= 0) return;
  const auto t0 = std::chrono::steady_clock::now();
  float total = 0;
#pragma omp parallel reduction(+ : total)
  {
    float x = 1.0f;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds)
      for (int k = 0; k < (1 << 16); ++k) x = std::fma(x, 0.9999999f, 1e-7f);
    total += x;
  }
  volatile float sink = total;  // keeps the loop
  (void)sink;
}

void print_reference(const char* when, const MachineReference& m) {
  std::printf("# machine reference (%s): gather %.3f ms, stream %.3f ms, fma %.3f ms\n", when, m.gather_ms, m.stream_ms,
              m.fma_ms);
}

// One printed row of the table, as the --processes parent reads it back.
struct Row {
  std::string graph, semiring;
  int n = 0;
  double geblas = NAN, grb = NAN, grb_dense = NAN, geblas_paired = NAN;
};

bool parse_row(const char* line, Row& r) {
  char g[128], s[64];
  double t[7];
  if (line[0] == '#' || std::sscanf(line, "%127s %63s %d %lf %lf %lf %lf %lf %lf %lf", g, s, &r.n, &t[0], &t[1], &t[2],
                                    &t[3], &t[4], &t[5], &t[6]) != 10)
    return false;
  r.graph = g;
  r.semiring = s;
  r.geblas = t[0];
  r.grb = t[4];
  r.grb_dense = t[5];
  r.geblas_paired = t[6];
  return true;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// --processes K: runs this program K times with the other arguments and summarises the
// per-process medians of each case.
int run_processes(int processes, int argc, char** argv) {
  // this program's path (popen's shell has its own /proc/self/exe)
  std::string cmd = std::filesystem::read_symlink("/proc/self/exe").string();
  for (int a = 1; a + 1 < argc; a += 2) {
    if (std::string(argv[a]) == "--processes") continue;
    cmd += std::string(" ") + argv[a] + " " + argv[a + 1];
  }
  std::vector<std::string> order;
  std::map<std::string, std::vector<Row>> rows;
  std::vector<MachineReference> refs;  // per process, the mean of its start and end
  for (int p = 0; p < processes; ++p) {
    MachineReference ref_sum{0, 0, 0};
    int ref_count = 0;
    unsetenv("GEBLAS_BENCH_RESULTS");  // the parent writes the results, not each process
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) { std::fprintf(stderr, "cannot run %s\n", cmd.c_str()); return 2; }
    char line[1024];
    while (std::fgets(line, sizeof line, pipe)) {
      if (p == 0 && line[0] == '#') std::fputs(line, stdout);
      if (std::strstr(line, "DIFFER")) { std::fputs(line, stdout); }
      MachineReference m;
      char when[32];
      if (std::sscanf(line, "# machine reference (%31[^)]): gather %lf ms, stream %lf ms, fma %lf ms", when,
                      &m.gather_ms, &m.stream_ms, &m.fma_ms) == 4) {
        ref_sum.gather_ms += m.gather_ms;
        ref_sum.stream_ms += m.stream_ms;
        ref_sum.fma_ms += m.fma_ms;
        ++ref_count;
      }
      Row r;
      if (!parse_row(line, r)) continue;
      const std::string key = r.graph + " " + r.semiring + " " + std::to_string(r.n);
      if (!rows.count(key)) order.push_back(key);
      rows[key].push_back(r);
    }
    const int rc = pclose(pipe);
    if (rc != 0) { std::fprintf(stderr, "process %d of %s failed (%d)\n", p, cmd.c_str(), rc); return 1; }
    if (ref_count > 0)
      refs.push_back({ref_sum.gather_ms / ref_count, ref_sum.stream_ms / ref_count, ref_sum.fma_ms / ref_count});
  }
  std::printf(
      "# %d processes; per case: geblas's per-process medians (min / median / max, spread = max / min), "
      "SuiteSparse's, and the median over processes of the same-process ratio grb_dense / g_paired\n",
      processes);
  std::printf("%-24s %-10s %4s %9s %9s %9s %7s %9s %7s %9s %7s %8s %8s\n", "graph", "semiring", "N", "g_min", "g_med",
              "g_max", "g_sprd", "grb_med", "grb_sp", "grbD_med", "grbD_sp", "grb/g", "grbD/g");
  std::map<std::string, std::vector<double>> ratios;  // semiring -> median grbD/g per case
  double worst_spread = 0;
  for (const auto& key : order) {
    const auto& v = rows[key];
    std::vector<double> g, grb, grbd, rg, rd;
    for (const auto& r : v) {
      g.push_back(r.geblas);
      grb.push_back(r.grb);
      grbd.push_back(r.grb_dense);
      rg.push_back(r.grb / r.geblas);
      rd.push_back(r.grb_dense / r.geblas_paired);
    }
    const auto [gmin, gmax] = std::minmax_element(g.begin(), g.end());
    const auto spread = [](const std::vector<double>& x) {
      const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
      return *hi / *lo;
    };
    worst_spread = std::max(worst_spread, *gmax / *gmin);
    ratios[v[0].semiring].push_back(median_of(rd));
    std::printf("%-24s %-10s %4d %9.2f %9.2f %9.2f %7.2f %9.2f %7.2f %9.2f %7.2f %8.2f %8.2f\n", v[0].graph.c_str(),
                v[0].semiring.c_str(), v[0].n, *gmin, median_of(g), *gmax, *gmax / *gmin, median_of(grb), spread(grb),
                median_of(grbd), spread(grbd), median_of(rg), median_of(rd));
    const geblas::bench::CaseKey ck{{"graph", v[0].graph}, {"semiring", v[0].semiring}, {"N", std::to_string(v[0].n)}};
    g_results->add(ck, {{"g_min", *gmin}, {"g_med", median_of(g)}, {"g_max", *gmax}}, "ms");
    g_results->add(ck, {{"g_sprd", *gmax / *gmin}}, "x");
    g_results->add(ck, {{"grb_med", median_of(grb)}}, "ms");
    g_results->add(ck, {{"grb_sp", spread(grb)}}, "x");
    g_results->add(ck, {{"grbD_med", median_of(grbd)}}, "ms");
    g_results->add(ck, {{"grbD_sp", spread(grbd)}, {"grb/g", median_of(rg)}, {"grbD/g", median_of(rd)}}, "x");
  }
  for (const auto& [s, r] : ratios) {
    double lg = 0;
    for (double x : r) lg += std::log(x);
    std::printf("# %s: grb_dense / geblas min %.2f, geomean %.2f over %zu cases\n", s.c_str(),
                *std::min_element(r.begin(), r.end()), std::exp(lg / r.size()), r.size());
    g_results->add({{"semiring", s}}, {{"grbD/g min", *std::min_element(r.begin(), r.end())},
                                       {"grbD/g geomean", std::exp(lg / r.size())}}, "x");
  }
  std::printf("# largest between-process spread of geblas's median: %.2fx\n", worst_spread);
  g_results->add({{"summary", "all cases"}}, "largest g_sprd", worst_spread, "x");
  if (refs.size() == static_cast<std::size_t>(processes)) {
    // The machine's own spread, and geblas's with each process's time divided by that
    // process's gather reference (what is left once the machine's variation is removed).
    const auto spread_of = [&](double MachineReference::*f) {
      double lo = INFINITY, hi = 0;
      for (const auto& m : refs) {
        lo = std::min(lo, m.*f);
        hi = std::max(hi, m.*f);
      }
      return hi / lo;
    };
    double worst_normalised = 0;
    for (const auto& key : order) {
      const auto& v = rows[key];
      if (v.size() != refs.size()) continue;
      double lo = INFINITY, hi = 0;
      for (std::size_t k = 0; k < v.size(); ++k) {
        const double x = v[k].geblas / refs[k].gather_ms;
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
      worst_normalised = std::max(worst_normalised, hi / lo);
    }
    std::printf("# between-process spread of the machine reference: gather %.2fx, stream %.2fx, fma %.2fx\n",
                spread_of(&MachineReference::gather_ms), spread_of(&MachineReference::stream_ms),
                spread_of(&MachineReference::fma_ms));
    std::printf("# largest between-process spread of geblas's median / the process's gather reference: %.2fx\n",
                worst_normalised);
  }
  return 0;
}

// One graph at every N and semiring, in value type T; the number of cases whose results
// differ between the libraries, or -1 for an unknown semiring.
struct Settings {
  std::vector<int> ns;
  std::vector<std::string> semirings;
  int runs = 5;
  bool only_geblas = false, with_eigen = true;
  int threads = 1;
};

template <class T>
int run_graph(const Csr& g, const Settings& st) {
  const std::vector<int>& ns = st.ns;
  const std::vector<std::string>& semirings = st.semirings;
  const int runs = st.runs, threads = st.threads;
  const bool only_geblas = st.only_geblas, with_eigen = st.with_eigen;
  const auto nnz = static_cast<geblas::Index>(g.cols.size());
  int failures = 0;
  const std::vector<T> vals(g.vals.begin(), g.vals.end());
  const auto A = geblas::SparseMatrix<T>::from_csr(g.nrows, g.ncols, g.offsets, g.cols, vals);
  std::vector<int> outer(g.offsets.begin(), g.offsets.end());
  const ESparse<T> Ae = Eigen::Map<const ESparse<T>>(g.nrows, g.ncols, nnz, outer.data(), g.cols.data(), vals.data());
  // row blocks of about equal entries for the parallel Eigen run
  std::vector<Eigen::Index> blocks = {0};
  for (int t = 1; t < threads; ++t)
    blocks.push_back(std::lower_bound(g.offsets.begin(), g.offsets.end(), nnz * t / threads) - g.offsets.begin());
  blocks.push_back(g.nrows);
#ifdef GEBLAS_HAVE_GRAPHBLAS
  GrB_Matrix Ag = nullptr;
  {
    std::vector<GrB_Index> I(static_cast<std::size_t>(nnz)), J(static_cast<std::size_t>(nnz));
    for (geblas::Index i = 0; i < g.nrows; ++i)
      for (geblas::Index k = g.offsets[i]; k < g.offsets[i + 1]; ++k) {
        I[k] = static_cast<GrB_Index>(i);
        J[k] = static_cast<GrB_Index>(g.cols[k]);
      }
    GRB_CHECK(GrB_Matrix_new(&Ag, Grb<T>::type(), g.nrows, g.ncols));
    GRB_CHECK(Grb<T>::build(Ag, I.data(), J.data(), vals.data(), nnz, Grb<T>::add("plus_times")));
    GRB_CHECK(GrB_Matrix_wait(Ag, GrB_MATERIALIZE));
  }
#endif
  for (int n : ns) {
    // B: values 0..7, seeded
    EDense<T> Be(g.ncols, n);
    {
      std::mt19937_64 rng(99 + n);
      for (Eigen::Index k = 0; k < Be.size(); ++k) Be.data()[k] = static_cast<T>(rng() % 8);
    }
    const auto B = geblas::DenseMatrix<T>::from_row_major(g.ncols, n, std::vector<T>(Be.data(), Be.data() + Be.size()));
#ifdef GEBLAS_HAVE_GRAPHBLAS
    GrB_Matrix Bg = nullptr;
    {
      GRB_CHECK(GrB_Matrix_new(&Bg, Grb<T>::type(), g.ncols, n));
      const GrB_Index bytes = static_cast<GrB_Index>(Be.size()) * sizeof(T);
      void* x = std::malloc(bytes);
      std::copy(Be.data(), Be.data() + Be.size(), static_cast<T*>(x));
      GRB_CHECK(GxB_Matrix_pack_FullR(Bg, &x, bytes, false, nullptr));
    }
#endif
    for (const auto& sname : semirings) {
      const auto it =
          std::find_if(semiring_cases().begin(), semiring_cases().end(), [&](auto& c) { return c.name == sname; });
      if (it == semiring_cases().end()) {
        std::fprintf(stderr, "unknown semiring %s\n", sname.c_str());
        return -1;
      }
      const SemiringCase& s = *it;
      const geblas::SemiringId id = geblas::semiring_from_string(sname.c_str());
      geblas::DenseMatrix<T> C(g.nrows, n);
      double cpu_geblas = 0;
      const auto run_geblas = [&] { geblas::visit_semiring<T>(id, [&]<class S>() { geblas::mxm(C, A, B, S{}); }); };
      double t_geblas = median_ms(runs, run_geblas, &cpu_geblas);
      if (only_geblas) {
        std::printf("%-24s %-10s %4d %10.2f  (cpu %.2f)\n", g.name.c_str(), sname.c_str(), n, t_geblas, cpu_geblas);
        continue;
      }
      const std::vector<T> got = C.to_row_major();
      geblas::Index bad = 0;
      double t_geblas1 = NAN, t_eigen = NAN, t_eigen2 = NAN;
      if (with_eigen) {
        geblas::DenseMatrix<T> C1(g.nrows, n);
        omp_set_num_threads(1);
        t_geblas1 =
            median_ms(runs, [&] { geblas::visit_semiring<T>(id, [&]<class S>() { geblas::mxm(C1, A, B, S{}); }); });
        omp_set_num_threads(threads);
        EDense<T> Ce(g.nrows, n), Ce2(g.nrows, n);
        t_eigen = median_ms(runs, [&] { eigen_rows(s, Ae, Be, Ce, 0, g.nrows); });
        t_eigen2 = median_ms(runs, [&] {
#pragma omp parallel for schedule(static, 1) num_threads(threads)
          for (int t = 0; t < threads; ++t) eigen_rows(s, Ae, Be, Ce2, blocks[t], blocks[t + 1]);
        });
        bad += count_differences(got.data(), Ce.data(), got.size());
        bad += count_differences(got.data(), C1.to_row_major().data(), got.size());
        bad += count_differences(got.data(), Ce2.data(), got.size());
      }
      double t_grb = NAN, t_grb_dense = NAN, t_paired = NAN;
#ifdef GEBLAS_HAVE_GRAPHBLAS
      {
        GrB_Matrix Cg = nullptr;
        GRB_CHECK(GrB_Matrix_new(&Cg, Grb<T>::type(), g.nrows, n));
        t_grb = median_ms(runs, [&] {
          GRB_CHECK(GrB_mxm(Cg, nullptr, nullptr, Grb<T>::semiring(sname), Ag, Bg, nullptr));
          GRB_CHECK(GrB_Matrix_wait(Cg, GrB_MATERIALIZE));
        });
        GrB_Index nv = 0;
        GRB_CHECK(GrB_Matrix_nvals(&nv, Cg));
        std::vector<GrB_Index> I(nv), J(nv);
        std::vector<T> X(nv);
        GRB_CHECK(Grb<T>::extract(I.data(), J.data(), X.data(), &nv, Cg));
        // entries GraphBLAS leaves absent are the identity in geblas's dense C
        std::vector<T> full(got.size(), static_cast<T>(s.identity));
        for (GrB_Index k = 0; k < nv; ++k) full[I[k] * static_cast<GrB_Index>(n) + J[k]] = X[k];
        bad += count_differences(got.data(), full.data(), got.size());
        GrB_Matrix_free(&Cg);
      }
      {
        // the dense-output path: C full, held by row, pre-filled with the identity
        GrB_Matrix Cd = nullptr;
        GRB_CHECK(GrB_Matrix_new(&Cd, Grb<T>::type(), g.nrows, n));
        GRB_CHECK(GxB_Matrix_Option_set(Cd, GxB_FORMAT, GxB_BY_ROW));
        GRB_CHECK(GxB_Matrix_Option_set(Cd, GxB_SPARSITY_CONTROL, GxB_FULL));
        // timed in turn with geblas (g_paired), for the ratio grbD/g
        median_pair_ms(
            runs, run_geblas,
            [&] {
              GRB_CHECK(Grb<T>::assign(Cd, nullptr, nullptr, static_cast<T>(s.identity), GrB_ALL, g.nrows, GrB_ALL, n,
                                       nullptr));
              GRB_CHECK(GrB_mxm(Cd, nullptr, Grb<T>::add(sname), Grb<T>::semiring(sname), Ag, Bg, nullptr));
              GRB_CHECK(GrB_Matrix_wait(Cd, GrB_MATERIALIZE));
            },
            t_paired, t_grb_dense);
        int sparsity = 0;
        GRB_CHECK(GxB_Matrix_Option_get(Cd, GxB_SPARSITY_STATUS, &sparsity));
        if (sparsity != GxB_FULL) {
          std::printf("# grb_dense: C is not held full (status %d)\n", sparsity);
          ++bad;
        }
        GrB_Index nv = 0;
        GRB_CHECK(GrB_Matrix_nvals(&nv, Cd));
        std::vector<GrB_Index> I(nv), J(nv);
        std::vector<T> X(nv);
        GRB_CHECK(Grb<T>::extract(I.data(), J.data(), X.data(), &nv, Cd));
        std::vector<T> full(got.size(), static_cast<T>(NAN));
        for (GrB_Index k = 0; k < nv; ++k) full[I[k] * static_cast<GrB_Index>(n) + J[k]] = X[k];
        bad += count_differences(got.data(), full.data(), got.size());
        GrB_Matrix_free(&Cd);
      }
#endif
      if (bad) ++failures;
      std::printf("%-24s %-10s %4d %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %9.2f %9.2f %9.2f %9.2f %9.2f%s\n",
                  g.name.c_str(), sname.c_str(), n, t_geblas, t_geblas1, t_eigen, t_eigen2, t_grb, t_grb_dense,
                  t_paired, t_eigen / t_geblas, t_eigen / t_geblas1, t_eigen2 / t_geblas, t_grb / t_geblas,
                  t_grb_dense / t_paired, bad ? "  RESULTS DIFFER" : "");
      const geblas::bench::CaseKey key{{"graph", g.name}, {"semiring", sname}, {"N", std::to_string(n)}};
      g_results->add(key, {{"geblas", t_geblas}, {"geblas_x1", t_geblas1}, {"eigen", t_eigen}, {"eigen_xT", t_eigen2},
                           {"graphblas", t_grb}, {"grb_dense", t_grb_dense}, {"g_paired", t_paired}}, "ms");
      g_results->add(key, {{"grb/g", t_grb / t_geblas}, {"grbD/g", t_grb_dense / t_paired}}, "x");
      if (bad) g_results->add_text(key, "check", "RESULTS DIFFER");
      std::fflush(stdout);
    }
#ifdef GEBLAS_HAVE_GRAPHBLAS
    GrB_Matrix_free(&Bg);
#endif
  }
#ifdef GEBLAS_HAVE_GRAPHBLAS
  GrB_Matrix_free(&Ag);
#endif
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  geblas::bench::Results results("bench_cpu_spmm", argc, argv);
  g_results = &results;
  std::vector<std::string> graphs = {"random", "ego-Twitter-undirected", "soc-Slashdot0902", "cit-HepPh"};
  std::vector<int> ns = {16, 64, 256};
  std::vector<std::string> semirings = {"plus_times", "max_times", "min_plus"};
  int runs = 5;
  bool only_geblas = false;  // --only-geblas 1: skip Eigen and GraphBLAS (for tuning runs)
  bool with_eigen = true;    // --eigen 0: skip Eigen and geblas on one thread
  int processes = 0;
  double warmup_s = 3;  // --warmup-s: every thread busy this long before the first timing (warm_up)
  std::string type = "float";
  // --reorder 1: each graph renamed by algo::locality_order; both: as read, then renamed;
  // scrambled: as read, with its ids permuted at random, then that renamed
  std::string reorder = "0";
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string key = argv[a], value = argv[a + 1];
    if (key == "--graphs") graphs = split(value);
    else if (key == "--n") { ns.clear(); for (auto& x : split(value)) ns.push_back(std::stoi(x)); }
    else if (key == "--semirings") semirings = split(value);
    else if (key == "--runs") runs = std::max(1, std::stoi(value));
    else if (key == "--only-geblas") only_geblas = value == "1";
    else if (key == "--eigen") with_eigen = value != "0";
    else if (key == "--processes") processes = std::stoi(value);
    else if (key == "--type") type = value;
    else if (key == "--warmup-s") warmup_s = std::stod(value);
    else if (key == "--reorder") reorder = value;
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  if (reorder != "0" && reorder != "1" && reorder != "both" && reorder != "scrambled") {
    std::fprintf(stderr, "--reorder is 0, 1, both or scrambled, not %s\n", reorder.c_str());
    return 2;
  }
  if (type != "float" && type != "double") {
    std::fprintf(stderr, "--type is float or double, not %s\n", type.c_str());
    return 2;
  }
  if (processes > 0) return run_processes(processes, argc, argv);
  const int threads = omp_get_max_threads();
#ifdef GEBLAS_HAVE_GRAPHBLAS
  GRB_CHECK(GrB_init(GrB_NONBLOCKING));
  GRB_CHECK(GxB_Global_Option_set(static_cast<GxB_Option_Field>(GxB_NTHREADS), threads));
  // GEBLAS_BENCH_BURBLE=1: SuiteSparse prints which method each call takes
  if (const char* b = std::getenv("GEBLAS_BENCH_BURBLE"); b && *b == '1')
    GRB_CHECK(GxB_Global_Option_set(static_cast<GxB_Option_Field>(GxB_BURBLE), true));
  std::printf("# SuiteSparse:GraphBLAS %d.%d.%d, %d threads\n", GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR,
              GxB_IMPLEMENTATION_SUB, threads);
#else
  std::printf("# SuiteSparse:GraphBLAS not available: its column reads n/a\n");
#endif
  // libgomp's wait policy (OMP_WAIT_POLICY at load time) decides much of a loaded
  // machine's timings: spinning threads hold cores that descheduled workers need
  // (docs/notes/cpu-spmm-vs-suitesparse.md). It applies to both libraries alike.
  std::printf("# OpenMP wait policy: %s\n", geblas::passive_wait() ? "passive" : "spinning (libgomp default)");
  std::printf(
      "# geblas and GraphBLAS use %d OpenMP threads; Eigen's product runs on 1 (row-major B), "
      "'eigen x%d' runs it on %d row blocks in parallel; median of %d runs after 1 warm-up, ms; %s values\n",
      threads, threads, threads, runs, type.c_str());
  std::printf("%-24s %-10s %4s %10s %10s %10s %10s %10s %10s %10s %9s %9s %9s %9s %9s\n", "graph", "semiring", "N",
              "geblas", "geblas_x1", "eigen", "eigen_xT", "graphblas", "grb_dense", "g_paired", "eigen/g", "eigen/g1",
              "eigenT/g", "grb/g", "grbD/g");
  const Settings st{ns, semirings, runs, only_geblas, with_eigen, threads};
  warm_up(warmup_s);
  print_reference("start", machine_reference(runs));
  int failures = 0;
  for (const auto& gname : graphs) {
    Csr g;
    if (gname == "random") g = random_graph(262144, 4200000, 2026);
    else if (!load_graph(gname, g)) continue;
    std::vector<Csr> versions;
    if (reorder != "1") versions.push_back(g);
    if (reorder == "1" || reorder == "both") versions.push_back(reordered(g));
    if (reorder == "scrambled") {
      versions.push_back(scrambled(g));
      versions.push_back(reordered(versions.back()));
    }
    for (const Csr& v : versions) {
      const auto nnz = static_cast<geblas::Index>(v.cols.size());
      std::printf("# %s: %lld x %lld, %lld entries\n", v.name.c_str(), (long long)v.nrows, (long long)v.ncols,
                  (long long)nnz);
      const int f = type == "double" ? run_graph<double>(v, st) : run_graph<float>(v, st);
      if (f < 0) return 2;
      failures += f;
    }
  }
  print_reference("end", machine_reference(runs));
#ifdef GEBLAS_HAVE_GRAPHBLAS
  GrB_finalize();
#endif
  if (failures) std::printf("# %d cases where the results differ\n", failures);
  return failures ? 1 : 0;
}
