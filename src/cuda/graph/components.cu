// Placeholder until the entry is written: throws NotImplemented.
#include "cuda/graph/graph.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cuda::graph {

void connected_components(ComponentsRun&) { throw NotImplemented("connected components on cuda"); }

}  // namespace geblas::detail::cuda::graph
