// The rounds of Bellman-Ford over min_plus, one code for every matrix type: algo::sssp
// (one source or many, on one device) and dist::sssp (many sources over ranks) run it
// and differ only in the round they pass: on one device a product with min as its
// accumulator (or a vxm and a min) and the count of entries it changed; on ranks the
// distributed product, the min on each rank's rows and the counts summed over ranks.
// It owns what must agree between them: the count reported to the callback, the stop at
// the first round that changes nothing, and the proof of a negative cycle (a change in
// round n: without one, at most n - 1 rounds change anything).
#pragma once

#include <string>

#include "geblas/algorithms/common.hpp"
#include "geblas/error.hpp"

namespace geblas::algo::detail {

// `round()` runs one round and returns how many distances it changed; returns the number
// of rounds run. Throws InvalidValue (naming `where`) at a negative cycle.
template <class Round>
int bellman_ford_loop(Round&& round, Index n, const IterationCallback& on_iteration, const char* where) {
  for (int r = 1;; ++r) {
    const double changed = round();
    if (on_iteration) on_iteration(r, changed);
    if (changed == 0) return r;
    if (r >= n)
      throw InvalidValue(std::string(where) +
                         ": a negative cycle is reachable from a source (distances still fell in round " +
                         std::to_string(n) + " of a graph with " + std::to_string(n) + " vertices)");
  }
}

}  // namespace geblas::algo::detail
