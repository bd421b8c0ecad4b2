// bench_vs_graphblas: geblas's CPU graph algorithms against the GraphBLAS-only programs of
// examples/graphblas running on SuiteSparse:GraphBLAS, in one process, on the same graphs,
// sources and weights: BFS, SSSP (delta-stepping on the GraphBLAS side), PageRank (L1
// change < 1e-4), connected components (FastSV) and triangle counting (masked L*U').
// The GraphBLAS side is geblas's own code in spec calls, written after LAGraph's
// published algorithms: a "LAGraph-style on SuiteSparse" comparator, not LAGraph itself.
//
// Both sides make repeated calls: geblas keeps A' with A after the first call, and the
// GraphBLAS side's graph (A', out-degrees, as LAGraph caches them) is built once before
// the timings (its cost is printed as "set-up"). Calls alternate between the sides, and
// each time is the median of --runs. Every result is checked before it is printed:
// BFS levels and SSSP distances equal on both sides and to a host queue BFS / Dijkstra
// (bench/algorithms/host_checks), components equal to a host union-find, triangle
// counts equal to a host count, PageRank within the L1 distance the stopping rule
// allows. A failed check prints "CHECK FAILED" and the exit status is 1.
//
//   bench_vs_graphblas [--graphs luxembourg_osm,wing,cit-HepPh,soc-Slashdot0902,ego-Twitter-undirected]
//       [--rmat 20] [--algorithms bfs,sssp,pagerank,cc,tc] [--runs 5] [--sources 4]
//       [--threads 2] [--delta 0 (= the mean weight)] [--seed 1]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "graphs.hpp"
#include "grb_algorithms.h"
#include "host_checks.hpp"
#include "results.hpp"

using namespace geblas;
using bench::HostCsr;

namespace {

struct Config {
  std::string graphs = "luxembourg_osm,wing,cit-HepPh,soc-Slashdot0902,ego-Twitter-undirected";
  int rmat = 20;  // 0: none
  std::set<std::string> algorithms{"bfs", "sssp", "pagerank", "cc", "tc"};
  int runs = 5;
  Index sources = 4;
  int threads = 2;
  float delta = 0;
  std::uint64_t seed = 1;
};

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int failures = 0;
void check(bool ok, const std::string& graph, const std::string& what) {
  if (ok) return;
  ++failures;
  std::printf("# CHECK FAILED: %s: %s\n", graph.c_str(), what.c_str());
  std::fflush(stdout);
}

void grb_ok(GrB_Info info, const char* what) {
  if (info == GrB_SUCCESS) return;
  std::fprintf(stderr, "bench_vs_graphblas: %s failed: %s\n", what, grb_last_error());
  std::exit(1);
}

// One graph on both sides: the directed pattern, its weights, and the undirected graph
// under it (components and triangles on both sides run on that one).
struct Case {
  std::string name;
  HostCsr g, s;  // directed; A + A'
  SparseMatrix<float> A, Aw, S;
  grb_graph G{}, GS{};
  std::vector<Index> roots;
  double grb_setup_ms = 0;
};

HostCsr sorted_csr(const SparseMatrix<float>& M) {
  HostCsr g;
  g.n = M.nrows();
  g.ro = M.row_offsets();
  g.ci = M.col_indices();
  for (Index i = 0; i < g.n; ++i) std::sort(g.ci.begin() + g.ro[i], g.ci.begin() + g.ro[i + 1]);
  return g;
}

HostCsr symmetrized(const HostCsr& g) {
  std::vector<std::vector<ColIndex>> rows(static_cast<std::size_t>(g.n));
  for (Index i = 0; i < g.n; ++i)
    for (Index e = g.ro[i]; e < g.ro[i + 1]; ++e) {
      rows[i].push_back(g.ci[e]);
      rows[g.ci[e]].push_back(static_cast<ColIndex>(i));
    }
  HostCsr s;
  s.n = g.n;
  s.ro.assign(static_cast<std::size_t>(g.n + 1), 0);
  for (Index i = 0; i < g.n; ++i) {
    auto& r = rows[i];
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    s.ro[i + 1] = s.ro[i] + static_cast<Index>(r.size());
    s.ci.insert(s.ci.end(), r.begin(), r.end());
  }
  return s;
}

void make_case(Case& c, const std::string& name, const SparseMatrix<float>& file, const Config& cfg) {
  c.name = name;
  c.g = sorted_csr(file);
  c.s = symmetrized(c.g);
  std::vector<float> ones(c.g.ci.size(), 1.0f), w(c.g.ci.size());
  for (Index i = 0; i < c.g.n; ++i)
    for (Index e = c.g.ro[i]; e < c.g.ro[i + 1]; ++e) w[e] = bench::edge_weight(i, c.g.ci[e]);
  c.A = SparseMatrix<float>::from_csr(c.g.n, c.g.n, c.g.ro, c.g.ci, ones);
  c.Aw = SparseMatrix<float>::from_csr(c.g.n, c.g.n, c.g.ro, c.g.ci, w);
  c.S = SparseMatrix<float>::from_csr(c.s.n, c.s.n, c.s.ro, c.s.ci, std::vector<float>(c.s.ci.size(), 1.0f));
  const double t0 = now_s();
  grb_ok(grb_graph_from_csr(&c.G, static_cast<GrB_Index>(c.g.n), c.g.ro.data(), c.g.ci.data(), w.data()),
         "grb_graph_from_csr");
  c.grb_setup_ms = 1e3 * (now_s() - t0);
  grb_ok(grb_graph_from_csr(&c.GS, static_cast<GrB_Index>(c.s.n), c.s.ro.data(), c.s.ci.data(), nullptr),
         "grb_graph_from_csr (A + A')");
  c.roots = bench::pick_roots(c.g, cfg.seed, cfg.sources);
}

struct Row {
  std::string graph, algo, note;
  double geblas_ms, grb_ms;
};
std::vector<Row> rows;

// Median times of `a` (geblas) and `b` (GraphBLAS), calls alternating, after one warm-up each.
void time_pair(const Case& c, const std::string& algo, const Config& cfg, const std::function<void()>& a,
               const std::function<void()>& b, const std::string& note) {
  a();
  b();
  std::vector<double> ta, tb;
  for (int r = 0; r < cfg.runs; ++r) {
    double t0 = now_s();
    a();
    ta.push_back(1e3 * (now_s() - t0));
    t0 = now_s();
    b();
    tb.push_back(1e3 * (now_s() - t0));
  }
  rows.push_back({c.name, algo, note, median(ta), median(tb)});
  const auto& row = rows.back();
  std::printf("[%s] %s: geblas %.3f ms, GraphBLAS %.3f ms, GraphBLAS / geblas %.2fx%s%s\n", algo.c_str(),
              c.name.c_str(), row.geblas_ms, row.grb_ms, row.grb_ms / row.geblas_ms, note.empty() ? "" : "; ",
              note.c_str());
  std::fflush(stdout);
}

std::vector<std::int64_t> grb_int64(GrB_Vector v, Index n, std::int64_t fill) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  grb_ok(grb_vector_to_dense_int64(out.data(), v, fill), "grb_vector_to_dense_int64");
  return out;
}
std::vector<float> grb_fp32(GrB_Vector v, Index n) {
  std::vector<float> out(static_cast<std::size_t>(n));
  grb_ok(grb_vector_to_dense_fp32(out.data(), v, std::nanf("")), "grb_vector_to_dense_fp32");
  return out;
}

void run_case(Case& c, const Config& cfg) {
  const Index n = c.g.n;
  std::printf("# %s: %lld vertices, %lld entries (%lld in A + A'); GraphBLAS set-up (A', degrees) %.1f ms\n",
              c.name.c_str(), static_cast<long long>(n), static_cast<long long>(c.g.ci.size()),
              static_cast<long long>(c.s.ci.size()), c.grb_setup_ms);
  if (cfg.algorithms.count("bfs")) {
    for (const Index r : c.roots) {  // results: each root once, against the host BFS
      const auto want = bench::bfs_levels(c.g, r);
      const auto mine = algo::bfs(c.A, r).levels.to_std_vector(-1);
      GrB_Vector lv = nullptr, pv = nullptr;
      grb_ok(grb_bfs(&lv, &pv, &c.G, static_cast<GrB_Index>(r)), "grb_bfs");
      const auto got = grb_int64(lv, n, -1);
      GrB_Vector_free(&lv);
      GrB_Vector_free(&pv);
      check(mine == want, c.name, "geblas BFS levels differ from the host BFS, root " + std::to_string(r));
      check(got == want, c.name, "GraphBLAS BFS levels differ from the host BFS, root " + std::to_string(r));
    }
    time_pair(
        c, "bfs", cfg, [&] { for (const Index r : c.roots) (void)algo::bfs(c.A, r); },
        [&] {
          for (const Index r : c.roots) {
            GrB_Vector lv = nullptr, pv = nullptr;
            grb_ok(grb_bfs(&lv, &pv, &c.G, static_cast<GrB_Index>(r)), "grb_bfs");
            GrB_Vector_free(&lv);
            GrB_Vector_free(&pv);
          }
        },
        std::to_string(c.roots.size()) + " roots, levels and parents");
  }
  if (cfg.algorithms.count("sssp")) {
    double mean = 0;
    for (Index i = 0; i < n; ++i)
      for (Index e = c.g.ro[i]; e < c.g.ro[i + 1]; ++e) mean += bench::edge_weight(i, c.g.ci[e]);
    mean /= std::max<double>(1, static_cast<double>(c.g.ci.size()));
    const float delta = cfg.delta > 0 ? cfg.delta : static_cast<float>(mean);
    const Index r = c.roots[0];
    const auto want = bench::dijkstra(c.g, r);
    const auto mine = algo::sssp(c.Aw, r).distances.to_std_vector();
    GrB_Vector dv = nullptr;
    grb_ok(grb_sssp(&dv, &c.G, static_cast<GrB_Index>(r), delta), "grb_sssp");
    const auto got = grb_fp32(dv, n);
    GrB_Vector_free(&dv);
    std::size_t bad_mine = 0, bad_got = 0;
    for (Index i = 0; i < n; ++i) {
      bad_mine += static_cast<double>(mine[i]) != want[i];
      bad_got += static_cast<double>(got[i]) != want[i];
    }
    check(bad_mine == 0, c.name, std::to_string(bad_mine) + " geblas SSSP distances differ from Dijkstra");
    check(bad_got == 0, c.name, std::to_string(bad_got) + " GraphBLAS SSSP distances differ from Dijkstra");
    char note[96];
    std::snprintf(note, sizeof note, "root %lld, weights 1-100, delta %.1f", static_cast<long long>(r), delta);
    time_pair(
        c, "sssp", cfg, [&] { (void)algo::sssp(c.Aw, r); },
        [&] {
          GrB_Vector v = nullptr;
          grb_ok(grb_sssp(&v, &c.G, static_cast<GrB_Index>(r), delta), "grb_sssp");
          GrB_Vector_free(&v);
        },
        note);
  }
  if (cfg.algorithms.count("pagerank")) {
    constexpr double d = 0.85, tol = 1e-4;
    algo::PageRankOptions o;
    o.tolerance = tol;
    const auto mine = algo::pagerank(c.A, o);
    GrB_Vector rv = nullptr;
    int iters = 0;
    grb_ok(grb_pagerank(&rv, &iters, &c.G, static_cast<float>(d), static_cast<float>(tol), 100), "grb_pagerank");
    const auto got = grb_fp32(rv, n);
    GrB_Vector_free(&rv);
    const auto m = mine.ranks.to_std_vector();
    double l1 = 0, sigma = 0;
    for (Index i = 0; i < n; ++i) {
      l1 += std::abs(static_cast<double>(m[i]) - got[i]);
      if (c.g.out_degree(i) == 0) sigma += got[i];
    }
    // GraphBLAS within tol d / (1 - d) of the fixed point, geblas within that times
    // (1 - d + d sigma) / (1 - d) (tests/graphblas/test_graphblas_algorithms.cpp says why)
    const double bound = tol * d / (1 - d) * (1 + (1 - d + d * sigma) / (1 - d)) + 1e-4;
    check(l1 <= bound, c.name,
          "PageRank: the two sides' L1 distance is " + std::to_string(l1) + ", bound " + std::to_string(bound));
    time_pair(
        c, "pagerank", cfg, [&] { (void)algo::pagerank(c.A, o); },
        [&] {
          GrB_Vector v = nullptr;
          int k = 0;
          grb_ok(grb_pagerank(&v, &k, &c.G, static_cast<float>(d), static_cast<float>(tol), 100), "grb_pagerank");
          GrB_Vector_free(&v);
        },
        "iterations: geblas " + std::to_string(mine.iterations) + ", GraphBLAS " + std::to_string(iters));
  }
  if (cfg.algorithms.count("cc")) {
    const auto want = bench::component_labels(c.s);
    const auto mine = algo::connected_components(c.S);
    GrB_Vector lv = nullptr;
    grb_ok(grb_connected_components(&lv, &c.GS), "grb_connected_components");
    const auto got = grb_int64(lv, n, -1);
    GrB_Vector_free(&lv);
    check(mine.labels.to_std_vector() == want, c.name, "geblas components differ from the host union-find");
    check(got == want, c.name, "GraphBLAS components differ from the host union-find");
    time_pair(
        c, "cc", cfg, [&] { (void)algo::connected_components(c.S); },
        [&] {
          GrB_Vector v = nullptr;
          grb_ok(grb_connected_components(&v, &c.GS), "grb_connected_components");
          GrB_Vector_free(&v);
        },
        std::to_string(mine.count) + " components of A + A'");
  }
  if (cfg.algorithms.count("tc")) {
    const auto want = bench::triangles(c.s);
    const auto mine = algo::triangle_count(c.S);
    std::uint64_t got = 0;
    grb_ok(grb_triangle_count(&got, &c.GS, -1), "grb_triangle_count");
    check(mine == want, c.name, "geblas triangle count differs from the host count");
    check(static_cast<std::int64_t>(got) == want, c.name, "GraphBLAS triangle count differs from the host count");
    time_pair(
        c, "tc", cfg, [&] { (void)algo::triangle_count(c.S); },
        [&] {
          std::uint64_t k = 0;
          grb_ok(grb_triangle_count(&k, &c.GS, -1), "grb_triangle_count");
        },
        std::to_string(want) + " triangles of A + A'");
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench::Results results("bench_vs_graphblas", argc, argv);  // --results FILE (bench/common/results.hpp)
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], v;
    if (const auto eq = a.find('='); eq != std::string::npos) {
      v = a.substr(eq + 1);
      a = a.substr(0, eq);
    } else if (i + 1 < argc) {
      v = argv[++i];
    }
    if (a == "--graphs") cfg.graphs = v == "none" ? "" : v;
    else if (a == "--rmat") cfg.rmat = std::stoi(v);
    else if (a == "--algorithms") {
      cfg.algorithms.clear();
      for (const auto& x : bench::split(v, ',')) cfg.algorithms.insert(x);
    } else if (a == "--runs") cfg.runs = std::max(1, std::stoi(v));
    else if (a == "--sources") cfg.sources = std::max<Index>(1, std::stoll(v));
    else if (a == "--threads") cfg.threads = std::stoi(v);
    else if (a == "--delta") cfg.delta = std::stof(v);
    else if (a == "--seed") cfg.seed = std::stoull(v);
    else {
      std::fprintf(stderr, "bench_vs_graphblas: unknown option %s (see the file's banner)\n", a.c_str());
      return 2;
    }
  }
  // both libraries take their threads from OpenMP; SuiteSparse reads the count at GrB_init
  omp_set_num_threads(cfg.threads);
  set_num_threads(cfg.threads);
  grb_ok(GrB_init(GrB_NONBLOCKING), "GrB_init");
  std::printf("# bench_vs_graphblas: %d threads, OMP_WAIT_POLICY=%s, %d runs (medians)\n", cfg.threads,
              std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "(unset)", cfg.runs);
  const auto dir = bench::data_dir(GEBLAS_BENCH_DATA_DIR);
  std::vector<std::pair<std::string, std::function<SparseMatrix<float>()>>> inputs;
  for (const auto& name : bench::split(cfg.graphs, ',')) {
    if (name.empty()) continue;
    const auto path = dir / (name + ".mtx.gz");
    if (!std::filesystem::exists(path)) {
      std::printf("# skipped %s: %s not found\n", name.c_str(), path.string().c_str());
      continue;
    }
    inputs.emplace_back(name, [path] { return io::read_matrix_market<float>(path.string()); });
  }
  // the R-MAT graph bench_algorithms builds from its default --synthetic (seed 20261123 + 2)
  if (cfg.rmat > 0)
    inputs.emplace_back("rmat-" + std::to_string(cfg.rmat) + "-16",
                        [&] { return bench::rmat_csr(cfg.rmat, 16, 20261123 + 2); });
  for (const auto& [name, load] : inputs) {
    Case c;
    make_case(c, name, load(), cfg);
    run_case(c, cfg);
    grb_graph_free(&c.G);
    grb_graph_free(&c.GS);
  }
  std::printf("\n| graph | algorithm | geblas ms | GrB on SuiteSparse ms | GrB / geblas | note |\n|---|---|---|---|---|---|\n");
  for (const auto& r : rows) {
    std::printf("| %s | %s | %.3f | %.3f | %.2fx | %s |\n", r.graph.c_str(), r.algo.c_str(), r.geblas_ms, r.grb_ms,
                r.grb_ms / r.geblas_ms, r.note.c_str());
    const bench::CaseKey key{{"graph", r.graph}, {"algorithm", r.algo}};
    results.add(key, {{"geblas ms", r.geblas_ms}, {"GrB ms", r.grb_ms}}, "ms");
    results.add(key, "GrB / geblas", r.grb_ms / r.geblas_ms, "x");
    results.add_text(key, "note", r.note);
  }
  GrB_finalize();
  if (failures) std::printf("# %d CHECK FAILED\n", failures);
  return failures ? 1 : 0;
}
