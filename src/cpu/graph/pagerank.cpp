// Placeholder until the entry is written: throws NotImplemented.
#include "cpu/graph/graph.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu::graph {

PageRankBatch pagerank_iterate(const PageRankIterate&, int, int) {
  throw NotImplemented("pagerank iterations on cpu");
}

}  // namespace geblas::detail::cpu::graph
