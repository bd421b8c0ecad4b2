// Placeholder until the entry is written: throws NotImplemented.
#include "cpu/graph/graph.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu::graph {

void bfs(BfsRun&) { throw NotImplemented("bfs on cpu"); }

}  // namespace geblas::detail::cpu::graph
