// The CUDA backend's graph-algorithm entries (core/graph_kernels.hpp), one file per
// entry in this folder, and the table that collects them.
#pragma once

#include "core/graph_kernels.hpp"

namespace geblas::detail::cuda::graph {

PageRankBatch pagerank_iterate(const PageRankIterate& args, int current, int count);
void bfs(BfsRun& run);
void sssp(SsspRun& run);
void connected_components(ComponentsRun& run);
void scale_sparse(SparseStorage& T, const SparseStorage& A, TypeId type, const void* row, const void* col,
                  bool pattern_only, bool unit_diagonal);
void orient_by_degree(SparseStorage& L, const SparseStorage& S);

// The table of the entries above.
const GraphKernels& kernels();

}  // namespace geblas::detail::cuda::graph
