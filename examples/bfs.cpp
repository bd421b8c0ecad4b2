// Breadth-first search from one vertex: levels and a BFS tree (parents), computed level
// by level with a masked product that switches between push and pull.
//   example_bfs [graph.mtx[.gz]] [source]     (default: the bundled graph, 0)
#include <geblas/geblas.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bundled_graph.hpp"

int main(int argc, char** argv) {
  using namespace geblas;
  const std::string path = argc > 1 ? argv[1] : bundled_graph();
  const Index source = argc > 2 ? std::atoll(argv[2]) : 0;
  try {
    const auto A = io::read_matrix_market<float>(path).to(default_device());
    const auto result = algo::bfs(A, source);  // BfsDirection::automatic by default

    // levels and parents are sparse vectors holding the reached vertices only.
    std::vector<Index> per_level(static_cast<std::size_t>(result.depth) + 1, 0);
    for (const auto& [v, level] : result.levels.extract_tuples()) ++per_level[static_cast<std::size_t>(level)];
    std::printf("%s on %s: %lld of %lld vertices reached from %lld\n", path.c_str(), A.device().str().c_str(),
                static_cast<long long>(result.levels.nvals()), static_cast<long long>(A.nrows()),
                static_cast<long long>(source));
    for (std::size_t l = 0; l < per_level.size(); ++l)
      std::printf("  level %2zu: %lld vertices\n", l, static_cast<long long>(per_level[l]));
  } catch (const Error& e) {
    std::fprintf(stderr, "example_bfs: %s\n", e.what());
    return 1;
  }
}
