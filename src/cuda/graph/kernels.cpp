// The cuda backend's table of graph-algorithm entries.
#include "cuda/graph/graph.hpp"

namespace geblas::detail::cuda::graph {

const GraphKernels& kernels() {
  static const GraphKernels table{
      .pagerank_iterate = pagerank_iterate,
      .bfs = bfs,
      .sssp = sssp,
      .connected_components = connected_components,
      .scale_sparse = scale_sparse,
      .orient_by_degree = orient_by_degree,
  };
  return table;
}

}  // namespace geblas::detail::cuda::graph
