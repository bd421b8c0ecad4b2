// Direction-optimising BFS on the host (Beamer, Asanovic & Patterson, "Direction-
// optimizing breadth-first search", SC 2012), organised like the GAP Benchmark Suite's
// reference kernel: push from the frontier through A while it is small, pull through A'
// (each unvisited vertex scans its in-list for a vertex of the previous level) while it
// is large. Every vertex gets the smallest in-neighbour of the previous level as parent
// in both directions: push takes the minimum over all frontier in-neighbours, pull stops
// at the first hit of a sorted in-list.
//
// Three bitmaps of n bits (a Kronecker graph's million vertices fit in L2, where their
// 64-bit levels would not): the vertices visited before the level (push skips an edge to
// one of them without touching its level; pull skips 64 of them per word), and the
// frontier and next level of the pull steps. Push keeps the frontier as a queue.
//
// A run of large levels shares one OpenMP parallel region: each thread files the
// vertices it claims into a buffer of its own and appends it to the shared queue in one
// atomic step, and Beamer's counters (edges out of the next frontier, edges into the
// vertices still unvisited) are summed where the vertices are claimed, so a level costs
// barriers, not a fork/join and a serial pass over the new frontier. Small levels (a
// road graph's thousand levels, the first and last levels of a social graph) run on the
// calling thread with no OpenMP construct at all.
//
// Without A' (the algorithm layer passes only a cached one) an automatic traversal pulls
// through A itself when A's pattern is symmetric (symmetry.hpp, cached with A); a
// directed one pushes, and builds A' (cached with A) only once an earlier traversal of A
// wanted to pull.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include <omp.h>

#include "core/derived_cache.hpp"
#include "core/trace.hpp"
#include "cpu/graph/graph.hpp"
#include "cpu/graph/symmetry.hpp"
#include "cpu/graph/traversal_policy.hpp"
#include "cpu/parallel.hpp"

namespace geblas::detail::cpu::graph {
namespace {

using V = GraphVertex;
using Word = std::uint64_t;

struct Csr {
  const Index* ro = nullptr;
  const ColIndex* ci = nullptr;
  Index degree(Index v) const { return ro[v + 1] - ro[v]; }
};

Csr view(const SparseStorage* s) { return {s->row_offsets.as<Index>(), s->col_indices.as<ColIndex>()}; }

bool has(const Word* bits, Index v) { return (bits[v >> 6] >> (v & 63)) & 1; }
void add(Word* bits, Index v) { bits[v >> 6] |= Word{1} << (v & 63); }
void add_shared(Word* bits, Index v) {
  std::atomic_ref<Word>(bits[v >> 6]).fetch_or(Word{1} << (v & 63), std::memory_order_relaxed);
}

// Parents start at -1 (none yet): the traversal then needs no pass over the unreached
// vertices at the end. An offer replaces none or a larger parent.
void offer_parent_shared(V& slot, V u) {
  std::atomic_ref<V> a(slot);
  V old = a.load(std::memory_order_relaxed);
  while ((old < 0 || u < old) && !a.compare_exchange_weak(old, u, std::memory_order_relaxed)) {
  }
}

// The mark a directed traversal that wanted to pull leaves with A (see bfs()). Shared,
// so that the cached entry (read-only) can still be set.
struct PullWish {
  std::shared_ptr<std::atomic<bool>> wanted = std::make_shared<std::atomic<bool>>(false);
};

// What a thread gathers during a level, added to the shared sums once at its end.
struct LevelSums {
  std::int64_t reached = 0;         // vertices claimed
  std::int64_t out_edges = 0;       // their out-degrees (Beamer's m_f of the next level)
  std::int64_t in_edges = 0;        // their in-degrees (taken off m_u)
  std::int64_t examined = 0;        // entries of A / A' read
};

struct SharedSums {
  std::atomic<std::int64_t> reached{0}, out_edges{0}, in_edges{0}, examined{0};
  void add(const LevelSums& s) {
    reached.fetch_add(s.reached, std::memory_order_relaxed);
    out_edges.fetch_add(s.out_edges, std::memory_order_relaxed);
    in_edges.fetch_add(s.in_edges, std::memory_order_relaxed);
    examined.fetch_add(s.examined, std::memory_order_relaxed);
  }
  LevelSums take() {
    LevelSums s{reached.exchange(0), out_edges.exchange(0), in_edges.exchange(0), examined.exchange(0)};
    return s;
  }
};

// A thread's part of the next queue, appended to the shared one in blocks (GAP's
// QueueBuffer): one atomic add per block rather than per vertex.
class QueueBuffer {
 public:
  QueueBuffer(ColIndex* queue, std::atomic<Index>& size) : queue_(queue), size_(size) {}
  ~QueueBuffer() { flush(); }
  void push(ColIndex v) {
    if (count_ == capacity) flush();
    local_[count_++] = v;
  }
  void flush() {
    if (count_ == 0) return;
    const Index at = size_.fetch_add(count_, std::memory_order_relaxed);
    std::memcpy(queue_ + at, local_, static_cast<std::size_t>(count_) * sizeof(ColIndex));
    count_ = 0;
  }

 private:
  static constexpr Index capacity = 4096;  // GAP's block; 16 KiB stays in L1
  ColIndex* queue_;
  std::atomic<Index>& size_;
  ColIndex local_[capacity];
  Index count_ = 0;
};

class Traversal {
 public:
  Traversal(BfsRun& run, const SparseStorage* in, bool may_build)
      : run_(run), n_(run.A->nrows), words_((n_ + 63) / 64), A_(view(run.A)), may_build_(may_build) {
    set_in(in);
    in_degree_ro_ = in ? At_.ro : A_.ro;  // an estimate for a directed A before A' exists
    visited_.assign(static_cast<std::size_t>(words_), 0);
    // The bits past n count as visited, so that no pull step looks at them.
    if (n_ % 64) visited_.back() = ~Word{0} << (n_ % 64);
    if (in || may_build) {
      front_bits_.assign(static_cast<std::size_t>(words_), 0);
      next_bits_.assign(static_cast<std::size_t>(words_), 0);
    }
    queue_ = std::make_unique_for_overwrite<ColIndex[]>(static_cast<std::size_t>(n_));
    next_queue_ = std::make_unique_for_overwrite<ColIndex[]>(static_cast<std::size_t>(n_));
  }

  void run() {
    start();
    const bool can_fork = !omp_in_parallel() && omp_get_max_threads() > 1;
    while (frontier_size_ > 0) {
      choose_direction();
      if (!can_fork || !large()) {
        one_level<false>();
        continue;
      }
      // A run of large levels in one team; it leaves when a level is small again, the
      // traversal ends, or a directed traversal wants to pull without A'.
#pragma omp parallel
      {
        do {
          one_level<true>();
        } while (!leave_team_);
      }
    }
  }

  const SparseStorage* in() const { return in_; }
  bool wished() const { return wished_; }
  bool built() const { return built_ != nullptr; }

 private:
  void set_in(const SparseStorage* in) {
    in_ = in;
    At_ = in ? view(in) : Csr{};
  }

  void start() {
    const Index n = n_;
    V* level = run_.levels;
    V* parent = run_.parents;
#pragma omp parallel for schedule(static) if (n >= TraversalPolicy::parallel_fill_min && !omp_in_parallel())
    for (Index v = 0; v < n; ++v) {
      level[v] = -1;
      parent[v] = -1;
    }
    const auto s = static_cast<ColIndex>(run_.source);
    level[s] = 0;
    parent[s] = s;
    add(visited_.data(), s);
    queue_[0] = s;
    frontier_size_ = 1;
    run_.depth = 0;
    run_.reached = 1;
    run_.edges_examined = 0;
    run_.level_sizes.clear();
    unexplored_edges_ = static_cast<double>(run_.A->nvals) - static_cast<double>(in_degree_ro_[s + 1] - in_degree_ro_[s]);
    frontier_edges_ = static_cast<double>(A_.degree(s));
    pulling_ = run_.direction == 2;
    depth_ = 1;
  }

  // Beamer's rule with its hysteresis, for the next level: pull while the frontier holds
  // at least n/beta vertices. To start pulling, the frontier must also be large: at
  // least n/beta vertices, or, on a symmetric pattern, 1/beta of all edges. A pull level
  // visits every unvisited vertex, and at the end of a road graph's BFS m_u is tiny, so
  // the edge rule alone would flip push/pull every level there; but a skewed graph's
  // third level can be a few thousand hubs holding millions of out-edges, which must be
  // pulled. On a directed pattern the edge bound is not taken: the vertices no path
  // reaches read their whole in-lists at every pull level, which m_u does not foresee.
  bool wants_pull() const {
    if (run_.direction != 0) return run_.direction == 2;
    if (!in_ && !(may_build_ && !wished_)) return false;
    const double n = static_cast<double>(n_), beta = TraversalPolicy::pull_to_push;
    const bool many = static_cast<double>(frontier_size_) * beta >= n;
    if (pulling_) return many;
    const bool heavy = in_ == run_.A && frontier_edges_ * beta >= static_cast<double>(run_.A->nvals);
    return (many || heavy) && frontier_edges_ * TraversalPolicy::push_to_pull > unexplored_edges_;
  }

  // Outside a team: a directed traversal without A' that wants to pull builds A' the
  // second time A is traversed so (a scatter of every entry costs more than pulling saves
  // in one traversal: push reads each entry at most once), and pushes the first time. A
  // forced pull without A' builds it at once.
  void choose_direction() {
    bool pull = wants_pull();
    if (pull && !in_) {
      if (!may_build_ || wish()->wanted->exchange(true)) {
        built_ = cached_transpose(*run_.A);
        set_in(built_.get());
      } else {
        wished_ = true;
        pull = false;
      }
    }
    pulling_ = pull;
  }

  std::shared_ptr<const PullWish> wish() {
    if (!wish_) wish_ = derived<PullWish>(*run_.A, "bfs:pull_wanted", [] { return PullWish{}; });
    return wish_;
  }

  // Whether the next level is worth a team: a pull level visits every vertex; a push
  // level reads the frontier's out-edges.
  bool large() const {
    if (pulling_) return n_ >= TraversalPolicy::parallel_min_edges;
    return frontier_edges_ >= static_cast<double>(TraversalPolicy::parallel_min_edges) && frontier_size_ > 1;
  }

  // One level, by every thread of a team (shared) or by the calling thread alone. The
  // frontier is in front_bits_ after a pull level and in queue_ after a push level; each
  // direction first converts it when the last level ran the other way.
  template <bool shared>
  void one_level() {
    const bool pull = pulling_;
    const bool bits = front_is_bits_;
    LevelSums mine;
    if (pull) {
      if (!bits) queue_to_bits<shared>();
      pull_level<shared>(mine);
    } else {
      if (bits) bits_to_queue<shared>();
      push_level<shared>(mine);
    }
    if constexpr (shared) {
      sums_.add(mine);
#pragma omp barrier
      if (!pull) mark_visited<true>();  // ends with the loop's barrier
#pragma omp single
      finish_level(sums_.take(), pull, true);
    } else {
      if (!pull) mark_visited<false>();
      finish_level(mine, pull, false);
    }
  }

  // The queued frontier as bits, for a pull level.
  template <bool shared>
  void queue_to_bits() {
    Word* fb = front_bits_.data();
    const ColIndex* q = queue_.get();
    const Index size = frontier_size_, words = words_;
    if constexpr (shared) {
#pragma omp for schedule(static)
      for (Index w = 0; w < words; ++w) fb[w] = 0;
#pragma omp for schedule(static)
      for (Index i = 0; i < size; ++i) add_shared(fb, q[i]);
    } else {
      std::fill(fb, fb + words, Word{0});
      for (Index i = 0; i < size; ++i) add(fb, q[i]);
    }
  }

  // The frontier bits as a queue, for a push level after pull levels.
  template <bool shared>
  void bits_to_queue() {
    const Word* fb = front_bits_.data();
    const Index words = words_;
    if constexpr (shared) {
      {
        QueueBuffer out(queue_.get(), convert_size_);
#pragma omp for schedule(static) nowait
        for (Index w = 0; w < words; ++w)
          for (Word b = fb[w]; b; b &= b - 1) out.push(static_cast<ColIndex>(w * 64 + std::countr_zero(b)));
      }
#pragma omp barrier
    } else {
      Index size = 0;
      for (Index w = 0; w < words; ++w)
        for (Word b = fb[w]; b; b &= b - 1) queue_[size++] = static_cast<ColIndex>(w * 64 + std::countr_zero(b));
      convert_size_.store(size, std::memory_order_relaxed);
    }
  }

  // Push: every frontier vertex offers itself to its out-neighbours not visited before
  // this level; the first to reach one claims it (a CAS on its level), every one offers
  // itself as parent (the smallest stays).
  template <bool shared>
  void push_level(LevelSums& mine) {
    const Index size = frontier_size_;
    const ColIndex* q = queue_.get();
    const Word* visited = visited_.data();
    V* level = run_.levels;
    V* parent = run_.parents;
    const V depth = depth_;
    const Csr A = A_;
    const Index* in_ro = in_degree_ro_;
    auto claimed = [&](ColIndex v) {
      ++mine.reached;
      mine.out_edges += A.degree(v);
      mine.in_edges += in_ro[v + 1] - in_ro[v];
    };
    if constexpr (shared) {
      QueueBuffer out(next_queue_.get(), next_size_);
#pragma omp for schedule(dynamic, 64) nowait
      for (Index f = 0; f < size; ++f) {
        const ColIndex u = q[f];
        for (Index k = A.ro[u]; k < A.ro[u + 1]; ++k) {
          const ColIndex v = A.ci[k];
          if (has(visited, v)) continue;  // reached at an earlier level
          V expected = -1;
          if (std::atomic_ref<V>(level[v]).compare_exchange_strong(expected, depth, std::memory_order_relaxed)) {
            out.push(v);
            claimed(v);
          }
          offer_parent_shared(parent[v], u);
        }
        mine.examined += A.degree(u);
      }
    } else {
      Index next = 0;
      ColIndex* nq = next_queue_.get();
      for (Index f = 0; f < size; ++f) {
        const ColIndex u = q[f];
        for (Index k = A.ro[u]; k < A.ro[u + 1]; ++k) {
          const ColIndex v = A.ci[k];
          if (has(visited, v)) continue;
          if (level[v] < 0) {
            level[v] = depth;
            parent[v] = u;
            nq[next++] = v;
            claimed(v);
          } else if (u < parent[v]) {
            parent[v] = u;
          }
        }
        mine.examined += A.degree(u);
      }
      next_size_.store(next, std::memory_order_relaxed);
    }
  }

  // The vertices a push level claimed join the visited bits (after the level: during it,
  // a vertex claimed at this level must still take parent offers).
  template <bool shared>
  void mark_visited() {
    Word* visited = visited_.data();
    const ColIndex* nq = next_queue_.get();
    const Index size = next_size_.load(std::memory_order_relaxed);
    if constexpr (shared) {
#pragma omp for schedule(static)
      for (Index i = 0; i < size; ++i) add_shared(visited, nq[i]);
    } else {
      for (Index i = 0; i < size; ++i) add(visited, nq[i]);
    }
  }

  // Pull: each unvisited vertex scans its sorted in-list for its first frontier vertex.
  // Work units are whole words of the bitmaps (a thread owns the words it writes), so the
  // next-level and visited bits need no atomics.
  template <bool shared>
  void pull_level(LevelSums& mine) {
    const Word* front = front_bits_.data();
    Word* next = next_bits_.data();
    Word* visited = visited_.data();
    V* level = run_.levels;
    V* parent = run_.parents;
    const V depth = depth_;
    const Csr A = A_, At = At_;
    const Index* in_ro = in_degree_ro_;
    const Index words = words_;
    auto word = [&](Index w) {
      Word found = 0;
      for (Word todo = ~visited[w]; todo; todo &= todo - 1) {
        const int b = std::countr_zero(todo);
        const Index v = w * 64 + b;
        const Index begin = At.ro[v], end = At.ro[v + 1];
        Index k = begin;
        while (k < end && !has(front, At.ci[k])) ++k;
        if (k < end) {
          level[v] = depth;
          parent[v] = At.ci[k];
          found |= Word{1} << b;
          ++mine.reached;
          mine.out_edges += A.degree(v);
          mine.in_edges += in_ro[v + 1] - in_ro[v];
          mine.examined += k - begin + 1;
        } else {
          mine.examined += end - begin;
        }
      }
      next[w] = found;
      visited[w] |= found;
    };
    if constexpr (shared) {
      // 16 words: 1024 vertices per work unit, dynamic because hub rows cost more.
#pragma omp for schedule(dynamic, 16) nowait
      for (Index w = 0; w < words; ++w) word(w);
    } else {
      for (Index w = 0; w < words; ++w) word(w);
    }
  }

  // The level's totals (by one thread), the new frontier in place, and the direction of
  // the next level; in a team, whether the team goes on.
  void finish_level(const LevelSums& s, bool pull, bool in_team) {
    run_.edges_examined += static_cast<double>(s.examined);
    const Index count = pull ? s.reached : next_size_.load(std::memory_order_relaxed);
    next_size_.store(0, std::memory_order_relaxed);
    convert_size_.store(0, std::memory_order_relaxed);
    frontier_size_ = count;
    leave_team_ = true;
    if (count == 0) return;
    run_.depth = static_cast<int>(depth_);
    run_.reached += count;
    run_.level_sizes.push_back(count);
    frontier_edges_ = static_cast<double>(s.out_edges);
    unexplored_edges_ -= static_cast<double>(s.in_edges);
    if (pull) front_bits_.swap(next_bits_);
    else queue_.swap(next_queue_);
    front_is_bits_ = pull;
    ++depth_;
    if (!in_team) return;
    // A team goes on with a large level it can run; wanting to pull without A' is
    // settled outside it (building A' runs its own parallel loops).
    const bool pull_next = wants_pull();
    if (pull_next && !in_) return;
    pulling_ = pull_next;
    leave_team_ = !large();
  }

  BfsRun& run_;
  const Index n_, words_;
  const Csr A_;
  Csr At_;
  const SparseStorage* in_ = nullptr;
  const Index* in_degree_ro_ = nullptr;
  const bool may_build_;
  bool wished_ = false;
  std::shared_ptr<const PullWish> wish_;
  std::shared_ptr<const SparseStorage> built_;
  std::vector<Word> visited_, front_bits_, next_bits_;
  std::unique_ptr<ColIndex[]> queue_, next_queue_;
  Index frontier_size_ = 0;
  std::atomic<Index> next_size_{0}, convert_size_{0};
  bool front_is_bits_ = false, pulling_ = false, leave_team_ = true;
  V depth_ = 1;
  // Beamer's counters: edges out of the frontier (m_f) and edges into unvisited vertices
  // (m_u, every in-edge of a vertex not yet reached; by in-degrees when A' was given,
  // else by out-degrees: exact for a symmetric pattern, for a directed one an estimate
  // with the same total).
  double frontier_edges_ = 0, unexplored_edges_ = 0;
  SharedSums sums_;
};

}  // namespace

void bfs(BfsRun& run) {
  // Without A' (see BfsRun) the traversal pulls through A when its pattern is symmetric;
  // a directed one may build A' (see Traversal::choose_direction).
  const SparseStorage* in = run.At;
  if (!in && run.direction != 1 && pattern_symmetric(*run.A)) in = run.A;
  const bool may_build = !in && run.direction == 0;
  Traversal t(run, in, may_build);
  t.run();
  DispatchRecord& rec = current_dispatch();
  rec.variant = t.in() ? "direction_optimising" : "push";
  rec.reason = !t.in()         ? (run.direction == 1 ? "push forced"
                                  : t.wished()       ? "pushes: A' not cached, built when A is traversed again"
                                                     : "never worth pulling, A' not built")
               : t.in() == run.A ? "pulls through A: symmetric pattern"
               : t.built()       ? "pulls through A', built for this call"
                                 : "pulls through A'";
}
void bfs_level_step(const BfsLevelStep& s) {
  const std::int64_t total = s.m * s.k;
  double reached = 0;
#pragma omp parallel for schedule(static) reduction(+ : reached) if (total > (1 << 16))
  for (std::int64_t e = 0; e < total; ++e) {
    const GraphVertex y = s.candidates[e];
    if (y == std::numeric_limits<GraphVertex>::max() || s.levels[e] >= 0) {
      s.frontier[e] = std::numeric_limits<GraphVertex>::max();
      continue;
    }
    s.levels[e] = s.level;
    s.parents[e] = y;
    s.frontier[e] = s.first_row + e / s.k;
    reached += 1;
  }
  *s.reached = reached;  // the host is this backend's device
}

}  // namespace geblas::detail::cpu::graph
