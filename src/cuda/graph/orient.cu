// Placeholder until the entry is written: throws NotImplemented.
#include "cuda/graph/graph.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cuda::graph {

void orient_by_degree(SparseStorage&, const SparseStorage&) { throw NotImplemented("orient_by_degree on cuda"); }

}  // namespace geblas::detail::cuda::graph
