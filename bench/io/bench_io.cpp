// Read times of the shared graphs: Matrix Market (.mtx.gz as shipped, and the same text
// uncompressed) against geblas's binary format, plus zlib's bare inflate time as the floor
// for the .gz path. Medians of timed runs after one warm-up; every result is checked
// against the first read (same CSR arrays) before its time is printed.
//
//   bench_io [--runs N] [graph.mtx.gz ...]     (default: the two largest shared graphs)
#include <omp.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "geblas/geblas.hpp"
#include "results.hpp"

using namespace geblas;
namespace fs = std::filesystem;

namespace {

struct Stats {
  double median_ms, min_ms;
};

// Times f() only; `check` runs after each timed call, outside the timing.
Stats time_it(int runs, const std::function<void()>& f, const std::function<void()>& check = [] {}) {
  f();  // warm-up: page cache, allocator
  check();
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
    check();
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front()};
}

std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string out;
  std::vector<char> buf(1 << 20);
  int n;
  while ((n = gzread(f, buf.data(), static_cast<unsigned>(buf.size()))) > 0) out.append(buf.data(), static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

bool same(const SparseMatrix<float>& a, const SparseMatrix<float>& b) {
  return a.nrows() == b.nrows() && a.ncols() == b.ncols() && a.row_offsets() == b.row_offsets() &&
         a.col_indices() == b.col_indices() && a.values() == b.values();
}

}  // namespace

int main(int argc, char** argv) {
  geblas::bench::Results results("bench_io", argc, argv);
  int runs = 7;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else files.push_back(a);
  }
  if (files.empty()) {
    const char* env = std::getenv("GEBLAS_DATA_DIR");
    const fs::path dir = env && *env ? fs::path(env) : fs::path(GEBLAS_DEFAULT_DATA_DIR);
    for (const char* name : {"ego-Twitter-undirected.mtx.gz", "soc-Slashdot0902.mtx.gz"})
      if (fs::exists(dir / name)) files.push_back((dir / name).string());
    if (files.empty()) {
      std::printf("SKIPPED: the shared graphs are not in %s (set GEBLAS_DATA_DIR)\n", dir.string().c_str());
      return 0;
    }
  }
  const fs::path tmp = fs::temp_directory_path() / ("geblas-bench-io-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  std::printf("runs=%d (median and min after one warm-up), OpenMP threads=%d\n", runs, omp_get_max_threads());
  std::printf("| graph | nnz | stored lines | inflate only (ms) | .mtx.gz (ms) | .mtx plain (ms) | binary (ms) | binary size (MB) | .mtx.gz / binary |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  int status = 0;
  for (const auto& path : files) {
    const auto ref = io::read_matrix_market<float>(path);
    const auto header = io::read_matrix_market_header(path);
    const std::string text = gunzip(path);
    const std::string plain = (tmp / "g.mtx").string(), bin = (tmp / "g.bin").string();
    { std::FILE* f = std::fopen(plain.c_str(), "wb"); std::fwrite(text.data(), 1, text.size(), f); std::fclose(f); }
    io::write_binary(bin, ref);
    bool ok = true;
    SparseMatrix<float> got;
    auto check = [&] { ok = ok && same(got, ref); };
    std::vector<char> sinkbuf(1 << 20);
    const Stats inflate = time_it(runs, [&] {
      gzFile f = gzopen(path.c_str(), "rb");
      gzbuffer(f, 1 << 20);
      while (gzread(f, sinkbuf.data(), static_cast<unsigned>(sinkbuf.size())) > 0) {}
      gzclose(f);
    });
    const Stats gz = time_it(runs, [&] { got = io::read_matrix_market<float>(path); }, check);
    const Stats pl = time_it(runs, [&] { got = io::read_matrix_market<float>(plain); }, check);
    const Stats bn = time_it(runs, [&] { got = io::read_binary<float>(bin); }, check);
    if (!ok) {
      std::printf("MISMATCH: %s read differently by one of the paths\n", path.c_str());
      status = 1;
      continue;
    }
    std::printf("| %s | %lld | %lld | %.1f | %.1f (min %.1f) | %.1f (min %.1f) | %.1f (min %.1f) | %.1f | %.0fx |\n",
                fs::path(path).filename().string().c_str(), static_cast<long long>(ref.nvals()),
                static_cast<long long>(header.stored_entries), inflate.median_ms, gz.median_ms, gz.min_ms, pl.median_ms,
                pl.min_ms, bn.median_ms, bn.min_ms, static_cast<double>(fs::file_size(bin)) / 1e6,
                gz.median_ms / bn.median_ms);
    const geblas::bench::CaseKey key{{"graph", fs::path(path).filename().string()},
                                     {"threads", std::to_string(omp_get_max_threads())}};
    results.add(key, {{"nnz", double(ref.nvals())}, {"stored lines", double(header.stored_entries)},
                      {"binary MB", static_cast<double>(fs::file_size(bin)) / 1e6}});
    results.add(key, {{"inflate", inflate.median_ms}, {"gz", gz.median_ms}, {"gz min", gz.min_ms}, {"plain", pl.median_ms},
                      {"plain min", pl.min_ms}, {"binary", bn.median_ms}, {"binary min", bn.min_ms}}, "ms");
    results.add(key, "gz/binary", gz.median_ms / bn.median_ms, "x");
  }
  fs::remove_all(tmp);
  return status;
}
