// Pieces shared by the graph algorithms: the per-iteration callback (the command-line
// tool draws its progress bar with it) and the vertex-id type that BFS, connected
// components and their results use.
#pragma once

#include <cstdint>
#include <functional>

#include "geblas/types.hpp"

namespace geblas::algo {

// Vertex ids, levels and labels. 64-bit so that an id + 1 (the multi-source BFS
// encoding) never overflows; every id fits because dimensions are below 2^31.
using VertexId = std::int64_t;

// Called after every iteration (PageRank) or round (SSSP, BFS, components) with the
// iteration number (1-based) and a progress measure: the L1 change for PageRank, the
// number of entries that changed or were reached for the others.
using IterationCallback = std::function<void(int iteration, double measure)>;

}  // namespace geblas::algo
