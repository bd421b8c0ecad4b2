// The tuning constants of the host BFS and SSSP (bfs.cpp, sssp.cpp), in one place.
#pragma once

#include "geblas/types.hpp"

namespace geblas::detail::cpu::graph {

struct TraversalPolicy {
  // Beamer et al. (SC 2012), section 4: switch push -> pull when the frontier's
  // out-edges exceed 1/alpha of the edges into unvisited vertices, and back when the
  // frontier holds fewer than n/beta vertices. alpha = 14, beta = 24 are the paper's
  // values, which it found robust across graph classes; not re-tuned here.
  static constexpr double push_to_pull = 14;
  static constexpr double pull_to_push = 24;
  // A push level or SSSP round reading fewer edges than this runs on the calling
  // thread: a fork/join costs a few microseconds idle and far more on a loaded machine,
  // about the time to read 10^4 edges. Road graphs (frontiers of a few hundred edges)
  // then never fork.
  static constexpr Index parallel_min_edges = Index{1} << 14;
};

}  // namespace geblas::detail::cpu::graph
