// The cuda backend's table of graph-algorithm entries.
#include "cuda/graph/graph.hpp"

namespace geblas::detail::cuda::graph {

const GraphKernels& kernels() {
  static const GraphKernels table{GEBLAS_GRAPH_ENTRIES(GEBLAS_GRAPH_TABLE_FIELD).bfs_many = bfs_many};
  return table;
}

}  // namespace geblas::detail::cuda::graph
