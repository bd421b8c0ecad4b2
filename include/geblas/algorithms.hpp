// The graph algorithms of geblas (namespace geblas::algo), each written once against
// the public operations and run on the device where its matrix lives.
#pragma once

#include "geblas/algorithms/bfs.hpp"
#include "geblas/algorithms/common.hpp"
#include "geblas/algorithms/connected_components.hpp"
#include "geblas/algorithms/gnn.hpp"
#include "geblas/algorithms/locality_order.hpp"
#include "geblas/algorithms/pagerank.hpp"
#include "geblas/algorithms/sssp.hpp"
#include "geblas/algorithms/triangle_count.hpp"
