// Multi-source shortest paths: k sources are the k columns of one dense matrix, and each
// Bellman-Ford round is a single min_plus SpMM over all of them.
//   example_sssp [graph.mtx[.gz]] [k]     (default: the bundled graph, 8)
#include <geblas/geblas.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bundled_graph.hpp"

int main(int argc, char** argv) {
  using namespace geblas;
  const std::string path = argc > 1 ? argv[1] : bundled_graph();
  const Index k = argc > 2 ? std::atoll(argv[2]) : 8;
  try {
    const auto A = io::read_matrix_market<double>(path).to(default_device());

    // Spread the sources over the vertex ids.
    std::vector<Index> sources;
    for (Index j = 0; j < k; ++j) sources.push_back(j * (A.nrows() / k));

    // distances(v, j) = shortest distance from sources[j] to v (+inf if unreachable).
    const auto result = algo::sssp(A, sources);
    const std::vector<double> d = result.distances.to_row_major();

    std::printf("%s on %s: %lld sources, %d min_plus SpMM rounds\n", path.c_str(), A.device().str().c_str(),
                static_cast<long long>(k), result.rounds);
    for (Index j = 0; j < k; ++j) {
      Index reached = 0;
      double farthest = 0;
      for (Index v = 0; v < A.nrows(); ++v)
        if (const double x = d[static_cast<std::size_t>(v * k + j)]; std::isfinite(x)) {
          ++reached;
          farthest = std::max(farthest, x);
        }
      std::printf("  source %6lld reaches %6lld vertices, farthest at %.3f\n", static_cast<long long>(sources[j]),
                  static_cast<long long>(reached), farthest);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "example_sssp: %s\n", e.what());
    return 1;
  }
}
