// The generators of the benches' synthetic graphs (uniform: bench_spmm's original, same
// random stream; R-MAT: see rmat_csr).
#include "graphs.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>
#include <thread>

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

// R-MAT (a, b, c, d = 0.57, 0.19, 0.19, 0.05), ids not permuted, duplicates merged. The
// edges are drawn in fixed chunks of 2^20, each from its own stream seeded by (seed,
// chunk), so the graph depends on the seed alone, not on the thread count, and scale 24
// and up is generated in seconds on the bench machines' cores. (Before 2026-11-28 one
// stream drew every edge: the graphs of earlier runs are other instances of the same
// distribution.)
SparseMatrix<float> rmat_csr(int scale, int edge_factor, std::uint64_t seed) {
  const Index n = Index{1} << scale;
  const std::size_t edges = static_cast<std::size_t>(n) * static_cast<std::size_t>(edge_factor);
  constexpr std::size_t chunk = std::size_t{1} << 20;
  const std::size_t chunks = (edges + chunk - 1) / chunk;
  // Buckets by the row's top bits, so that each bucket is sorted on its own.
  const int bucket_bits = std::min(scale, 10);
  const std::size_t buckets = std::size_t{1} << bucket_bits;
  const int shift = 32 + scale - bucket_bits;
  std::vector<std::uint64_t> keys(edges);
  std::vector<std::size_t> counts(chunks * buckets, 0);  // per chunk, per bucket
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 64u));
  auto parallel = [&](std::size_t items, auto&& body) {
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        for (std::size_t i; (i = next.fetch_add(1)) < items;) body(i);
      });
    for (auto& t : pool) t.join();
  };
  parallel(chunks, [&](std::size_t ch) {
    std::seed_seq ss{seed, static_cast<std::uint64_t>(ch)};
    std::mt19937_64 rng(ss);
    std::uniform_real_distribution<double> u(0, 1);
    const std::size_t b = ch * chunk, e = std::min(edges, b + chunk);
    for (std::size_t k = b; k < e; ++k) {
      std::uint64_t r = 0, c = 0;
      for (int bit = 0; bit < scale; ++bit) {
        const double x = u(rng);
        const int q = x < 0.57 ? 0 : x < 0.76 ? 1 : x < 0.95 ? 2 : 3;
        r = (r << 1) | static_cast<std::uint64_t>(q >> 1);
        c = (c << 1) | static_cast<std::uint64_t>(q & 1);
      }
      keys[k] = (r << 32) | c;
      ++counts[ch * buckets + (keys[k] >> shift)];
    }
  });
  // scatter into bucket order: offsets by (bucket, chunk)
  std::vector<std::size_t> at(chunks * buckets), bucket_begin(buckets + 1, 0);
  std::size_t total = 0;
  for (std::size_t bk = 0; bk < buckets; ++bk) {
    bucket_begin[bk] = total;
    for (std::size_t ch = 0; ch < chunks; ++ch) {
      at[ch * buckets + bk] = total;
      total += counts[ch * buckets + bk];
    }
  }
  bucket_begin[buckets] = total;
  std::vector<std::uint64_t> sorted(edges);
  parallel(chunks, [&](std::size_t ch) {
    std::size_t* pos = &at[ch * buckets];
    for (std::size_t k = ch * chunk, e = std::min(edges, k + chunk); k < e; ++k)
      sorted[pos[keys[k] >> shift]++] = keys[k];
  });
  keys = {};
  std::vector<std::size_t> kept(buckets, 0);
  parallel(buckets, [&](std::size_t bk) {
    auto b = sorted.begin() + static_cast<std::ptrdiff_t>(bucket_begin[bk]);
    auto e = sorted.begin() + static_cast<std::ptrdiff_t>(bucket_begin[bk + 1]);
    std::sort(b, e);
    kept[bk] = static_cast<std::size_t>(std::unique(b, e) - b);
  });
  std::vector<Index> ro(static_cast<std::size_t>(n + 1), 0);
  std::size_t nnz = 0;
  for (std::size_t bk = 0; bk < buckets; ++bk) nnz += kept[bk];
  std::vector<ColIndex> ci(nnz);
  std::size_t e = 0;
  for (std::size_t bk = 0; bk < buckets; ++bk)
    for (std::size_t k = bucket_begin[bk]; k < bucket_begin[bk] + kept[bk]; ++k, ++e) {
      ro[static_cast<std::size_t>((sorted[k] >> 32) + 1)]++;
      ci[e] = static_cast<ColIndex>(sorted[k] & 0xffffffffu);
    }
  for (Index i = 0; i < n; ++i) ro[static_cast<std::size_t>(i + 1)] += ro[static_cast<std::size_t>(i)];
  std::vector<float> v(ci.size(), 1.0f);
  return SparseMatrix<float>::from_csr(n, n, ro, ci, v);
}

namespace {

// The undirected graph of the edges `for_each_edge(f)` passes to f(a, b) (called twice, so
// it must give the same edges both times) on n vertices renamed by perm: both directions
// of every edge but the self-loops, by row (counting sort), then each row sorted and its
// duplicates merged (values 1).
template <class ForEachEdge>
SparseMatrix<float> undirected_csr(Index n, const std::vector<ColIndex>& perm, ForEachEdge&& for_each_edge) {
  const auto id = [&](Index v) { return perm[static_cast<std::size_t>(v)]; };
  std::vector<Index> start(static_cast<std::size_t>(n + 1), 0);
  for_each_edge([&](Index i, Index j) {
    if (j == i) return;
    ++start[static_cast<std::size_t>(id(i)) + 1];
    ++start[static_cast<std::size_t>(id(j)) + 1];
  });
  for (Index v = 0; v < n; ++v) start[static_cast<std::size_t>(v + 1)] += start[static_cast<std::size_t>(v)];
  std::vector<ColIndex> adj(static_cast<std::size_t>(start[static_cast<std::size_t>(n)]));
  std::vector<Index> at(start.begin(), start.end() - 1);
  for_each_edge([&](Index i, Index j) {
    if (j == i) return;
    const ColIndex a = id(i), b = id(j);
    adj[static_cast<std::size_t>(at[static_cast<std::size_t>(a)]++)] = b;
    adj[static_cast<std::size_t>(at[static_cast<std::size_t>(b)]++)] = a;
  });
  std::vector<Index> out_ro(static_cast<std::size_t>(n + 1), 0);
  std::size_t kept = 0;
  for (Index v = 0; v < n; ++v) {
    const auto b = adj.begin() + start[static_cast<std::size_t>(v)];
    const auto e = adj.begin() + start[static_cast<std::size_t>(v + 1)];
    std::sort(b, e);
    const auto last = std::unique(b, e);
    kept = static_cast<std::size_t>(std::copy(b, last, adj.begin() + static_cast<std::ptrdiff_t>(kept)) - adj.begin());
    out_ro[static_cast<std::size_t>(v + 1)] = static_cast<Index>(kept);
  }
  adj.resize(kept);
  std::vector<float> ones(kept, 1.0f);
  return SparseMatrix<float>::from_csr(n, n, out_ro, adj, ones);
}

std::vector<ColIndex> random_permutation(Index n, std::uint64_t seed) {
  std::vector<ColIndex> perm(static_cast<std::size_t>(n));
  for (Index v = 0; v < n; ++v) perm[static_cast<std::size_t>(v)] = static_cast<ColIndex>(v);
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::shuffle(perm.begin(), perm.end(), rng);
  return perm;
}

}  // namespace

SparseMatrix<float> kronecker_csr(int scale, int edge_factor, std::uint64_t seed) {
  const SparseMatrix<float> R = rmat_csr(scale, edge_factor, seed);
  const Index n = R.nrows();
  const std::vector<Index> ro = R.row_offsets();
  const std::vector<ColIndex> ci = R.col_indices();
  return undirected_csr(n, random_permutation(n, seed), [&](auto&& f) {
    for (Index i = 0; i < n; ++i)
      for (Index k = ro[static_cast<std::size_t>(i)]; k < ro[static_cast<std::size_t>(i + 1)]; ++k)
        f(i, Index{ci[static_cast<std::size_t>(k)]});
  });
}

namespace {

// One Chung-Lu draw: vertex i gets the weight hub * (i + 1)^-beta with beta chosen so that
// the weights sum to nnz, and nnz / 2 edges get both ends drawn by weight.
SparseMatrix<float> chung_lu_csr(Index rows, Index nnz, double hub, std::uint64_t seed) {
  const auto weight_sum = [&](double beta) {
    double s = 0;
    for (Index i = 0; i < rows; ++i) s += hub * std::pow(static_cast<double>(i + 1), -beta);
    return s;
  };
  double lo = 0, hi = 8;  // weight_sum falls as beta grows
  for (int it = 0; it < 60; ++it) {
    const double mid = (lo + hi) / 2;
    (weight_sum(mid) > static_cast<double>(nnz) ? lo : hi) = mid;
  }
  std::vector<double> cumulative(static_cast<std::size_t>(rows));
  double s = 0;
  for (Index i = 0; i < rows; ++i)
    cumulative[static_cast<std::size_t>(i)] = s += std::pow(static_cast<double>(i + 1), -lo);
  std::vector<std::pair<Index, Index>> edges(static_cast<std::size_t>(nnz / 2));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, s);
  const auto draw = [&] {
    const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u(rng));
    return std::min<Index>(rows - 1, static_cast<Index>(it - cumulative.begin()));
  };
  for (auto& e : edges) e = {draw(), draw()};
  return undirected_csr(rows, random_permutation(rows, seed), [&](auto&& f) {
    for (const auto& [i, j] : edges) f(i, j);
  });
}

Index largest_row(const SparseMatrix<float>& A) {
  const std::vector<Index> ro = A.row_offsets();
  Index m = 0;
  for (std::size_t i = 0; i + 1 < ro.size(); ++i) m = std::max(m, ro[i + 1] - ro[i]);
  return m;
}

}  // namespace

SparseMatrix<float> powerlaw_csr(Index rows, Index nnz, Index max_row, std::uint64_t seed) {
  // Merged duplicates cost the hub row more of its draws than the others (its neighbours
  // are the other heavy vertices), so the hub's weight is raised until its row holds
  // max_row entries to within 2%, in a few draws with the same seed.
  double hub = static_cast<double>(max_row);
  SparseMatrix<float> A = chung_lu_csr(rows, nnz, hub, seed);
  for (int round = 0; round < 4; ++round) {
    const double got = static_cast<double>(largest_row(A));
    if (std::abs(got - static_cast<double>(max_row)) <= 0.02 * static_cast<double>(max_row)) break;
    hub = std::min(hub * static_cast<double>(max_row) / std::max(got, 1.0), static_cast<double>(rows - 1));
    A = chung_lu_csr(rows, nnz, hub, seed);
  }
  return A;
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
    } else if (f.size() == 3 && f[0] == "kron") {
      const int scale = std::stoi(f[1]), ef = std::stoi(f[2]);
      if (scale < 1 || scale > 30 || ef < 1)
        throw InvalidValue("generated graph " + spec + ": scale must be in [1, 30] and edge factor >= 1");
      out.push_back({"kron-" + f[1] + "-" + f[2], false, kronecker_csr(scale, ef, seed)});
    } else if (f.size() == 4 && f[0] == "powerlaw") {
      const Index rows = std::stoll(f[1]), nnz = std::stoll(f[2]), max_row = std::stoll(f[3]);
      if (rows < 2 || rows >= (Index{1} << 31) || max_row < 1 || max_row >= rows || nnz <= max_row ||
          nnz >= rows * max_row)
        throw InvalidValue("generated graph " + spec +
                           ": needs 2 <= rows < 2^31, 1 <= max_row < rows and max_row < nnz < rows * max_row");
      SparseMatrix<float> A = powerlaw_csr(rows, nnz, max_row, seed);
      const std::string name =
          "powerlaw-" + f[1] + "-" + std::to_string(A.nvals()) + "-" + std::to_string(largest_row(A));
      out.push_back({name, false, std::move(A)});
    } else {
      throw InvalidValue("generated graph '" + spec +
                         "': expected uniform:ROWS:NNZ, rmat:SCALE:EDGE_FACTOR, kron:SCALE:EDGE_FACTOR or "
                         "powerlaw:ROWS:NNZ:MAX_ROW");
    }
  }
  return out;
}

}  // namespace geblas::bench
