// Single-source shortest paths (weights >= 0) on the GPU: the near-far worklist of
// Davidson, Baxter, Garland & Owens (IPDPS 2014), with the round loop on the device
// (traversal.cuh): one block runs small steps in a loop, grid-wide step kernels the
// large ones, and the host synchronises once per batch.
//
// The state machine, one step at a time:
//   expand: relax the out-edges of the frontier (a warp per vertex, atomicMin on the
//           distance's bits, which order like the values for non-negative floats);
//           an improved vertex below the threshold joins the next frontier (once per
//           step, by a stamp), one at or above it is appended to the far pile;
//   minimum: when the frontier is empty, the smallest waiting distance m;
//   split:  the threshold becomes m + delta and the pile is divided into the next
//           frontier and the pile that stays.
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

enum Mode : int { expand = 0, minimum = 1, split = 2 };

struct SsspState {
  double threshold;                 // the frontier takes distances below this
  double prev_threshold;            // the threshold before the last split
  unsigned long long far_min_bits;  // smallest waiting distance (bits)
  long long frontier_size;
  unsigned long long near_size;     // appended to the next frontier by the running step
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
__device__ void append_near(const SsspArgs<T>& a, int v, int step, int cur) {
  if (atomicExch(a.stamp + v, step) == step) return;
  const unsigned long long slot = atomicAdd(&a.st->near_size, 1ULL);
  a.queue[cur ^ 1][slot] = v;  // at most n: one append per vertex and step
}

template <class T>
__device__ void append_far(const SsspArgs<T>& a, int v, int pile) {
  const unsigned long long slot = atomicAdd(&a.st->far_size[pile], 1ULL);
  if (slot < a.far_capacity) a.far[pile][slot] = v;
  else a.st->overflow = 1;
}

// One step, by `count` threads numbered from `id` (a multiple of 32 of them).
template <class T>
__device__ void run_step(const SsspArgs<T>& a, long long id, long long count) {
  const volatile SsspState* s = a.st;
  const int mode = s->mode, step = s->step, cur = s->cur, far_cur = s->far_cur;
  const int lane = threadIdx.x & 31;
  const T inf = std::numeric_limits<T>::infinity();
  if (mode == expand) {
    const double threshold = s->threshold;
    const long long fsize = s->frontier_size;
    unsigned long long edges = 0;
    for (long long f = id / 32; f < fsize; f += count / 32) {
      const int u = __ldcg(a.queue[cur] + f);
      const T du = __ldcg(a.dist + u);
      const Index b = a.ro[u], e = a.ro[u + 1];
      if (lane == 0) edges += static_cast<unsigned long long>(e - b);
      for (Index k = b + lane; k < e; k += 32) {
        const int v = a.ci[k];
        const T nd = du + a.w[k];
        if (!(nd < __ldcg(a.dist + v)) || !lower(a.dist + v, nd)) continue;
        if (static_cast<double>(nd) < threshold) append_near(a, v, step, cur);
        else append_far(a, v, far_cur);
      }
    }
    edges = warp_sum(edges);
    if (lane == 0 && edges) atomicAdd(&a.st->edges, edges);
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
      append_near(a, v, step, cur);
    } else if (atomicExch(a.stamp + v, step) != step) {  // keep each vertex once
      append_far(a, v, far_cur ^ 1);
    }
  }
}

template <class T>
__device__ void decide(const SsspArgs<T>& a) {
  volatile SsspState* s = a.st;
  long long work = s->frontier_size;
  if (s->mode != expand)
    work = s->overflow ? a.n : static_cast<long long>(s->far_size[s->far_cur]);
  s->on_grid = work > Policy::small_vertices;
}

// After a step (one thread).
template <class T>
__device__ void finish(const SsspArgs<T>& a) {
  volatile SsspState* s = a.st;
  const T inf = std::numeric_limits<T>::infinity();
  s->step = s->step + 1;
  if (s->mode == expand) {
    s->expansions = s->expansions + 1;
    s->frontier_size = static_cast<long long>(s->near_size);
    s->near_size = 0;
    s->cur = s->cur ^ 1;
    if (s->frontier_size == 0) {
      if (s->far_size[s->far_cur] == 0 && !s->overflow) {
        s->done = 1;
        return;
      }
      s->mode = minimum;
      s->far_min_bits = bits_of(inf);
    }
  } else if (s->mode == minimum) {
    if (s->far_min_bits == bits_of(inf)) {
      s->done = 1;
      return;
    }
    const double m = static_cast<double>(from_bits<T>(s->far_min_bits));
    s->prev_threshold = s->threshold;
    s->threshold = m + a.delta;
    if (!(s->threshold > m)) s->threshold = nextafter(m, static_cast<double>(INFINITY));
    s->mode = split;
  } else {
    s->frontier_size = static_cast<long long>(s->near_size);
    s->near_size = 0;
    s->cur = s->cur ^ 1;
    s->far_size[s->far_cur] = 0;
    s->far_cur = s->far_cur ^ 1;
    s->overflow = 0;
    s->mode = expand;  // the smallest waiting vertex is below the new threshold
  }
  decide(a);
}

template <class T>
__global__ void init_kernel(SsspArgs<T> a, long long source) {
  a.dist[source] = T{0};
  a.queue[0][0] = static_cast<int>(source);
  SsspState* s = a.st;
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

template <class T>
__global__ void grid_step(SsspArgs<T> a) {
  const volatile SsspState* s = a.st;
  if (s->done || !s->on_grid) return;
  run_step(a, static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x,
           static_cast<long long>(gridDim.x) * blockDim.x);
}

template <class T>
__global__ void grid_finish(SsspArgs<T> a) {
  if (!a.st->done && a.st->on_grid) finish(a);
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
      grid_finish<T><<<1, 1, 0, c.stream>>>(a);
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
