// PageRank on a Matrix Market graph, on the GPU when there is one: read on the host,
// move the matrix to the device, run, and print the ten highest-ranked vertices.
//   example_pagerank [graph.mtx[.gz]]     (default: the bundled graph)
#include <geblas/geblas.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "bundled_graph.hpp"

int main(int argc, char** argv) {
  using namespace geblas;
  const std::string path = argc > 1 ? argv[1] : bundled_graph();
  try {
    // A(i, j) is an edge i -> j; symmetric files hold both directions.
    const auto A = io::read_matrix_market<double>(path).to(default_device());

    // The pattern decides (every out-edge weighs the same); weighted = true uses A's values.
    algo::PageRankOptions options;
    options.damping = 0.85;
    options.tolerance = 1e-8;
    const auto result = algo::pagerank(A, options);

    // The ranks live where A lives; bring them to the host to print.
    const std::vector<double> rank = result.ranks.to_std_vector();
    std::vector<Index> order(rank.size());
    std::iota(order.begin(), order.end(), Index{0});
    const auto top = std::min<std::size_t>(10, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<long>(top), order.end(),
                      [&](Index a, Index b) { return rank[a] > rank[b]; });
    std::printf("%s on %s: %d iterations (%s)\n", path.c_str(), A.device().str().c_str(), result.iterations,
                result.converged ? "converged" : "not converged");
    for (std::size_t k = 0; k < top; ++k) std::printf("  vertex %6lld  %.6f\n", static_cast<long long>(order[k]), rank[order[k]]);
  } catch (const Error& e) {
    std::fprintf(stderr, "example_pagerank: %s\n", e.what());
    return 1;
  }
}
