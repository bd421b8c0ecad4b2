// Single-source shortest paths with non-negative weights on the host: delta-stepping
// (Meyer & Sanders 2003) organised like the GAP Benchmark Suite's reference kernel
// (Beamer, Asanovic & Patterson, "The GAP Benchmark Suite", 2015; bucket fusion from
// Zhang et al., "Optimizing ordered graph algorithms with GraphIt", CGO 2020).
//
// Buckets hold the vertices by floor(distance / delta), each entry with the distance it
// was filed with: once its vertex holds a lower distance, a later entry carries that and
// this one is skipped, so each lowering is relaxed once. The calling thread takes the
// smallest non-empty bucket and relaxes it; a bucket whose rows hold fewer than
// TraversalPolicy::parallel_min_edges entries is relaxed on that thread alone (road and
// mesh graphs never fork: their thousands of rounds would each pay a fork/join, and a
// descheduled thread on a loaded machine holds every barrier). A larger one is relaxed by
// all threads with a dynamic loop (atomic minimum on the distances), each filing into its
// own lists; with bucket fusion (GAP), a thread that refilled the current bucket with
// fewer than fusion_max vertices relaxes them itself at once rather than in another round.
//
// The bins are a ring over the next `ring` buckets; a vertex filed further ahead waits in
// the far pile until the ring reaches it, so memory stays O(n + relaxations) whatever the
// spread of the weights (a few huge weights next to many tiny ones).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <omp.h>

#include "cpu/graph/graph.hpp"
#include "cpu/graph/traversal_policy.hpp"
#include "cpu/parallel.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu::graph {
namespace {

using Vertex = std::int32_t;
using Bucket = std::uint64_t;

struct DeltaSteppingPolicy {
  // GAP's kBinSizeThreshold, not re-tuned here.
  static constexpr std::size_t fusion_max = 1000;
  // Not a tuning constant: only a bound on the bins' memory. Buckets this far ahead of the
  // current one are rare (the width is about the mean weight over the mean degree).
  static constexpr Bucket ring = 1024;
};

constexpr Bucket no_bucket = std::numeric_limits<Bucket>::max();

template <class T>
bool lower_to(T& slot, T value) {
  std::atomic_ref<T> a(slot);
  T old = a.load(std::memory_order_relaxed);
  while (value < old)
    if (a.compare_exchange_weak(old, value, std::memory_order_relaxed)) return true;
  return false;
}

template <class T>
T load(const T& slot) {
  return std::atomic_ref<const T>(slot).load(std::memory_order_relaxed);
}

template <class T>
void delta_stepping(SsspRun& run) {
  using Policy = DeltaSteppingPolicy;
  const Index n = run.A->nrows;
  const Index* ro = run.A->row_offsets.as<Index>();
  const ColIndex* ci = run.A->col_indices.as<ColIndex>();
  const T* w = run.A->values.as<T>();
  T* dist = static_cast<T*>(run.distances);
  const T inf = std::numeric_limits<T>::infinity();
  // Any monotone map from distances to buckets gives the right distances (a product
  // rounds like the quotient it replaces, monotonically); the cap keeps the index exact
  // in 64 bits when delta is tiny next to the distances.
  const double inverse_delta = 1.0 / run.delta;
  const double cap = 0x1p62;
  auto bucket_of = [inverse_delta, cap](T d) -> Bucket {
    const double b = static_cast<double>(d) * inverse_delta;
    return b < cap ? static_cast<Bucket>(b) : static_cast<Bucket>(cap);
  };
#pragma omp parallel for schedule(static) if (parallel_elements(n))
  for (Index i = 0; i < n; ++i) dist[i] = inf;
  dist[run.source] = T{0};

  // A vertex with the distance it was filed with: once the vertex holds a lower one, a
  // later entry carries that and this one is skipped (each lowering is relaxed once).
  struct Entry {
    Vertex v;
    T d;
  };
  std::vector<std::vector<Entry>> bins(Policy::ring);
  std::vector<Entry> far, frontier;
  Bucket far_min = no_bucket;  // the smallest bucket of a far entry
  Bucket curr = 0;
  auto file = [&](Entry e) {  // bucket >= curr
    const Bucket b = bucket_of(e.d);
    if (b - curr < Policy::ring) {
      bins[b % Policy::ring].push_back(e);
    } else {
      far.push_back(e);
      far_min = std::min(far_min, b);
    }
  };
  // Relaxes the out-edges of e's vertex unless e is stale, handing every lowered vertex
  // to `lowered`; returns the edges read. With `shared`, other threads relax at once.
  // (By value: pointers captured by reference are reloaded after every filing.)
  auto relax = [ro, ci, w, dist]<bool shared>(Entry e, auto&& lowered) -> Index {
    const T du = e.d;
    if ((shared ? load(dist[e.v]) : dist[e.v]) < du) return 0;
    const Index begin = ro[e.v], end = ro[e.v + 1];
    for (Index k = begin; k < end; ++k) {
      const Vertex v = ci[k];
      const T nd = du + w[k];  // >= du: the bucket never falls below curr
      if constexpr (shared) {
        if (lower_to(dist[v], nd)) lowered(Entry{v, nd});
      } else if (nd < dist[v]) {
        dist[v] = nd;
        lowered(Entry{v, nd});
      }
    }
    return end - begin;
  };
  // Moves the far entries that the ring now covers into it; drops the stale ones.
  auto refill_from_far = [&] {
    std::size_t kept = 0;
    far_min = no_bucket;
    for (const Entry& e : far) {
      if (dist[e.v] < e.d) continue;
      const Bucket b = bucket_of(e.d);
      if (b - curr < Policy::ring) {
        bins[b % Policy::ring].push_back(e);
      } else {
        far[kept++] = e;
        far_min = std::min(far_min, b);
      }
    }
    far.resize(kept);
  };

  struct Local {
    std::vector<Entry> here, fused;  // lowered into the current bucket
    std::vector<Entry> later;        // lowered into a later one
  };
  const int team = omp_get_max_threads();
  std::vector<Local> locals(static_cast<std::size_t>(team));
  int rounds = 0;
  double edges = 0;
  bins[0].push_back(Entry{static_cast<Vertex>(run.source), T{0}});
  for (;;) {
    Bucket next = far_min;
    for (Bucket b = curr; b < curr + Policy::ring && b < next; ++b)
      if (!bins[b % Policy::ring].empty()) {
        next = b;
        break;
      }
    if (next == no_bucket) break;
    curr = next;
    if (far_min < curr + Policy::ring / 2) refill_from_far();
    frontier.clear();
    frontier.swap(bins[curr % Policy::ring]);
    ++rounds;
    Index work = 0;
    for (const Entry& e : frontier) work += ro[e.v + 1] - ro[e.v];
    if (team == 1 || work < TraversalPolicy::parallel_min_edges) {
      for (const Entry& e : frontier) edges += static_cast<double>(relax.template operator()<false>(e, file));
      continue;
    }
    const auto size = static_cast<Index>(frontier.size());
    double round_edges = 0;
#pragma omp parallel num_threads(team) reduction(+ : round_edges)
    {
      Local& mine = locals[static_cast<std::size_t>(omp_get_thread_num())];
      auto lowered = [&](Entry e) {
        if (bucket_of(e.d) == curr) mine.here.push_back(e);
        else mine.later.push_back(e);
      };
      Index read = 0;
#pragma omp for schedule(dynamic, 64) nowait
      for (Index f = 0; f < size; ++f)
        read += relax.template operator()<true>(frontier[static_cast<std::size_t>(f)], lowered);
      // Bucket fusion.
      while (!mine.here.empty() && mine.here.size() < Policy::fusion_max) {
        mine.fused.swap(mine.here);
        for (const Entry& e : mine.fused) read += relax.template operator()<true>(e, lowered);
        mine.fused.clear();
      }
      round_edges += static_cast<double>(read);
    }
    edges += round_edges;
    auto& bin = bins[curr % Policy::ring];
    for (Local& l : locals) {
      bin.insert(bin.end(), l.here.begin(), l.here.end());
      for (const Entry& e : l.later) file(e);
      l.here.clear();
      l.later.clear();
    }
  }
  run.rounds = rounds;
  run.edges_relaxed = edges;
}

}  // namespace

void sssp(SsspRun& run) {
  switch (run.A->type) {
    case TypeId::float32: return delta_stepping<float>(run);
    case TypeId::float64: return delta_stepping<double>(run);
    default: throw InvalidValue("sssp on cpu: weights must be float or double");
  }
}

}  // namespace geblas::detail::cpu::graph
