// Single-source shortest paths (weights >= 0) on the GPU: the near-far worklist of
// Davidson, Baxter, Garland & Owens (IPDPS 2014), with the round loop on the device
// (traversal.cuh): one block runs small steps in a loop, grid-wide step kernels the
// large ones, and the host synchronises once per batch.
//
// The state machine, one step at a time:
//   expand: relax the out-edges of the frontier (a warp per vertex, and a warp per
//           chunk of a heavy vertex's edges, as in bfs.cu; atomicMin on the distance's
//           bits, which order like the values for non-negative floats); an improved
//           vertex below the threshold joins the next frontier (once per step, by a
//           stamp), one at or above it is appended to the far pile;
//   split:  when the frontier is empty, the threshold moves up by delta and the pile is
//           divided into the next frontier and the pile that stays;
//   minimum: only when that split found nothing below the new threshold (the next
//           waiting distance is further up): the smallest waiting distance m, and the
//           split is repeated with the threshold m + delta.
// On a social graph every bucket has vertices, so a bucket costs its expansions and one
// split; a road graph's sparse far buckets pay the extra minimum where they need it.
// A step stays in the single-block loop only while both its vertices and their out-
// edges are few (the expansion counts the edges of what it appends), so a bucket of a
// few thousand hub-adjacent vertices goes to the grid.
// Invariant: every vertex with a finite distance at or above the threshold is in the
// pile (it was appended at its last improvement), so stale entries are dropped by
// comparing with the previous threshold, and when the pile overflows its buffer the
// minimum and split steps scan every vertex instead. Data other threads of the same
// kernel write (distances, queues, piles) are loaded with __ldcg (L2), the state
// through volatile, so the single-block loop never reads a stale L1 line.
#include <cmath>
#include <limits>

#include "cuda/graph/graph.hpp"
#include "cuda/graph/traversal.cuh"
#include "cuda/ops/common.cuh"

namespace geblas::detail::cuda::graph {
namespace {

using Policy = TraversalLaunchPolicy;

// As in bfs.cu: a frontier vertex with more than heavy_edges out-edges is relaxed in
// chunks of chunk_edges, a warp each, listed when the vertex joins the frontier.
constexpr Index heavy_edges = 256;
constexpr Index chunk_edges = 256;

enum Mode : int { expand = 0, minimum = 1, split = 2 };

struct SsspState {
  double threshold;                 // the frontier takes distances below this
  double prev_threshold;            // the threshold before the last split
  unsigned long long far_min_bits;  // smallest waiting distance (bits)
  long long frontier_size;
  unsigned long long frontier_edges;   // out-edges of the frontier
  unsigned long long frontier_chunks;  // chunks of the frontier's heavy vertices
  unsigned long long near_size;     // appended to the next frontier by the running step
  unsigned long long near_edges;    // their out-edges
  unsigned long long near_chunks;   // their chunks
  unsigned long long far_size[2];   // appended to each pile (may pass the capacity)
  unsigned long long edges;         // entries relaxed
  long long expansions;
  int cur;       // the queue holding the frontier
  int far_cur;   // the pile expansions append to
  int step;      // id of the running step, for the stamps
  int mode;
  int overflow;  // the current pile lost entries: scan every vertex
  int on_grid;
  int done;
  unsigned blocks_done;  // blocks of the running grid step that have finished
};

template <class T>
struct SsspArgs {
  const Index* ro;
  const ColIndex* ci;
  const T* w;
  Index n;
  T* dist;
  int* stamp;  // the last step that queued the vertex
  int* queue[2];
  unsigned long long* chunks[2];  // with queue[q]: (vertex << 32) | chunk index, per heavy vertex
  int* far[2];
  unsigned long long far_capacity;
  SsspState* st;
  double delta;
};

__device__ inline unsigned long long bits_of(float x) { return __float_as_uint(x); }
__device__ inline unsigned long long bits_of(double x) {
  return static_cast<unsigned long long>(__double_as_longlong(x));
}
template <class T>
__device__ inline T from_bits(unsigned long long b);
template <>
__device__ inline float from_bits<float>(unsigned long long b) {
  return __uint_as_float(static_cast<unsigned>(b));
}
template <>
__device__ inline double from_bits<double>(unsigned long long b) {
  return __longlong_as_double(static_cast<long long>(b));
}

// dist = min(dist, v); true when v was smaller. Signed-integer order of the bits is the
// value order for non-negative floats (and +inf), which the algorithm layer checked.
__device__ inline bool lower(float* p, float v) {
  return v < __int_as_float(atomicMin(reinterpret_cast<int*>(p), __float_as_int(v)));
}
__device__ inline bool lower(double* p, double v) {
  return v < __longlong_as_double(atomicMin(reinterpret_cast<long long*>(p), __double_as_longlong(v)));
}

__device__ inline unsigned long long warp_min(unsigned long long x) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const unsigned long long y = __shfl_down_sync(0xffffffffu, x, offset);
    x = y < x ? y : x;
  }
  return x;
}

template <class T>
__device__ void append_far(const SsspArgs<T>& a, int v, int pile) {
  const unsigned long long slot = atomicAdd(&a.st->far_size[pile], 1ULL);
  if (slot < a.far_capacity) a.far[pile][slot] = v;
  else a.st->overflow = 1;
}

// Lists the chunks of v's out-edges in `chunks` when v is heavy; its out-degree.
template <class T>
__device__ Index list_chunks(const SsspArgs<T>& a, int v, unsigned long long* chunks, unsigned long long* count) {
  const Index deg = a.ro[v + 1] - a.ro[v];
  if (deg > heavy_edges) {
    const auto pieces = static_cast<unsigned long long>((deg + chunk_edges - 1) / chunk_edges);
    const unsigned long long first = atomicAdd(count, pieces);
    for (unsigned long long j = 0; j < pieces; ++j) chunks[first + j] = (static_cast<unsigned long long>(v) << 32) | j;
  }
  return deg;
}

// `edges` counts the out-edges of what the calling thread appends.
template <class T>
__device__ void append_near(const SsspArgs<T>& a, int v, int step, int cur, unsigned long long& edges) {
  if (atomicExch(a.stamp + v, step) == step) return;
  const unsigned long long slot = atomicAdd(&a.st->near_size, 1ULL);
  a.queue[cur ^ 1][slot] = v;  // at most n: one append per vertex and step
  edges += static_cast<unsigned long long>(list_chunks(a, v, a.chunks[cur ^ 1], &a.st->near_chunks));
}

// Lane-0 sum of a warp's appended out-edges into the state; every lane calls it.
__device__ inline void add_near_edges(SsspState* st, unsigned long long edges) {
  edges = warp_sum(edges);
  if ((threadIdx.x & 31) == 0 && edges) atomicAdd(&st->near_edges, edges);
}

// Relaxes the out-edges [b, e) of frontier vertex u, one per lane.
template <class T>
__device__ void relax_edges(const SsspArgs<T>& a, int u, T du, Index b, Index e, double threshold, int step, int cur,
                            int far_cur, unsigned long long& appended_edges) {
  for (Index k = b + (threadIdx.x & 31); k < e; k += 32) {
    const int v = a.ci[k];
    const T nd = du + a.w[k];
    if (!(nd < __ldcg(a.dist + v)) || !lower(a.dist + v, nd)) continue;
    if (static_cast<double>(nd) < threshold) append_near(a, v, step, cur, appended_edges);
    else append_far(a, v, far_cur);
  }
}

// One step, by `count` threads numbered from `id` (a multiple of 32 of them).
template <class T>
__device__ void run_step(const SsspArgs<T>& a, long long id, long long count) {
  const volatile SsspState* s = a.st;
  const int mode = s->mode, step = s->step, cur = s->cur, far_cur = s->far_cur;
  const int lane = threadIdx.x & 31;
  const T inf = std::numeric_limits<T>::infinity();
  unsigned long long appended_edges = 0;
  if (mode == expand) {
    const double threshold = s->threshold;
    const long long fsize = s->frontier_size;
    const long long fchunks = static_cast<long long>(s->frontier_chunks);
    unsigned long long edges = 0;
    for (long long f = id / 32; f < fsize; f += count / 32) {
      const int u = __ldcg(a.queue[cur] + f);
      const Index b = a.ro[u], e = a.ro[u + 1];
      if (e - b > heavy_edges) continue;  // relaxed by its chunks below
      if (lane == 0) edges += static_cast<unsigned long long>(e - b);
      relax_edges(a, u, __ldcg(a.dist + u), b, e, threshold, step, cur, far_cur, appended_edges);
    }
    for (long long c = id / 32; c < fchunks; c += count / 32) {
      const unsigned long long piece = __ldcg(a.chunks[cur] + c);
      const int u = static_cast<int>(piece >> 32);
      const Index b = a.ro[u] + static_cast<Index>(piece & 0xffffffffULL) * chunk_edges;
      const Index e = min(a.ro[u + 1], b + chunk_edges);
      if (lane == 0) edges += static_cast<unsigned long long>(e - b);
      relax_edges(a, u, __ldcg(a.dist + u), b, e, threshold, step, cur, far_cur, appended_edges);
    }
    edges = warp_sum(edges);
    if (lane == 0 && edges) atomicAdd(&a.st->edges, edges);
    add_near_edges(a.st, appended_edges);
    return;
  }
  // minimum and split read the pile, or every vertex after an overflow.
  const bool all = s->overflow != 0;
  const unsigned long long stored = s->far_size[far_cur];
  const long long items = all ? a.n : static_cast<long long>(stored < a.far_capacity ? stored : a.far_capacity);
  if (mode == minimum) {
    const double threshold = s->threshold;
    unsigned long long best = bits_of(inf);
    for (long long i = id; i < items; i += count) {
      const int v = all ? static_cast<int>(i) : __ldcg(a.far[far_cur] + i);
      const T d = __ldcg(a.dist + v);
      if (static_cast<double>(d) >= threshold && d < inf && bits_of(d) < best) best = bits_of(d);
    }
    best = warp_min(best);
    if (lane == 0 && best != bits_of(inf)) atomicMin(&a.st->far_min_bits, best);
    return;
  }
  const double threshold = s->threshold, prev = s->prev_threshold;
  for (long long i = id; i < items; i += count) {
    const int v = all ? static_cast<int>(i) : __ldcg(a.far[far_cur] + i);
    const T d = __ldcg(a.dist + v);
    if (!(static_cast<double>(d) >= prev) || !(d < inf)) continue;  // expanded since, or unreached
    if (static_cast<double>(d) < threshold) {
      append_near(a, v, step, cur, appended_edges);
    } else if (atomicExch(a.stamp + v, step) != step) {  // keep each vertex once
      append_far(a, v, far_cur ^ 1);
    }
  }
  add_near_edges(a.st, appended_edges);
}

template <class T>
__device__ void decide(const SsspArgs<T>& a) {
  volatile SsspState* s = a.st;
  if (s->mode == expand) {
    s->on_grid = s->frontier_size > Policy::small_vertices ||
                 s->frontier_edges > static_cast<unsigned long long>(Policy::small_edges);
  } else {
    const long long work = s->overflow ? a.n : static_cast<long long>(s->far_size[s->far_cur]);
    s->on_grid = work > Policy::small_vertices;
  }
}

// The appended vertices become the frontier.
__device__ inline void take_near(volatile SsspState* s) {
  s->frontier_size = static_cast<long long>(s->near_size);
  s->frontier_edges = s->near_edges;
  s->frontier_chunks = s->near_chunks;
  s->near_size = 0;
  s->near_edges = 0;
  s->near_chunks = 0;
  s->cur = s->cur ^ 1;
}

// Sets the threshold to m + delta (at least the next double above m) for a split.
template <class T>
__device__ inline void raise_threshold(const SsspArgs<T>& a, volatile SsspState* s, double m) {
  s->prev_threshold = s->threshold;
  double t = m + a.delta;
  if (!(t > m)) t = nextafter(m, static_cast<double>(INFINITY));
  s->threshold = t;
  s->mode = split;
}

// After a step (one thread).
template <class T>
__device__ void finish(const SsspArgs<T>& a) {
  volatile SsspState* s = a.st;
  const T inf = std::numeric_limits<T>::infinity();
  s->step = s->step + 1;
  if (s->mode == expand) {
    s->expansions = s->expansions + 1;
    take_near(s);
    if (s->frontier_size == 0) {
      if (s->far_size[s->far_cur] == 0 && !s->overflow) {
        s->done = 1;
        return;
      }
      raise_threshold(a, s, s->threshold);  // the next bucket, guessed to be occupied
    }
  } else if (s->mode == minimum) {
    if (s->far_min_bits == bits_of(inf)) {
      s->done = 1;
      return;
    }
    raise_threshold(a, s, static_cast<double>(from_bits<T>(s->far_min_bits)));
  } else {
    take_near(s);
    s->far_size[s->far_cur] = 0;
    s->far_cur = s->far_cur ^ 1;
    s->overflow = 0;  // a split keeps each vertex once: the new pile holds at most n
    if (s->frontier_size > 0) {
      s->mode = expand;
    } else if (s->far_size[s->far_cur] == 0) {
      s->done = 1;
      return;
    } else {
      s->mode = minimum;  // the guessed bucket was empty: find the next occupied one
      s->far_min_bits = bits_of(inf);
    }
  }
  decide(a);
}

template <class T>
__global__ void init_kernel(SsspArgs<T> a, long long source) {
  a.dist[source] = T{0};
  a.queue[0][0] = static_cast<int>(source);
  SsspState* s = a.st;
  s->frontier_chunks = 0;
  s->near_chunks = 0;
  s->frontier_edges =
      static_cast<unsigned long long>(list_chunks(a, static_cast<int>(source), a.chunks[0], &s->near_chunks));
  s->frontier_chunks = s->near_chunks;
  s->near_chunks = 0;
  s->near_edges = 0;
  s->blocks_done = 0;
  s->threshold = a.delta;
  s->prev_threshold = 0;
  s->far_min_bits = 0;
  s->frontier_size = 1;
  s->near_size = 0;
  s->far_size[0] = s->far_size[1] = 0;
  s->edges = 0;
  s->expansions = 0;
  s->cur = 0;
  s->far_cur = 0;
  s->step = 1;  // stamps start at 0
  s->mode = expand;
  s->overflow = 0;
  s->done = 0;
  decide(a);
}

template <class T>
__global__ void __launch_bounds__(Policy::block_threads) block_steps(SsspArgs<T> a) {
  __shared__ int stop;
  const volatile SsspState* s = a.st;
  for (;;) {
    if (threadIdx.x == 0) stop = s->done || s->on_grid;
    __syncthreads();
    if (stop) return;
    run_step(a, threadIdx.x, blockDim.x);
    __syncthreads();
    if (threadIdx.x == 0) finish(a);
    __syncthreads();
  }
}

// Runs the next step whatever its size once the rounds have gone to the grid (as in
// bfs.cu); the last block to finish advances the state.
template <class T>
__global__ void grid_step(SsspArgs<T> a) {
  const volatile SsspState* s = a.st;
  if (s->done) return;
  run_step(a, static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x,
           static_cast<long long>(gridDim.x) * blockDim.x);
  if (last_block_of_step(&a.st->blocks_done)) finish(a);
}

template <class T>
void near_far(SsspRun& run) {
  const ops::Ctx c(run.A->device);
  const Device dev = run.A->device;
  const Index n = run.A->nrows;
  const Index capacity = 2 * n > 1024 ? 2 * n : 1024;  // at least n: a split keeps each vertex once
  RawBuffer state = ops::temp<SsspState>(1, dev);
  RawBuffer stamps = ops::temp<int>(n, dev);
  RawBuffer q0 = ops::temp<int>(n, dev), q1 = ops::temp<int>(n, dev);
  // A frontier holds each vertex at most once, so its heavy vertices' chunks number at
  // most nnz / chunk_edges + nnz / heavy_edges (as in bfs.cu).
  const Index chunk_capacity = run.A->nvals / chunk_edges + run.A->nvals / heavy_edges + 1;
  RawBuffer c0 = ops::temp<unsigned long long>(chunk_capacity, dev),
            c1 = ops::temp<unsigned long long>(chunk_capacity, dev);
  RawBuffer f0 = ops::temp<int>(capacity, dev), f1 = ops::temp<int>(capacity, dev);
  SsspArgs<T> a;
  a.ro = run.A->row_offsets.as<Index>();
  a.ci = run.A->col_indices.as<ColIndex>();
  a.w = run.A->values.as<T>();
  a.n = n;
  a.dist = static_cast<T*>(run.distances);
  a.stamp = stamps.as<int>();
  a.queue[0] = q0.as<int>();
  a.queue[1] = q1.as<int>();
  a.chunks[0] = c0.as<unsigned long long>();
  a.chunks[1] = c1.as<unsigned long long>();
  a.far[0] = f0.as<int>();
  a.far[1] = f1.as<int>();
  a.far_capacity = static_cast<unsigned long long>(capacity);
  a.st = state.as<SsspState>();
  a.delta = run.delta;

  T* dist = a.dist;
  int* stamp = a.stamp;
  ops::for_each(n, c.stream, [=] __device__(Index i) {
    dist[i] = std::numeric_limits<T>::infinity();
    stamp[i] = 0;
  });
  init_kernel<T><<<1, 1, 0, c.stream>>>(a, run.source);
  GEBLAS_CUDA_CHECK_LAUNCH();
  const unsigned grid = step_grid();
  SsspState host{};
  for (;;) {
    block_steps<T><<<1, Policy::block_threads, 0, c.stream>>>(a);
    GEBLAS_CUDA_CHECK_LAUNCH();
    for (int b = 0; b < Policy::step_batch; ++b) {
      grid_step<T><<<grid, Policy::grid_threads, 0, c.stream>>>(a);
      GEBLAS_CUDA_CHECK_LAUNCH();
    }
    GEBLAS_CUDA_CHECK(cudaMemcpyAsync(&host, a.st, sizeof(SsspState), cudaMemcpyDeviceToHost, c.stream));
    GEBLAS_CUDA_CHECK(cudaStreamSynchronize(c.stream));
    if (host.done) break;
  }
  run.rounds = static_cast<int>(host.expansions);
  run.edges_relaxed = static_cast<double>(host.edges);
}

}  // namespace

void sssp(SsspRun& run) {
  switch (run.A->type) {
    case TypeId::float32: return near_far<float>(run);
    case TypeId::float64: return near_far<double>(run);
    default: throw InvalidValue("sssp on cuda: weights must be float or double");
  }
}

}  // namespace geblas::detail::cuda::graph
