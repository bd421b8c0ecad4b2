// Placeholder until the entry is written: throws NotImplemented.
#include "cuda/graph/graph.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cuda::graph {

void scale_sparse(SparseStorage&, const SparseStorage&, TypeId, const void*, const void*, bool) {
  throw NotImplemented("scale_sparse on cuda");
}

}  // namespace geblas::detail::cuda::graph
