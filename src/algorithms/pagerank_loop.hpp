// The iteration control of PageRank, one code for every matrix type: algo::pagerank on
// one device and dist::pagerank over ranks both run it, and differ only in the batch
// runner they pass (the backend's fused iterations on one device's A'; on ranks, the
// exchange of the scaled iterate's halo, the same fused step on each rank's rows, and
// the changes summed over ranks). It owns what must agree between the two: the batch
// sizes, the stop at the first iteration below the tolerance, the cap at
// max_iterations, the callback and the reported change.
#pragma once

#include <algorithm>
#include <cmath>

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
  // Few host waits, few wasted launches (iterations queued after convergence return at
  // once, but each still costs a launch). The first batch is short; after it, the change
  // shrinks by a near-constant factor per iteration (the power method's rate), so the
  // next batch is sized to the iterations that factor predicts are left, plus two for an
  // estimate slightly off, and at most max_batch: a miss costs one more wait, an overshoot
  // a few launches that return at once.
  constexpr int first_batch = 4, max_batch = 16;
  int batch = first_batch;
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
    batch = max_batch;
    const std::size_t k = b.deltas.size();
    if (k >= 2 && b.deltas.front() > 0 && b.deltas.back() > 0 && tolerance > 0) {
      const double rate = std::pow(b.deltas.back() / b.deltas.front(), 1.0 / static_cast<double>(k - 1));
      if (rate > 0 && rate < 1) {
        const double left = std::log(tolerance / b.deltas.back()) / std::log(rate);
        if (left >= 0 && left < max_batch) batch = std::max(1, static_cast<int>(std::ceil(left)) + 2);
        batch = std::min(batch, max_batch);
      }
    }
  }
  return out;
}

}  // namespace geblas::algo::detail
