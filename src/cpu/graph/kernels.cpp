// The cpu backend's table of graph-algorithm entries.
#include "cpu/graph/graph.hpp"
#include "cpu/graph/symmetry.hpp"

namespace geblas::detail::cpu::graph {

const GraphKernels& kernels() {
  static const GraphKernels table{GEBLAS_GRAPH_ENTRIES(GEBLAS_GRAPH_TABLE_FIELD).pattern_symmetric = pattern_symmetric};
  return table;
}

}  // namespace geblas::detail::cpu::graph
