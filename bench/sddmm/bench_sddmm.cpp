// bench_sddmm: times the sampled dense x dense product S<A> = X * Y' (the attention
// scores s_ij = <x_i, y_j> on a graph's edges; float, plus_times, structural mask) on the
// GPU: geblas's public mxm (sparse C, dense row-major X and Y, Options::transpose_b)
// against cusparseSDDMM (CSR, CUSPARSE_SDDMM_ALG_DEFAULT, its buffer allocated and
// preprocessed once beforehand and passed to every call; bench/common/cusparse_ref.hpp),
// at feature widths 32, 64, 128, 256, on the shared graphs of >= 100k entries and a
// generated R-MAT graph of scale 20 (bench/common/graphs.hpp). X and Y are uniform in
// [-1, 1] from a fixed seed. Each time is the median of --runs one-call samples between
// two CUDA events on geblas's stream after a warm-up; geblas's C is made fresh before each
// sample outside the timing (as every geblas.sddmm / geblas.torch.sddmm result is), so its
// time includes the result's allocation and pattern copy, where cuSPARSE writes values
// into a CSR allocated once. Every value of both results is checked against
// a double host loop, within 1e-5 of the sum of the terms' magnitudes; a mismatch prints
// WRONG and the exit status is 1. Columns: graph, k, nnz, geblas_ms, cusparse_ms,
// cusparse/geblas (above 1: geblas faster), geblas GFLOP/s (2 nnz k), variant, check.
//
// usage: bench_sddmm [--graphs cit-HepPh,...] [--generated rmat:20:16] [--widths 32,64,128,256]
//                    [--runs 11] [--results FILE]
// e.g. on the device machine:
//   GEBLAS_DATA_DIR=/work/shared/data build/bench/sddmm/bench_sddmm --results sddmm.csv
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cusparse_ref.hpp"
#include "geblas/geblas.hpp"
#include "graphs.hpp"
#include "results.hpp"

namespace {
namespace gb = geblas::bench;
using geblas::Index;

std::string arg(int argc, char** argv, const char* name, const char* fallback) {
  for (int q = 1; q + 1 < argc; ++q)
    if (std::string(argv[q]) == name) return argv[q + 1];
  return fallback;
}

constexpr const char* kDefaultGraphs = "cit-HepPh,email-Enron,soc-Slashdot0902,ego-Twitter-undirected";
constexpr const char* kDefaultGenerated = "rmat:20:16";

std::vector<float> uniform(Index count, std::uint64_t seed) {
  std::vector<float> v(static_cast<std::size_t>(count));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& x : v) x = u(rng);
  return v;
}

// "" when every value in `got` (in A's CSR order) is within tolerance of the double host
// product, else the first bad entry.
std::string check(const geblas::SparseMatrix<float>& A, const std::vector<float>& X, const std::vector<float>& Y,
                  Index k, const std::vector<float>& got) {
  const auto ro = A.row_offsets();
  const auto ci = A.col_indices();
  if (static_cast<Index>(got.size()) != A.nvals())
    return std::to_string(got.size()) + " values, want " + std::to_string(A.nvals());
  Index bad = -1;
#pragma omp parallel for schedule(dynamic, 64)
  for (Index i = 0; i < A.nrows(); ++i)
    for (Index p = ro[i]; p < ro[i + 1]; ++p) {
      const float* x = &X[static_cast<std::size_t>(i * k)];
      const float* y = &Y[static_cast<std::size_t>(static_cast<Index>(ci[p]) * k)];
      double dot = 0, mag = 0;
      for (Index q = 0; q < k; ++q) {
        const double t = static_cast<double>(x[q]) * y[q];
        dot += t;
        mag += std::fabs(t);
      }
      if (!(std::fabs(got[static_cast<std::size_t>(p)] - dot) <= 1e-5 * mag + 1e-30)) {
#pragma omp critical
        bad = bad < 0 ? p : std::min(bad, p);
      }
    }
  if (bad < 0) return "";
  return "entry " + std::to_string(bad) + " value " + std::to_string(got[static_cast<std::size_t>(bad)]);
}

int run(int argc, char** argv) {
  gb::Results results("bench_sddmm", argc, argv);
  const int runs = std::max(1, std::atoi(arg(argc, argv, "--runs", "11").c_str()));
  std::vector<Index> widths;
  for (const auto& w : gb::split(arg(argc, argv, "--widths", "32,64,128,256"), ','))
    widths.push_back(std::atoll(w.c_str()));
  if (!gb::cusparse_available()) {
    std::printf("bench_sddmm: SKIPPED: built without CUDA / cuSPARSE, or no CUDA device\n");
    return 0;
  }
  const geblas::Device gpu = geblas::Device::cuda(0);
  void* stream = geblas::cuda::current_stream(gpu);  // geblas's stream: cuSPARSE and the events use it too
  results.set_device(gb::gpu_name(0));
  std::printf(
      "# bench_sddmm: %s; S<A> = X Y' (float, plus_times), median of %d one-call samples (CUDA events, after a "
      "warm-up); cusparse/geblas above 1: geblas faster\n",
      gb::gpu_name(0).c_str(), runs);
  std::printf("%-24s %4s %10s %10s %11s %9s %9s %-10s  %s\n", "graph", "k", "nnz", "geblas_ms", "cusparse_ms",
              "cus/geb", "GFLOP/s", "variant", "check");

  std::vector<gb::HostGraph> inputs;
  const auto dir = gb::data_dir(GEBLAS_DEFAULT_DATA_DIR);
  for (const auto& name : gb::split(arg(argc, argv, "--graphs", kDefaultGraphs), ',')) {
    try {
      inputs.push_back({name, true, geblas::io::read_matrix_market<float>((dir / (name + ".mtx.gz")).string())});
    } catch (const geblas::Error& e) {
      std::printf("# skipped %s: %s\n", name.c_str(), e.what());
    }
  }
  if (const std::string gen = arg(argc, argv, "--generated", kDefaultGenerated); !gen.empty())
    for (auto& g : gb::generated_graphs(gen)) inputs.push_back(std::move(g));

  bool all_ok = true;
  double log_sum = 0;
  int count = 0;
  for (const auto& g : inputs) {
    const geblas::SparseMatrix<float>& A = g.A;
    const geblas::SparseMatrix<float> Ad = A.to(gpu);
    for (const Index k : widths) {
      const std::vector<float> X = uniform(A.nrows() * k, 7 + k), Y = uniform(A.ncols() * k, 11 + k);
      const auto Xd = geblas::DenseMatrix<float>::from_row_major(A.nrows(), k, X).to(gpu);
      const auto Yd = geblas::DenseMatrix<float>::from_row_major(A.ncols(), k, Y).to(gpu);
      geblas::SparseMatrix<float> S(A.nrows(), A.ncols(), gpu);
      const geblas::Options o{.mask = geblas::Mask::structure(Ad), .transpose_b = true};
      const double geblas_ms = gb::event_median_ms(
          stream, runs, [&] { geblas::mxm(S, Xd, Yd, geblas::semiring::plus_times<float>{}, o); },
          [&] { S = geblas::SparseMatrix<float>(A.nrows(), A.ncols(), gpu); });
      const std::string variant = geblas::last_dispatch().variant;
      gb::CusparseSddmm ref(A, X, Y, k, stream);
      const double cusparse_ms = ref.time(runs);
      const auto Sh = S.to(geblas::Device::cpu());
      std::string why = Sh.nvals() == A.nvals() && Sh.col_indices() == A.col_indices() ? check(A, X, Y, k, Sh.values())
                                                                                       : "pattern differs from A's";
      if (why.empty()) {
        const std::string c = check(A, X, Y, k, ref.values());
        if (!c.empty()) why = "cuSPARSE: " + c;
      }
      const bool ok = why.empty();
      all_ok = all_ok && ok;
      const double ratio = cusparse_ms / geblas_ms;
      const double gflops = 2.0 * static_cast<double>(A.nvals()) * static_cast<double>(k) / (geblas_ms * 1e6);
      if (ok) {
        log_sum += std::log(ratio);
        ++count;
      }
      std::printf("%-24s %4lld %10lld %10.3f %11.3f %9.2f %9.1f %-10s  %s\n", g.name.c_str(), static_cast<long long>(k),
                  static_cast<long long>(A.nvals()), geblas_ms, cusparse_ms, ratio, gflops, variant.c_str(),
                  ok ? "ok" : ("WRONG " + why).c_str());
      std::fflush(stdout);
      const gb::CaseKey key{{"graph", g.name}, {"k", std::to_string(k)}};
      results.add(key, {{"geblas_ms", geblas_ms}, {"cusparse_ms", cusparse_ms}}, "ms");
      results.add(key, "cusparse/geblas", ratio, "x");
      results.add_text(key, "check", ok ? "ok" : "WRONG");
    }
  }
  if (count) {
    std::printf("# geomean cusparse/geblas %.3f over %d cases\n", std::exp(log_sum / count), count);
    results.add({{"graph", "all"}}, "geomean cusparse/geblas", std::exp(log_sum / count), "x");
  }
  if (!all_ok) std::printf("# bench_sddmm: WRONG rows above\n");
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_sddmm: %s\n", e.what());
    return 1;
  }
}
