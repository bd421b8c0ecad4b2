// The generators are bench_spmm's original ones, moved here unchanged (same random
// streams), so earlier bench numbers stay about the same graphs.
#include "graphs.hpp"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <sstream>

#include "geblas/error.hpp"

namespace geblas::bench {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, sep);)
    if (!x.empty()) out.push_back(x);
  return out;
}

std::filesystem::path data_dir(const char* fallback) {
  const char* env = std::getenv("GEBLAS_DATA_DIR");
  return env && *env ? std::filesystem::path(env) : std::filesystem::path(fallback);
}

std::vector<std::string> shared_graph_names(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  if (!std::filesystem::is_directory(dir)) return names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f.ends_with(".mtx.gz") && f.find(".features.") == std::string::npos) names.push_back(f.substr(0, f.size() - 7));
  }
  std::sort(names.begin(), names.end());
  return names;
}

SparseMatrix<float> uniform_csr(Index rows, Index nnz, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const Index per = std::max<Index>(1, nnz / rows);
  std::vector<Index> ro(static_cast<std::size_t>(rows + 1), 0);
  std::vector<ColIndex> ci;
  ci.reserve(static_cast<std::size_t>(rows * per));
  std::vector<ColIndex> row;
  for (Index i = 0; i < rows; ++i) {
    row.clear();
    while (static_cast<Index>(row.size()) < per) {
      row.push_back(static_cast<ColIndex>(rng() % static_cast<std::uint64_t>(rows)));
      if (static_cast<Index>(row.size()) == per) {
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
      }
    }
    ci.insert(ci.end(), row.begin(), row.end());
    ro[static_cast<std::size_t>(i + 1)] = static_cast<Index>(ci.size());
  }
  std::vector<float> v(ci.size(), 1.0f);
  return SparseMatrix<float>::from_csr(rows, rows, ro, ci, v);
}

SparseMatrix<float> rmat_csr(int scale, int edge_factor, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const Index n = Index{1} << scale;
  const Index edges = n * edge_factor;
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(edges));
  for (auto& key : keys) {
    std::uint64_t r = 0, c = 0;
    for (int b = 0; b < scale; ++b) {
      const double x = u(rng);
      const int q = x < 0.57 ? 0 : x < 0.76 ? 1 : x < 0.95 ? 2 : 3;
      r = (r << 1) | static_cast<std::uint64_t>(q >> 1);
      c = (c << 1) | static_cast<std::uint64_t>(q & 1);
    }
    key = (r << 32) | c;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<Index> ro(static_cast<std::size_t>(n + 1), 0);
  std::vector<ColIndex> ci(keys.size());
  for (std::size_t e = 0; e < keys.size(); ++e) {
    ro[static_cast<std::size_t>((keys[e] >> 32) + 1)]++;
    ci[e] = static_cast<ColIndex>(keys[e] & 0xffffffffu);
  }
  for (Index i = 0; i < n; ++i) ro[static_cast<std::size_t>(i + 1)] += ro[static_cast<std::size_t>(i)];
  std::vector<float> v(ci.size(), 1.0f);
  return SparseMatrix<float>::from_csr(n, n, ro, ci, v);
}

std::vector<HostGraph> generated_graphs(const std::string& specs, std::uint64_t first_seed) {
  std::vector<HostGraph> out;
  std::uint64_t seed = first_seed;
  for (const auto& spec : split(specs, ',')) {
    const auto f = split(spec, ':');
    ++seed;
    if (f.size() == 3 && f[0] == "uniform") {
      const Index rows = std::stoll(f[1]), nnz = std::stoll(f[2]);
      if (rows < 1 || nnz < 1 || rows >= (Index{1} << 31))
        throw InvalidValue("generated graph " + spec + ": rows and nnz must be positive, rows < 2^31");
      out.push_back({"uniform-" + f[1] + "-" + f[2], false, uniform_csr(rows, nnz, seed)});
      out.back().name = "uniform-" + f[1] + "-" + std::to_string(out.back().A.nvals());
    } else if (f.size() == 3 && f[0] == "rmat") {
      const int scale = std::stoi(f[1]), ef = std::stoi(f[2]);
      if (scale < 1 || scale > 30 || ef < 1)
        throw InvalidValue("generated graph " + spec + ": scale must be in [1, 30] and edge factor >= 1");
      out.push_back({"rmat-" + f[1] + "-" + f[2], false, rmat_csr(scale, ef, seed)});
    } else {
      throw InvalidValue("generated graph '" + spec + "': expected uniform:ROWS:NNZ or rmat:SCALE:EDGE_FACTOR");
    }
  }
  return out;
}

}  // namespace geblas::bench
