// Direction-optimising BFS on the GPU (Beamer, Asanovic & Patterson, SC 2012), with the
// level loop on the device (traversal.cuh): one block runs the small push levels in a
// loop, grid-wide step kernels run the large ones (the last block of each to finish
// advances the state), push or pull as the device-side counters decide, and the host
// synchronises once per batch of steps.
//
// Loads of data other threads of the same kernel write (levels, queues) use __ldcg
// (L2, past the SM's L1), so the single-block loop never reads a stale line from an
// earlier level; the state is read and written through volatile for the same reason.
//
// Push: a warp per frontier vertex of at most heavy_edges out-edges, and a warp per
// chunk of chunk_edges out-edges of the heavier ones, so that a hub's edges are spread
// over the grid (or the block) instead of one warp walking tens of thousands of them;
// the chunks are listed when a vertex joins the queue, so no scan is needed. atomicCAS
// on the level claims a vertex for this level (the claimer appends it to the next
// queue), and every frontier in-neighbour that finds it claimed at this level offers
// itself by atomicMin on the parent, so the parent is the smallest in-neighbour one level
// up whatever the schedule.
// Pull: each warp reads the levels and in-degrees of 32 consecutive vertices at once;
// each lane probes the first few entries of its unvisited vertex's sorted in-list, and
// the undecided vertices scan the rest with the whole warp, 32 entries at a time; the
// first entry that sits on the previous level is the smallest such in-neighbour. Both
// fill the same queue, so the direction can change at any level.
#include <algorithm>
#include <climits>
#include <vector>

#include "cuda/graph/graph.hpp"
#include "cuda/graph/traversal.cuh"
#include "cuda/ops/common.cuh"

namespace geblas::detail::cuda::graph {
namespace {

using Policy = TraversalLaunchPolicy;

// Beamer et al. section 4 (their values; the host BFS uses the same ones): push ->
// pull when the frontier's out-edges exceed 1/alpha of the in-edges of unvisited
// vertices, pull -> push when the frontier holds fewer than n/beta vertices.
constexpr double push_to_pull = 14;
constexpr double pull_to_push = 24;

// A frontier vertex with more than heavy_edges out-edges is pushed in chunks of
// chunk_edges, a warp each: 8 rounds of 32 lanes, short enough that a hub's chunks spread
// over many warps, long enough that the chunk list stays at most 2 / 256 of nnz. Chosen by
// that reasoning.
constexpr Index heavy_edges = 256;
constexpr Index chunk_edges = 256;

struct BfsState {
  long long depth;                    // level of the current frontier
  long long frontier_size;
  unsigned long long next_size;       // vertices appended by the running step
  unsigned long long frontier_edges;  // out-edges of the frontier
  unsigned long long next_out_edges;  // out-edges of the vertices appended
  unsigned long long next_in_edges;   // in-edges of the vertices appended
  long long unexplored_edges;         // in-edges of unvisited vertices
  unsigned long long examined;        // entries of A and A' read
  unsigned long long frontier_chunks; // chunks of the frontier's heavy vertices
  unsigned long long next_chunks;     // chunks appended by the running step
  int cur;                            // the queue holding the frontier
  int pulling;                        // direction of the next step
  int on_grid;                        // the next step is too large for the block loop
  int done;
  unsigned blocks_done;               // blocks of the running grid step that have finished
  long long first_sizes[64];          // level_sizes of levels 1..64, read back with the state
};
constexpr int state_levels = 64;

struct BfsArgs {
  const Index* ro;  // A: out-edges
  const ColIndex* ci;
  const Index* tro;  // A': in-edges, sorted
  const ColIndex* tci;
  Index n;
  long long* level;
  long long* parent;
  int* queue[2];
  unsigned long long* chunks[2];  // with queue[q]: (vertex << 32) | chunk index, per heavy vertex
  long long* level_sizes;
  BfsState* st;
  int forced;  // 0 automatic, 1 push only, 2 pull only
};

// Lane-0 sums of a warp's counters into the state; every lane of the warp calls it.
__device__ void add_counters(BfsState* st, unsigned long long out_e, unsigned long long in_e,
                             unsigned long long examined) {
  out_e = warp_sum(out_e);
  in_e = warp_sum(in_e);
  examined = warp_sum(examined);
  if ((threadIdx.x & 31) == 0) {
    if (out_e) atomicAdd(&st->next_out_edges, out_e);
    if (in_e) atomicAdd(&st->next_in_edges, in_e);
    if (examined) atomicAdd(&st->examined, examined);
  }
}

// Appends v to the next queue (and its chunks, when heavy), counting its edges.
__device__ void append(const BfsArgs& a, int v, int next_q, unsigned long long& out_e, unsigned long long& in_e) {
  const unsigned long long slot = atomicAdd(&a.st->next_size, 1ULL);
  a.queue[next_q][slot] = v;
  const Index deg = a.ro[v + 1] - a.ro[v];
  out_e += static_cast<unsigned long long>(deg);
  in_e += static_cast<unsigned long long>(a.tro[v + 1] - a.tro[v]);
  if (deg > heavy_edges) {
    const auto pieces = static_cast<unsigned long long>((deg + chunk_edges - 1) / chunk_edges);
    const unsigned long long first = atomicAdd(&a.st->next_chunks, pieces);
    for (unsigned long long j = 0; j < pieces; ++j)
      a.chunks[next_q][first + j] = (static_cast<unsigned long long>(v) << 32) | j;
  }
}

// The out-edges [b, e) of frontier vertex u, one per lane.
__device__ void push_edges(const BfsArgs& a, int u, Index b, Index e, long long depth_new, int next_q,
                           unsigned long long& out_e, unsigned long long& in_e) {
  const int lane = threadIdx.x & 31;
  for (Index k = b + lane; k < e; k += 32) {
    const int v = a.ci[k];
    const long long seen = __ldcg(a.level + v);
    if (seen >= 0 && seen != depth_new) continue;  // reached at an earlier level
    const auto old = static_cast<long long>(
        atomicCAS(reinterpret_cast<unsigned long long*>(a.level + v), static_cast<unsigned long long>(-1LL),
                  static_cast<unsigned long long>(depth_new)));
    if (old == -1) append(a, v, next_q, out_e, in_e);
    // Unsigned, so that the -1 of an unset parent is above every vertex id.
    if (old == -1 || old == depth_new)
      atomicMin(reinterpret_cast<unsigned long long*>(a.parent + v), static_cast<unsigned long long>(u));
  }
}

__device__ void push_step(const BfsArgs& a, long long depth_new, long long fsize, unsigned long long fchunks, int cur,
                          long long warp, long long warps) {
  const int lane = threadIdx.x & 31;
  unsigned long long out_e = 0, in_e = 0, examined = 0;
  const int* frontier = a.queue[cur];
  const unsigned long long* chunks = a.chunks[cur];
  for (long long f = warp; f < fsize; f += warps) {
    const int u = __ldcg(frontier + f);
    const Index b = a.ro[u], e = a.ro[u + 1];
    if (e - b > heavy_edges) continue;  // pushed by its chunks below
    if (lane == 0) examined += static_cast<unsigned long long>(e - b);
    push_edges(a, u, b, e, depth_new, cur ^ 1, out_e, in_e);
  }
  for (long long c = warp; c < static_cast<long long>(fchunks); c += warps) {
    const unsigned long long piece = __ldcg(chunks + c);
    const int u = static_cast<int>(piece >> 32);
    const Index b = a.ro[u] + static_cast<Index>(piece & 0xffffffffULL) * chunk_edges;
    const Index e = min(a.ro[u + 1], b + chunk_edges);
    if (lane == 0) examined += static_cast<unsigned long long>(e - b);
    push_edges(a, u, b, e, depth_new, cur ^ 1, out_e, in_e);
  }
  add_counters(a.st, out_e, in_e, examined);
}

// Pull: a lane per vertex first tries the first pull_probe entries of its own in-list,
// all loaded at once (two dependent reads for the 32 vertices of a warp, where a warp per
// vertex costs two for each); the vertices left undecided scan the rest of their lists
// with the whole warp, one after the other.
constexpr int pull_probe = 4;

__device__ void pull_step(const BfsArgs& a, long long depth_new, int cur, long long warp, long long warps) {
  const int lane = threadIdx.x & 31;
  unsigned long long out_e = 0, in_e = 0, examined = 0;
  for (long long base = warp * 32; base < a.n; base += warps * 32) {
    const long long mine = base + lane;
    Index mb = 0, me = 0;
    if (mine < a.n && __ldcg(a.level + mine) == -1) {
      mb = a.tro[mine];
      me = a.tro[mine + 1];  // an unvisited vertex without in-edges cannot be reached now
    }
    // The probe: the first hit among the first pull_probe entries is the smallest
    // in-neighbour on the previous level (the lists are sorted).
    int probe[pull_probe];
    long long found = -1;
#pragma unroll
    for (int t = 0; t < pull_probe; ++t) probe[t] = mb + t < me ? a.tci[mb + t] : -1;
    bool hit[pull_probe];
#pragma unroll
    for (int t = 0; t < pull_probe; ++t) hit[t] = probe[t] >= 0 && __ldcg(a.level + probe[t]) == depth_new - 1;
#pragma unroll
    for (int t = pull_probe - 1; t >= 0; --t)
      if (hit[t]) found = probe[t];
    Index scanned = 0;
    if (me > mb) {
      if (found >= 0) {
        for (int t = 0; t < pull_probe; ++t)
          if (hit[t]) {
            scanned = t + 1;
            break;
          }
      } else {
        scanned = me - mb < pull_probe ? me - mb : pull_probe;
      }
    }
    const bool rest = found < 0 && me - mb > pull_probe;
    for (unsigned pending = __ballot_sync(0xffffffffu, rest); pending; pending &= pending - 1) {
      const int owner = __ffs(pending) - 1;
      const Index b = __shfl_sync(0xffffffffu, mb, owner) + pull_probe, e = __shfl_sync(0xffffffffu, me, owner);
      long long got = -1;
      Index walked = 0;
      for (Index chunk = b; chunk < e; chunk += 32) {
        const Index k = chunk + lane;
        int u = 0;
        bool h = false;
        if (k < e) {
          u = a.tci[k];
          h = __ldcg(a.level + u) == depth_new - 1;  // this step writes depth_new, never depth_new - 1
        }
        const unsigned mask = __ballot_sync(0xffffffffu, h);
        if (mask != 0) {
          const int first = __ffs(mask) - 1;
          got = __shfl_sync(0xffffffffu, u, first);
          walked += first + 1;
          break;
        }
        walked += (e - chunk < 32) ? (e - chunk) : 32;
      }
      if (lane == owner) {
        found = got;
        scanned += walked;
      }
    }
    examined += static_cast<unsigned long long>(scanned);
    if (found >= 0) {
      a.level[mine] = depth_new;
      a.parent[mine] = found;
      append(a, static_cast<int>(mine), cur ^ 1, out_e, in_e);
    }
  }
  add_counters(a.st, out_e, in_e, examined);
}

// The direction of the next step and where it runs (one thread).
__device__ void decide(const BfsArgs& a) {
  volatile BfsState* s = a.st;
  if (a.forced == 1) s->pulling = 0;
  else if (a.forced == 2) s->pulling = 1;
  else {
    // Pull also needs a frontier of at least n/beta vertices (the rule for staying in
    // pull): a pull step visits every vertex, and at the end of a road graph's BFS m_u
    // is tiny, so the edge rule alone would flip the direction every level there.
    const bool large = static_cast<double>(s->frontier_size) * pull_to_push >= static_cast<double>(a.n);
    s->pulling = large && (s->pulling || static_cast<double>(s->frontier_edges) * push_to_pull >
                                             static_cast<double>(s->unexplored_edges));
  }
  s->on_grid = s->pulling || s->frontier_size > Policy::small_vertices ||
               s->frontier_edges > static_cast<unsigned long long>(Policy::small_edges);
}

// After a step (one thread): the appended vertices become the frontier.
__device__ void finish(const BfsArgs& a) {
  volatile BfsState* s = a.st;
  const auto appended = static_cast<long long>(s->next_size);
  if (appended == 0) {
    s->done = 1;
    return;
  }
  s->depth = s->depth + 1;
  a.level_sizes[s->depth - 1] = appended;
  if (s->depth <= state_levels) s->first_sizes[s->depth - 1] = appended;
  s->frontier_size = appended;
  s->next_size = 0;
  s->frontier_chunks = s->next_chunks;
  s->next_chunks = 0;
  s->cur = s->cur ^ 1;
  s->frontier_edges = s->next_out_edges;
  s->unexplored_edges = s->unexplored_edges - static_cast<long long>(s->next_in_edges);
  s->next_out_edges = 0;
  s->next_in_edges = 0;
  decide(a);
}

__global__ void init_kernel(BfsArgs a, long long source) {
  a.level[source] = 0;
  a.parent[source] = source;
  a.queue[0][0] = static_cast<int>(source);
  BfsState* s = a.st;
  const Index deg = a.ro[source + 1] - a.ro[source];
  s->frontier_chunks = 0;
  s->next_chunks = 0;
  if (deg > heavy_edges) {
    const auto pieces = static_cast<unsigned long long>((deg + chunk_edges - 1) / chunk_edges);
    for (unsigned long long j = 0; j < pieces; ++j)
      a.chunks[0][j] = (static_cast<unsigned long long>(source) << 32) | j;
    s->frontier_chunks = pieces;
  }
  s->depth = 0;
  s->frontier_size = 1;
  s->next_size = 0;
  s->frontier_edges = static_cast<unsigned long long>(a.ro[source + 1] - a.ro[source]);
  s->next_out_edges = 0;
  s->next_in_edges = 0;
  s->unexplored_edges = a.ro[a.n] - (a.tro[source + 1] - a.tro[source]);
  s->examined = 0;
  s->blocks_done = 0;
  s->cur = 0;
  s->pulling = 0;
  s->done = 0;
  decide(a);
}

// Small push levels in a loop, until the traversal ends or a level is the grid's.
__global__ void __launch_bounds__(Policy::block_threads) block_steps(BfsArgs a) {
  __shared__ int stop;
  const volatile BfsState* s = a.st;
  for (;;) {
    if (threadIdx.x == 0) stop = s->done || s->on_grid;
    __syncthreads();
    if (stop) return;
    push_step(a, s->depth + 1, s->frontier_size, s->frontier_chunks, s->cur, threadIdx.x / 32, blockDim.x / 32);
    __syncthreads();
    if (threadIdx.x == 0) finish(a);
    __syncthreads();
  }
}

// Runs the next step whatever its size: once the levels have gone to the grid, a small
// one there costs a launch, less than the host wait that handing it back to the block
// would cost within the batch.
__global__ void grid_step(BfsArgs a) {
  const volatile BfsState* s = a.st;
  if (s->done) return;
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  if (s->pulling) pull_step(a, s->depth + 1, s->cur, warp, warps);
  else push_step(a, s->depth + 1, s->frontier_size, s->frontier_chunks, s->cur, warp, warps);
  // The last block to finish the step advances the state (every block has read it by
  // then), which saves a one-thread launch per level.
  if (last_block_of_step(&a.st->blocks_done)) finish(a);
}

}  // namespace

void bfs(BfsRun& run) {
  const ops::Ctx c(run.A->device);
  const Device dev = run.A->device;
  const Index n = run.A->nrows;
  RawBuffer state = ops::temp<BfsState>(1, dev);
  RawBuffer q0 = ops::temp<int>(n, dev), q1 = ops::temp<int>(n, dev);
  // A frontier's heavy vertices have more than heavy_edges out-edges each, so their
  // chunks number at most nnz / chunk_edges + nnz / heavy_edges.
  const Index chunk_capacity = run.A->nvals / chunk_edges + run.A->nvals / heavy_edges + 1;
  RawBuffer c0 = ops::temp<unsigned long long>(chunk_capacity, dev), c1 = ops::temp<unsigned long long>(chunk_capacity, dev);
  RawBuffer sizes = ops::temp<long long>(n, dev);
  BfsArgs a;
  a.ro = run.A->row_offsets.as<Index>();
  a.ci = run.A->col_indices.as<ColIndex>();
  a.tro = run.At->row_offsets.as<Index>();
  a.tci = run.At->col_indices.as<ColIndex>();
  a.n = n;
  a.level = reinterpret_cast<long long*>(run.levels);
  a.parent = reinterpret_cast<long long*>(run.parents);
  a.queue[0] = q0.as<int>();
  a.queue[1] = q1.as<int>();
  a.chunks[0] = c0.as<unsigned long long>();
  a.chunks[1] = c1.as<unsigned long long>();
  a.level_sizes = sizes.as<long long>();
  a.st = state.as<BfsState>();
  a.forced = run.direction;

  long long* level = a.level;
  long long* parent = a.parent;
  ops::for_each(n, c.stream, [=] __device__(Index i) {
    level[i] = -1;
    parent[i] = -1;  // as unsigned above every id, for the push step's atomicMin
  });
  init_kernel<<<1, 1, 0, c.stream>>>(a, run.source);
  GEBLAS_CUDA_CHECK_LAUNCH();
  const unsigned grid = step_grid();
  BfsState host{};
  for (;;) {
    block_steps<<<1, Policy::block_threads, 0, c.stream>>>(a);
    GEBLAS_CUDA_CHECK_LAUNCH();
    for (int b = 0; b < Policy::step_batch; ++b) {
      grid_step<<<grid, Policy::grid_threads, 0, c.stream>>>(a);
      GEBLAS_CUDA_CHECK_LAUNCH();
    }
    GEBLAS_CUDA_CHECK(cudaMemcpyAsync(&host, a.st, sizeof(BfsState), cudaMemcpyDeviceToHost, c.stream));
    GEBLAS_CUDA_CHECK(cudaStreamSynchronize(c.stream));
    if (host.done) break;
  }
  run.depth = static_cast<int>(host.depth);
  run.edges_examined = static_cast<double>(host.examined);
  run.level_sizes.assign(static_cast<std::size_t>(host.depth), 0);
  if (host.depth <= state_levels) {
    std::copy(host.first_sizes, host.first_sizes + host.depth, run.level_sizes.begin());
  } else {
    GEBLAS_CUDA_CHECK(cudaMemcpyAsync(run.level_sizes.data(), a.level_sizes,
                                      static_cast<std::size_t>(host.depth) * sizeof(long long),
                                      cudaMemcpyDeviceToHost, c.stream));
    GEBLAS_CUDA_CHECK(cudaStreamSynchronize(c.stream));
  }
  run.reached = 1;
  for (auto s : run.level_sizes) run.reached += s;
}

namespace {

// One element per thread (no grid-stride loop), so that every thread of a block reaches
// __syncthreads_count, which counts the block's new vertices for one atomic add.
__global__ void bfs_level_step_kernel(BfsLevelStep s) {
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  bool fresh = false;
  if (e < s.m * s.k) {
    const GraphVertex y = s.candidates[e];
    fresh = y != LLONG_MAX && s.levels[e] < 0;
    if (fresh) {
      s.levels[e] = s.level;
      s.parents[e] = y;
    }
    s.frontier[e] = fresh ? s.first_row + e / s.k : LLONG_MAX;
  }
  const int count = __syncthreads_count(fresh);
  if (threadIdx.x == 0 && count) atomicAdd(s.reached, static_cast<double>(count));
}

}  // namespace

void bfs_level_step(const BfsLevelStep& s) {
  const ops::Ctx c(s.device);
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(s.reached, 0, sizeof(double), c.stream));
  const std::int64_t total = s.m * s.k;
  if (total == 0) return;
  constexpr int threads = 256;
  bfs_level_step_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads, 0, c.stream>>>(s);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

}  // namespace geblas::detail::cuda::graph
