// The iteration control of PageRank, one code for every matrix type: algo::pagerank on
// one device and dist::pagerank over ranks both run it, and differ only in the batch
// runner they pass (the backend's fused iterations on one device's A'; on ranks, the
// exchange of the scaled iterate's halo, the same fused step on each rank's rows, and
// the changes summed over ranks). It owns what must agree between the two: batches that
// grow from 4 to 16 iterations, the stop at the first iteration below the tolerance,
// the cap at max_iterations, the callback and the reported change.
#pragma once

#include <algorithm>

#include "core/graph_kernels.hpp"
#include "geblas/algorithms/common.hpp"

namespace geblas::algo::detail {

struct PageRankLoop {
  int iterations = 0;
  bool converged = false;
  double delta = 0;
  int current = 0;  // the slot holding the last iterate
};

// `run(current, count)` runs up to `count` iterations from slot `current` and returns
// their changes (stopping after the first below `tolerance`, which this loop checks
// again) and the slot of its last iterate; the iterate was initialised in slot `start`.
template <class RunBatch>
PageRankLoop pagerank_loop(RunBatch&& run, int start, int max_iterations, double tolerance,
                           const IterationCallback& on_iteration) {
  PageRankLoop out;
  out.current = start;
  // Few host waits on long runs, few wasted launches (iterations queued after
  // convergence return at once) on short ones.
  int batch = 4;
  while (out.iterations < max_iterations && !out.converged) {
    const int count = std::min(batch, max_iterations - out.iterations);
    const geblas::detail::PageRankBatch b = run(out.current, count);
    out.current = b.current;
    for (double d : b.deltas) {
      out.delta = d;
      ++out.iterations;
      if (on_iteration) on_iteration(out.iterations, d);
      if (d < tolerance) out.converged = true;
    }
    if (b.deltas.empty()) break;  // a runner that ran nothing cannot make progress
    batch = std::min(batch * 2, 16);
  }
  return out;
}

}  // namespace geblas::algo::detail
