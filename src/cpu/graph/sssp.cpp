// Placeholder until the entry is written: throws NotImplemented.
#include "cpu/graph/graph.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu::graph {

void sssp(SsspRun&) { throw NotImplemented("sssp on cpu"); }

}  // namespace geblas::detail::cpu::graph
