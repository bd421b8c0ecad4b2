// bench_jit: what a run-time semiring costs. First the compiler: the first compile of a
// kernel set (NVRTC), a disk-cache hit (a fresh process's case) and a memory-cache hit,
// for each JIT variant. Then the product: max_times written as a run-time semiring
// ("max", "times") against the built-in max_times on every shared graph with at least
// 100k entries, N = 64..512, both chosen by the dispatcher; every JIT result is checked
// equal to the built-in's. Prints CSV lines ("compile,..." and "spmm,...") and the
// geomean ratio. Needs a GPU for the second part (the first runs without one).
//
//   bench_jit [--reps R] [--graphs name,name] [--ns 64,128,256,512]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "geblas/geblas.hpp"
#include "geblas/io.hpp"
#include "geblas/jit.hpp"
#include "graphs.hpp"
#include "results.hpp"

using namespace geblas;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Median over 5 batches of `reps` calls of f, per call, in seconds (synchronised).
template <class F>
double time_calls(F&& f, int reps, Device d) {
  f();
  synchronize(d);
  std::vector<double> batches;
  for (int b = 0; b < 5; ++b) {
    const auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r) f();
    synchronize(d);
    batches.push_back(seconds_since(t0) / reps);
  }
  std::sort(batches.begin(), batches.end());
  return batches[2];
}

const char* source_name(jit::CompileInfo::Source s) {
  switch (s) {
    case jit::CompileInfo::Source::compiled: return "compiled";
    case jit::CompileInfo::Source::disk: return "disk";
    case jit::CompileInfo::Source::memory: return "memory";
  }
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  bench::Results results("bench_jit", argc, argv);
  int reps = 20;
  std::vector<std::string> only;
  std::vector<Index> ns = {64, 128, 256, 512};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--reps") reps = std::atoi(argv[i + 1]);
    else if (a == "--graphs") only = bench::split(argv[i + 1], ',');
    else if (a == "--ns") {
      ns.clear();
      for (const auto& x : bench::split(argv[i + 1], ',')) ns.push_back(std::atoll(x.c_str()));
    } else {
      std::fprintf(stderr, "usage: %s [--reps R] [--graphs a,b] [--ns 64,128]\n", argv[0]);
      return 2;
    }
  }
  // The compiler, in a scratch cache directory so that the first compile is one.
  const auto dir = std::filesystem::temp_directory_path() / ("geblas-bench-jit-" + std::to_string(::getpid()));
  setenv("GEBLAS_JIT_CACHE", dir.c_str(), 1);
  // The architecture compiled for: the H100's and H200's unless GEBLAS_BENCH_JIT_ARCH says.
  int arch = 90;
  if (const char* e = std::getenv("GEBLAS_BENCH_JIT_ARCH")) arch = std::atoi(e);
  const jit::semiring<float> max_times("max", "times");
  std::printf("compile,variant,first_s,disk_ms,memory_us\n");
  for (const std::string& v : jit::variants()) {
    const auto first = jit::compile(max_times, v, arch, 4, true);
    jit::clear_memory_cache();
    const auto disk = jit::compile(max_times, v, arch, 4, true);
    const int calls = 10000;
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) jit::compile(max_times, v, arch, 4, true);
    const double mem_us = 1e6 * seconds_since(t0) / calls;
    std::printf("compile,%s,%.3f (%s),%.3f (%s),%.2f\n", v.c_str(), first.seconds, source_name(first.source),
                1e3 * disk.seconds, source_name(disk.source), mem_us);
    results.add({{"variant", v}}, {{"first_s", first.seconds}});
    results.add({{"variant", v}}, {{"disk_ms", 1e3 * disk.seconds}}, "ms");
    results.add({{"variant", v}}, {{"memory_us", mem_us}}, "us");
  }
  std::filesystem::remove_all(dir);
  unsetenv("GEBLAS_JIT_CACHE");
  if (cuda_device_count() == 0) {
    std::printf("no CUDA device: the SpMM comparison is skipped\n");
    return 0;
  }
  const Device gpu = Device::cuda(0);
  results.set_device(bench::gpu_name());
  const auto data = bench::data_dir(GEBLAS_DEFAULT_DATA_DIR);
  std::printf("spmm,graph,nnz,N,builtin_variant,jit_variant,builtin_ms,jit_ms,jit_over_builtin\n");
  double log_sum = 0, worst = 0;
  int count = 0;
  for (const std::string& name : bench::shared_graph_names(data)) {
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    const auto host = io::read_matrix_market<float>((data / (name + ".mtx.gz")).string());
    if (host.nvals() < 100000) continue;
    const auto A = host.to(gpu);
    for (const Index n : ns) {
      const auto B = DenseMatrix<float>::random(A.ncols(), n, gpu);
      DenseMatrix<float> Cb(A.nrows(), n, gpu), Cj(A.nrows(), n, gpu);
      const double tb = time_calls([&] { mxm(Cb, A, B, semiring::max_times<float>{}); }, reps, gpu);
      const std::string vb = last_dispatch().variant;
      const double tj = time_calls([&] { mxm(Cj, A, B, max_times); }, reps, gpu);
      const std::string vj = last_dispatch().variant;
      if (Cb.to(Device::cpu()).to_row_major() != Cj.to(Device::cpu()).to_row_major()) {
        std::fprintf(stderr, "MISMATCH: %s N=%lld: the JIT result differs from the built-in\n", name.c_str(),
                     static_cast<long long>(n));
        return 1;
      }
      const double r = tj / tb;
      log_sum += std::log(r);
      worst = std::max(worst, r);
      ++count;
      std::printf("spmm,%s,%lld,%lld,%s,%s,%.4f,%.4f,%.3f\n", name.c_str(), static_cast<long long>(host.nvals()),
                  static_cast<long long>(n), vb.c_str(), vj.c_str(), 1e3 * tb, 1e3 * tj, r);
      const bench::CaseKey key{{"graph", name}, {"N", std::to_string(n)}};
      results.add(key, {{"builtin_ms", 1e3 * tb}, {"jit_ms", 1e3 * tj}}, "ms");
      results.add(key, "jit_over_builtin", r);
      results.add_text(key, "jit_variant", vj);
      std::fflush(stdout);
    }
  }
  if (count) {
    std::printf("summary: jit/builtin geomean %.3f, worst %.3f over %d runs\n", std::exp(log_sum / count), worst, count);
    results.add({{"summary", "all cases"}}, {{"jit/builtin geomean", std::exp(log_sum / count)}, {"worst", worst},
                                              {"cases", double(count)}});
  }
  return 0;
}
