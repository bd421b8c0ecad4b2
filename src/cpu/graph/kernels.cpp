// The cpu backend's table of graph-algorithm entries.
#include "cpu/graph/graph.hpp"

namespace geblas::detail::cpu::graph {

const GraphKernels& kernels() {
  static const GraphKernels table{GEBLAS_GRAPH_ENTRIES(GEBLAS_GRAPH_TABLE_FIELD)};
  return table;
}

}  // namespace geblas::detail::cpu::graph
