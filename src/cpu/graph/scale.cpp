// Placeholder until the entry is written: throws NotImplemented.
#include "cpu/graph/graph.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu::graph {

void scale_sparse(SparseStorage&, const SparseStorage&, TypeId, const void*, const void*, bool) {
  throw NotImplemented("scale_sparse on cpu");
}

}  // namespace geblas::detail::cpu::graph
