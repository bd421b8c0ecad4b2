// Benchmarks of the graph algorithms, each checked against another computation before
// it is reported:
//   pagerank  time per PageRank iteration (from the iteration callback, set-up excluded)
//             against one SpMV: geblas's own N = 1 product and, with CUDA, cuSPARSE's
//   ppr       personalized PageRank of k seed sets in one run against k single runs
//             (throughput ratio; columns checked against the single runs)
//   sssp      k-source SSSP (one min_plus SpMM per round) against k single-source runs
//             (distances checked equal)
// Medians of timed runs after a warm-up run; CSV lines, then a summary.
//   bench_algorithms [--device cpu|cuda] [--graph FILE] [--k 64] [--iters 20] [--repeat 5]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cusparse_spmv.hpp"
#include "geblas/geblas.hpp"

using namespace geblas;

namespace {

struct Config {
  Device device = default_device();
  std::string graph;
  Index k = 64;
  int iters = 20;
  int repeat = 5;
};

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Median wall time of `repeat` runs after one warm-up; f() must leave the device idle.
double median_seconds(int repeat, const std::function<void()>& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r) {
    const double t0 = now();
    f();
    t.push_back(now() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The largest graph of the shared data folder by file size (ego-Twitter-undirected,
// 2.7 M entries, in the 2026-11 collection).
std::string default_graph() {
  const char* env = std::getenv("GEBLAS_DATA_DIR");
  const std::filesystem::path dir = env && *env ? env : GEBLAS_BENCH_DATA_DIR;
  std::string best;
  std::uintmax_t size = 0;
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (!name.ends_with(".mtx.gz") || name.find(".features.") != std::string::npos) continue;
      if (e.file_size() > size) {
        size = e.file_size();
        best = e.path().string();
      }
    }
  return best;
}

void fail(const std::string& what) {
  std::fprintf(stderr, "bench_algorithms: CHECK FAILED: %s\n", what.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--device") c.device = v == "cpu" ? Device::cpu() : Device::cuda(v.size() > 5 ? std::atoi(v.c_str() + 5) : 0);
    else if (a == "--graph") c.graph = v;
    else if (a == "--k") c.k = std::atoll(v.c_str());
    else if (a == "--iters") c.iters = std::atoi(v.c_str());
    else if (a == "--repeat") c.repeat = std::atoi(v.c_str());
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (c.graph.empty()) c.graph = default_graph();
  if (c.graph.empty()) {
    std::printf("SKIPPED: no graph given and none found in the data folder\n");
    return 0;
  }
  try {
    const auto host = io::read_matrix_market<float>(c.graph);
    const Index n = host.nrows();
    // |values| as SSSP weights; PageRank uses the pattern.
    std::vector<float> w = host.values();
    for (float& x : w) x = std::abs(x);
    const auto A = SparseMatrix<float>::from_csr(n, n, host.row_offsets(), host.col_indices(), w, c.device);
    const std::string gname = std::filesystem::path(c.graph).filename().string();
    const std::string dev = c.device.str();
    std::printf("# bench_algorithms: %s (%lld vertices, %lld entries) on %s, k = %lld, %d iterations, %d repeats\n",
                gname.c_str(), static_cast<long long>(n), static_cast<long long>(A.nvals()), dev.c_str(),
                static_cast<long long>(c.k), c.iters, c.repeat);
    std::printf("section,graph,device,metric,value\n");

    // ---- PageRank iteration vs one SpMV
    algo::PageRankOptions po;
    po.tolerance = 0;  // run exactly `iters` iterations
    po.max_iterations = c.iters;
    std::vector<double> stamps;
    po.on_iteration = [&](int, double) { stamps.push_back(now()); };
    std::vector<double> per_iter;
    algo::pagerank(A, po);  // warm-up
    for (int r = 0; r < c.repeat; ++r) {
      stamps.clear();
      algo::pagerank(A, po);
      per_iter.push_back((stamps.back() - stamps.front()) / static_cast<double>(stamps.size() - 1));
    }
    std::sort(per_iter.begin(), per_iter.end());
    const double pr_iter = per_iter[per_iter.size() / 2];
    const auto x = DenseMatrix<float>::random(n, 1, c.device, 7);
    DenseMatrix<float> y(n, 1, c.device);
    const double spmv = median_seconds(std::max(c.repeat, 20), [&] {
      mxm(y, A, x, semiring::plus_times<float>{});
      synchronize(c.device);
    });
    std::printf("pagerank,%s,%s,iteration_ms,%.4f\n", gname.c_str(), dev.c_str(), pr_iter * 1e3);
    std::printf("pagerank,%s,%s,geblas_spmv_ms,%.4f\n", gname.c_str(), dev.c_str(), spmv * 1e3);
    const auto cu = bench::cusparse_spmv(n, n, host.row_offsets(), host.col_indices(), w, x.to_row_major(), 50);
    if (cu.available) {
      const auto mine = y.to_row_major();
      double err = 0, norm = 0;
      for (Index i = 0; i < n; ++i) {
        err += std::pow(double(mine[i]) - cu.y[i], 2);
        norm += std::pow(double(cu.y[i]), 2);
      }
      if (std::sqrt(err) > 1e-5 * std::sqrt(norm)) fail("geblas SpMV differs from cuSPARSE");
      std::printf("pagerank,%s,%s,cusparse_spmv_ms,%.4f\n", gname.c_str(), dev.c_str(), cu.median_ms);
    }

    // ---- personalized PageRank: k seed sets at once vs one at a time
    std::mt19937_64 rng(11);
    std::vector<std::vector<Index>> seeds;
    for (Index j = 0; j < c.k; ++j) seeds.push_back({static_cast<Index>(rng() % static_cast<std::uint64_t>(n))});
    po.on_iteration = {};
    DenseMatrix<float> together;
    const double ppr_multi = median_seconds(c.repeat, [&] {
      together = algo::personalized_pagerank(A, seeds, po).ranks;
      synchronize(c.device);
    });
    const Index singles = std::min<Index>(c.k, 8);
    std::vector<double> single_times;
    const auto all = together.to_col_major();
    for (Index j = 0; j < singles; ++j) {
      DenseMatrix<float> one;
      single_times.push_back(median_seconds(1, [&] {
        one = algo::personalized_pagerank(A, {seeds[static_cast<std::size_t>(j)]}, po).ranks;
        synchronize(c.device);
      }));
      const auto col = one.to_row_major();
      for (Index i = 0; i < n; ++i)
        if (std::abs(col[i] - all[static_cast<std::size_t>(j * n + i)]) > 1e-5f) fail("ppr column differs from its single run");
    }
    std::sort(single_times.begin(), single_times.end());
    const double ppr_single = single_times[single_times.size() / 2];
    std::printf("ppr,%s,%s,multi_%lld_ms,%.3f\n", gname.c_str(), dev.c_str(), static_cast<long long>(c.k), ppr_multi * 1e3);
    std::printf("ppr,%s,%s,single_ms,%.3f\n", gname.c_str(), dev.c_str(), ppr_single * 1e3);

    // ---- SSSP: k sources in one multi-source run vs k single-source runs
    std::vector<Index> sources;
    for (Index j = 0; j < c.k; ++j) sources.push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(n)));
    DenseMatrix<float> dist;
    int rounds = 0;
    const double sssp_multi = median_seconds(c.repeat, [&] {
      auto r = algo::sssp(A, sources);
      synchronize(c.device);
      rounds = r.rounds;
      dist = std::move(r.distances);
    });
    const auto dm = dist.to_col_major();
    double sssp_singles = 0;
    for (Index j = 0; j < c.k; ++j) {
      std::vector<float> d1;
      sssp_singles += median_seconds(1, [&] {
        d1 = algo::sssp(A, sources[static_cast<std::size_t>(j)]).distances.to_std_vector();
      });
      for (Index i = 0; i < n; ++i)
        if (d1[i] != dm[static_cast<std::size_t>(j * n + i)]) fail("multi-source distance differs from single-source");
    }
    std::printf("sssp,%s,%s,multi_%lld_ms,%.3f\n", gname.c_str(), dev.c_str(), static_cast<long long>(c.k), sssp_multi * 1e3);
    std::printf("sssp,%s,%s,singles_%lld_ms,%.3f\n", gname.c_str(), dev.c_str(), static_cast<long long>(c.k), sssp_singles * 1e3);
    std::printf("sssp,%s,%s,multi_rounds,%d\n", gname.c_str(), dev.c_str(), rounds);

    std::printf("\nsummary (%s, %s):\n", gname.c_str(), dev.c_str());
    std::printf("  PageRank iteration / geblas SpMV     : %.2fx (%.4f ms / %.4f ms)\n", pr_iter / spmv, pr_iter * 1e3, spmv * 1e3);
    if (cu.available)
      std::printf("  PageRank iteration / cuSPARSE SpMV   : %.2fx (target <= 1.3x)\n", pr_iter * 1e3 / cu.median_ms);
    std::printf("  PPR %lld seed sets, throughput gain   : %.1fx (%lld x %.3f ms single / %.3f ms together; target >= 10x)\n",
                static_cast<long long>(c.k), static_cast<double>(c.k) * ppr_single / ppr_multi,
                static_cast<long long>(c.k), ppr_single * 1e3, ppr_multi * 1e3);
    std::printf("  SSSP %lld sources, throughput gain    : %.1fx (%.3f ms singles / %.3f ms multi; target >= 10x)\n",
                static_cast<long long>(c.k), sssp_singles / sssp_multi, sssp_singles * 1e3, sssp_multi * 1e3);
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_algorithms: %s\n", e.what());
    return 1;
  }
}
