// Placeholder until the entry is written: throws NotImplemented.
#include "cuda/graph/graph.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cuda::graph {

PageRankBatch pagerank_iterate(const PageRankIterate&, int, int) {
  throw NotImplemented("pagerank iterations on cuda");
}

}  // namespace geblas::detail::cuda::graph
