// Placeholder until the entry is written: throws NotImplemented.
#include "cpu/graph/graph.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu::graph {

void connected_components(ComponentsRun&) { throw NotImplemented("connected components on cpu"); }

}  // namespace geblas::detail::cpu::graph
