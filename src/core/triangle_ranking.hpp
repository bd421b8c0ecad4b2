// The test every backend's triangle counting uses to decide whether ranking vertices by
// degree pays (core/graph_kernels.hpp, TriangleCountRun). Orienting edges by (degree, id)
// bounds every vertex's out-list by about sqrt(2|E|), which on a graph with hubs cuts
// the intersection work by orders of magnitude; on a graph of near-uniform degree (road
// networks, meshes) it changes little and costs a degree pass, a ranking and a random
// read per entry, so those keep their ids as ranks. The test is the one of the GAP
// Benchmark Suite's ordered triangle count (Beamer, Asanovic & Patterson 2015): skewed
// when the mean of a degree sample exceeds its median by a factor.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "geblas/types.hpp"

namespace geblas::detail {

struct TriangleRankingPolicy {
  // Vertices sampled, evenly spaced by id. GAP samples 1000 at random; an even spacing is
  // deterministic and, on the graphs of ../shared/data, gives the same decisions.
  static constexpr Index sample = 1024;
  // GAP's factor; not re-tuned here.
  static constexpr double mean_over_median = 1.3;
};

// The number of sampled vertices of n, and the i-th of them. Constexpr so that device
// code (with --expt-relaxed-constexpr) gathers the same sample.
constexpr Index ranking_sample_size(Index n) { return n < TriangleRankingPolicy::sample ? n : TriangleRankingPolicy::sample; }
constexpr Index ranking_sample_vertex(Index i, Index n) { return i * n / ranking_sample_size(n); }

struct TriangleRanking {
  bool by_degree = false;
  std::string reason;  // for the dispatch record
};

// The decision from the sampled vertices' row lengths (the stored out-degrees: exact for a
// symmetric pattern, a proxy for a directed one, which only moves the choice of ranks).
inline TriangleRanking choose_triangle_ranking(std::vector<Index> lengths) {
  TriangleRanking r;
  if (lengths.empty()) return r;
  double sum = 0;
  for (Index d : lengths) sum += static_cast<double>(d);
  const double mean = sum / static_cast<double>(lengths.size());
  auto mid = lengths.begin() + static_cast<std::ptrdiff_t>(lengths.size() / 2);
  std::nth_element(lengths.begin(), mid, lengths.end());
  const double median = static_cast<double>(*mid);
  r.by_degree = mean > TriangleRankingPolicy::mean_over_median * median;
  char b[160];
  std::snprintf(b, sizeof b, "%s: sampled mean degree %.2f, median %.0f", r.by_degree ? "ranked by degree" : "ranked by id",
                mean, median);
  r.reason = b;
  return r;
}

}  // namespace geblas::detail
