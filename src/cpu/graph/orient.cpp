// Placeholder until the entry is written: throws NotImplemented.
#include "cpu/graph/graph.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu::graph {

void orient_by_degree(SparseStorage&, const SparseStorage&) { throw NotImplemented("orient_by_degree on cpu"); }

}  // namespace geblas::detail::cpu::graph
