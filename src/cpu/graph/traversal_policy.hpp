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
  // thread. 2^17 edges take about half a millisecond serially; a fork/join costs a few
  // microseconds on an idle machine but milliseconds on a loaded one (a descheduled
  // thread holds the barrier: on the shared 2-core build machine at load 10, BFS on
  // cit-HepPh took 56-73 ms with one thread and 225-317 ms with two at 2^14). Road
  // graphs (frontiers of a few hundred edges) never fork.
  static constexpr Index parallel_min_edges = Index{1} << 17;
  // BFS fills its level and parent arrays (16 bytes a vertex) with OpenMP from this many
  // vertices: a serial fill of 2^18 vertices writes 4 MiB, about half a millisecond, the
  // order of a fork/join on the loaded machine (an estimate, not a measured crossover).
  static constexpr Index parallel_fill_min = Index{1} << 18;
};

}  // namespace geblas::detail::cpu::graph
