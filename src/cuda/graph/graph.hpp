// The CUDA backend's graph-algorithm entries (core/graph_kernels.hpp), one file per
// entry in this folder, and the table that collects them.
#pragma once

#include "core/graph_kernels.hpp"

namespace geblas::detail::cuda::graph {

GEBLAS_GRAPH_ENTRIES(GEBLAS_DECLARE_GRAPH_ENTRY)
void bfs_many(BfsManyRun& run);  // the optional entry (bfs_many.cu)

// The table of the entries above.
const GraphKernels& kernels();

}  // namespace geblas::detail::cuda::graph
