// Single-source shortest paths with non-negative weights on the host: the near-far
// worklist of Davidson, Baxter, Garland & Owens ("Work-efficient parallel GPU methods
// for single-source shortest paths", IPDPS 2014), a two-bucket form of delta-stepping
// (Meyer & Sanders 2003). Vertices whose distance drops below the current threshold
// join the next frontier (deduplicated per round), the others wait in a far pile; when
// the near frontier runs dry the threshold moves to (smallest waiting distance + delta)
// and the pile is split. A round with many frontier edges relaxes with OpenMP (atomic
// minimum on the distance), a small one on the calling thread.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cpu/graph/graph.hpp"
#include "cpu/graph/traversal_policy.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu::graph {
namespace {

using Vertex = std::int32_t;

template <class T>
bool lower_to(T& slot, T value) {
  std::atomic_ref<T> a(slot);
  T old = a.load(std::memory_order_relaxed);
  while (value < old)
    if (a.compare_exchange_weak(old, value, std::memory_order_relaxed)) return true;
  return false;
}

template <class T>
void near_far(SsspRun& run) {
  const Index n = run.A->nrows;
  const Index* ro = run.A->row_offsets.as<Index>();
  const ColIndex* ci = run.A->col_indices.as<ColIndex>();
  const T* w = run.A->values.as<T>();
  T* dist = static_cast<T*>(run.distances);
  const T inf = std::numeric_limits<T>::infinity();
  std::fill(dist, dist + n, inf);
  dist[run.source] = T{0};
  run.rounds = 0;
  run.edges_relaxed = 0;
  const T delta = static_cast<T>(run.delta);

  // stamp[v] = the last round whose next frontier holds v (deduplication).
  std::vector<int> stamp(static_cast<std::size_t>(n), 0);
  std::vector<Vertex> frontier{static_cast<Vertex>(run.source)}, near, far, kept;
  T threshold = delta;
  int round = 0, expansions = 0;
  for (;;) {
    while (!frontier.empty()) {
      ++round;
      ++expansions;
      const auto count = static_cast<Index>(frontier.size());
      double edges = 0;
      for (Vertex u : frontier) edges += static_cast<double>(ro[u + 1] - ro[u]);
      run.edges_relaxed += edges;
      near.clear();
      if (edges < static_cast<double>(TraversalPolicy::parallel_min_edges) || count < 2) {
        for (Vertex u : frontier) {
          const T du = dist[u];
          for (Index k = ro[u]; k < ro[u + 1]; ++k) {
            const Vertex v = ci[k];
            const T nd = du + w[k];
            if (!(nd < dist[v])) continue;
            dist[v] = nd;
            if (nd >= threshold) far.push_back(v);
            else if (stamp[static_cast<std::size_t>(v)] != round) {
              stamp[static_cast<std::size_t>(v)] = round;
              near.push_back(v);
            }
          }
        }
      } else {
#pragma omp parallel
        {
          std::vector<Vertex> my_near, my_far;
#pragma omp for schedule(dynamic, 64) nowait
          for (Index f = 0; f < count; ++f) {
            const Vertex u = frontier[static_cast<std::size_t>(f)];
            const T du = std::atomic_ref<T>(dist[u]).load(std::memory_order_relaxed);
            for (Index k = ro[u]; k < ro[u + 1]; ++k) {
              const Vertex v = ci[k];
              const T nd = du + w[k];
              if (!lower_to(dist[v], nd)) continue;
              if (nd >= threshold) my_far.push_back(v);
              else if (std::atomic_ref<int>(stamp[static_cast<std::size_t>(v)]).exchange(round) != round)
                my_near.push_back(v);
            }
          }
#pragma omp critical
          {
            near.insert(near.end(), my_near.begin(), my_near.end());
            far.insert(far.end(), my_far.begin(), my_far.end());
          }
        }
      }
      std::swap(frontier, near);
    }
    // Far entries below the old threshold were improved again and already expanded.
    T smallest = inf;
    kept.clear();
    for (Vertex v : far)
      if (dist[v] >= threshold) {
        kept.push_back(v);
        smallest = std::min(smallest, dist[v]);
      }
    if (kept.empty()) break;
    threshold = smallest + delta;
    if (!(threshold > smallest)) threshold = std::nextafter(smallest, inf);  // delta below smallest's ulp
    ++round;  // a fresh stamp for the split
    far.clear();
    for (Vertex v : kept) {
      if (dist[v] >= threshold) far.push_back(v);
      else if (stamp[static_cast<std::size_t>(v)] != round) {
        stamp[static_cast<std::size_t>(v)] = round;
        frontier.push_back(v);
      }
    }
  }
  run.rounds = expansions;
}

}  // namespace

void sssp(SsspRun& run) {
  switch (run.A->type) {
    case TypeId::float32: return near_far<float>(run);
    case TypeId::float64: return near_far<double>(run);
    default: throw InvalidValue("sssp on cpu: weights must be float or double");
  }
}

}  // namespace geblas::detail::cpu::graph
