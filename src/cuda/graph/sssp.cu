// Placeholder until the entry is written: throws NotImplemented.
#include "cuda/graph/graph.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cuda::graph {

void sssp(SsspRun&) { throw NotImplemented("sssp on cuda"); }

}  // namespace geblas::detail::cuda::graph
