// PageRank iterations on the GPU (core/graph_kernels.hpp): each iteration is one launch
// that pulls over A' and writes the next iterate, its scaled copy and the L1 change; a
// batch of iterations is queued at once and read back with one synchronisation.
//
// Load balance. Rows of A' are in-degrees, and web and social graphs have rows of
// 10^4-10^5 entries next to a mean of 5-30. A group of `lanes` threads per row (the
// CSR-vector rule of the plain kernel) leaves such a row to a handful of threads that
// run long after the rest of the grid has finished: a directed web graph with a
// 3,445-entry hub took 17x one cuSPARSE SpMV per iteration. Rows longer than
// lanes * long_row_passes are therefore cut into chunks of `chunk` entries, one block
// each (the hub-splitting idea of merge-based SpMV, Merrill & Garland 2016, applied only
// where it is needed); each chunk writes its partial sum, and the last chunk of a row to
// finish (an arrival counter) adds the partials in chunk order, so results do not
// depend on scheduling. The list of long rows is built on the device once per matrix and
// kept in A''s derived cache.
//
// Convergence. The last block of an iteration to finish adds the blocks' L1 changes in
// block order, stores the delta of that iteration and raises a stop flag when it is
// below the tolerance; every later iteration of the batch then returns at once, and the
// host reads the deltas after the batch. So the host waits once per batch, never once
// per iteration, and the iteration that converged is known exactly.
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <string>

#include "core/derived_cache.hpp"
#include "cuda/graph/graph.hpp"
#include "cuda/ops/common.cuh"

namespace geblas::detail::cuda::graph {
namespace {

using ops::Ctx;
using ops::temp;

// 256 threads fill an sm_90 SM at 8 blocks; the short-row grid is capped at 32 blocks
// per SM (4 waves), not 8: with 8, R-MAT scale 20 (1M rows) left every group 62 rows to
// walk one after the other, 4.6x one cuSPARSE SpMV per iteration (H100, 2026-11-25
// 15:25), and the blocks' partial changes are summed by a whole block, so more blocks
// cost little. A row is "long" when its group would loop more than 64 times, the point
// where one row starts to outlast a block's share of an average graph; 2048-entry chunks
// give each of a block's 256 threads 8 entries. Neither is swept yet.
struct PageRankPolicy {
  static constexpr int threads = 256;
  static constexpr int max_lanes = 32;
  static constexpr int blocks_per_sm = 32;
  static constexpr Index long_row_passes = 64;
  static constexpr Index chunk = 2048;
};

// The long rows of A' and their chunks, built once per matrix.
struct HubPlan {
  int lanes = 1;
  Index long_threshold = 0;
  Index long_rows = 0;
  Index chunks = 0;
  RawBuffer rows;         // Index[long_rows]
  RawBuffer chunk_first;  // Index[long_rows + 1]: chunks of long row k are [first[k], first[k+1])
};

__global__ void long_row_flags(Index m, const Index* ro, Index threshold, std::uint8_t* flags) {
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += Index(gridDim.x) * blockDim.x)
    flags[i] = ro[i + 1] - ro[i] > threshold;
}

__global__ void chunk_counts(Index k, const Index* rows, const Index* ro, Index* counts) {
  for (Index j = Index(blockIdx.x) * blockDim.x + threadIdx.x; j < k; j += Index(gridDim.x) * blockDim.x) {
    const Index len = ro[rows[j] + 1] - ro[rows[j]];
    counts[j] = (len + PageRankPolicy::chunk - 1) / PageRankPolicy::chunk;
  }
}

HubPlan build_plan(const SparseStorage& At) {
  HubPlan p;
  const Index m = At.nrows;
  const double mean = m ? static_cast<double>(At.nvals) / static_cast<double>(m) : 0.0;
  while (p.lanes < PageRankPolicy::max_lanes && p.lanes < mean) p.lanes *= 2;
  p.long_threshold = std::max<Index>(p.lanes * PageRankPolicy::long_row_passes, 1);
  if (m == 0) return p;
  Ctx c(At.device);
  const Index* ro = At.row_offsets.as<Index>();
  RawBuffer flags = temp<std::uint8_t>(m, c.device);
  long_row_flags<<<ops::blocks_for(m), ops::LaunchPolicy::threads, 0, c.stream>>>(m, ro, p.long_threshold,
                                                                                   flags.as<std::uint8_t>());
  GEBLAS_CUDA_CHECK_LAUNCH();
  RawBuffer selected = temp<Index>(m, c.device), count = temp<Index>(1, c.device);
  thrust::counting_iterator<Index> ids(0);
  std::size_t bytes = 0;
  GEBLAS_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, ids, flags.as<std::uint8_t>(), selected.as<Index>(),
                                               count.as<Index>(), m, c.stream));
  RawBuffer scratch(bytes, c.device);
  GEBLAS_CUDA_CHECK(cub::DeviceSelect::Flagged(scratch.data(), bytes, ids, flags.as<std::uint8_t>(),
                                               selected.as<Index>(), count.as<Index>(), m, c.stream));
  read_to_host(&p.long_rows, count.data(), sizeof(Index), c.stream);
  if (p.long_rows == 0) return p;
  p.rows = temp<Index>(p.long_rows, c.device);
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(p.rows.data(), selected.data(), static_cast<std::size_t>(p.long_rows) * sizeof(Index),
                                    cudaMemcpyDeviceToDevice, c.stream));
  p.chunk_first = temp<Index>(p.long_rows + 1, c.device);
  chunk_counts<<<ops::blocks_for(p.long_rows), ops::LaunchPolicy::threads, 0, c.stream>>>(
      p.long_rows, p.rows.as<Index>(), ro, p.chunk_first.as<Index>());
  GEBLAS_CUDA_CHECK_LAUNCH();
  p.chunks = ops::counts_to_offsets(p.chunk_first.as<Index>(), p.long_rows, c.stream);
  return p;
}

std::shared_ptr<const HubPlan> hub_plan(const SparseStorage& At) {
  return derived<HubPlan>(At, "pagerank_hub_plan", [&] { return build_plan(At); });
}

// Per-batch control words, zeroed before the batch.
struct Control {
  unsigned stop;          // an iteration of this batch converged: later ones return at once
  unsigned blocks_done;   // blocks of the running iteration that have finished
};

template <class V>
struct StepArgs {
  Index m;
  const Index* ro;
  const ColIndex* ci;
  const V* w;      // null: unweighted
  const V* scale;
  const V* tele;   // null: uniform
  V uniform;
  const V* x;
  const V* xs;
  V* xn;
  V* xsn;
  int lanes;
  Index long_threshold;
  unsigned short_blocks;  // blocks [0, short_blocks) take the short rows
  Index long_rows;
  Index chunks;
  const Index* long_list;
  const Index* chunk_first;
  unsigned* arrivals;     // per long row
  double* chunk_partials; // per chunk
  double* block_changes;  // per block
  Control* control;
  double* delta_out;      // this iteration's slot
  double tolerance;
};

__device__ inline double block_sum(double v, double* shared) {
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = v;
  __syncthreads();
  double total = 0;
  if (threadIdx.x == 0)
    for (int wi = 0; wi < PageRankPolicy::threads / 32; ++wi) total += shared[wi];
  __syncthreads();
  return total;  // valid in thread 0
}

template <class V>
__device__ inline void finish_row(const StepArgs<V>& a, Index i, V acc, double& change) {
  const V y = (a.tele ? a.tele[i] : a.uniform) + acc;
  a.xn[i] = y;
  a.xsn[i] = y * a.scale[i];
  change += fabs(static_cast<double>(y) - static_cast<double>(a.x[i]));
}

template <class V>
__global__ void __launch_bounds__(PageRankPolicy::threads) pagerank_step(StepArgs<V> a) {
  if (*reinterpret_cast<volatile unsigned*>(&a.control->stop)) return;
  __shared__ double shared[PageRankPolicy::threads / 32];
  __shared__ bool last;
  double change = 0;
  if (blockIdx.x < a.short_blocks) {
    // Short rows: a group of `lanes` threads per row; groups never straddle warps, and
    // the loop runs while any group of the warp has a row so that all lanes shuffle.
    const int lanes = a.lanes;
    const Index gid = Index(blockIdx.x) * blockDim.x + threadIdx.x;
    const int lane = static_cast<int>(gid % lanes);
    const Index stride = Index(a.short_blocks) * blockDim.x / lanes;
    const Index warp_first = (gid - threadIdx.x % 32) / lanes;
    for (Index i = gid / lanes, w0 = warp_first; w0 < a.m; i += stride, w0 += stride) {
      V acc = V(0);
      bool mine = false;
      if (i < a.m) {
        const Index b = a.ro[i], e = a.ro[i + 1];
        mine = e - b <= a.long_threshold;
        if (mine) {
          if (a.w)
            for (Index p = b + lane; p < e; p += lanes) acc += a.w[p] * a.xs[a.ci[p]];
          else
            for (Index p = b + lane; p < e; p += lanes) acc += a.xs[a.ci[p]];
        }
      }
      for (int off = lanes / 2; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off, lanes);
      if (lane == 0 && mine) finish_row(a, i, acc, change);
    }
  } else {
    // Chunks of long rows, one block per chunk.
    const Index chunk_blocks = Index(gridDim.x) - a.short_blocks;
    for (Index c = Index(blockIdx.x) - a.short_blocks; c < a.chunks; c += chunk_blocks) {
      Index lo = 0, hi = a.long_rows;  // the long row k with chunk_first[k] <= c < chunk_first[k + 1]
      while (hi - lo > 1) {
        const Index mid = (lo + hi) / 2;
        if (a.chunk_first[mid] <= c) lo = mid;
        else hi = mid;
      }
      const Index k = lo, row = a.long_list[k];
      const Index b = a.ro[row] + (c - a.chunk_first[k]) * PageRankPolicy::chunk;
      const Index e = min(a.ro[row + 1], b + PageRankPolicy::chunk);
      double part = 0;
      if (a.w)
        for (Index p = b + threadIdx.x; p < e; p += blockDim.x) part += static_cast<double>(a.w[p] * a.xs[a.ci[p]]);
      else
        for (Index p = b + threadIdx.x; p < e; p += blockDim.x) part += static_cast<double>(a.xs[a.ci[p]]);
      part = block_sum(part, shared);
      const Index first = a.chunk_first[k], pieces = a.chunk_first[k + 1] - first;
      if (threadIdx.x == 0) {
        a.chunk_partials[c] = part;
        __threadfence();
        last = atomicAdd(&a.arrivals[k], 1u) == static_cast<unsigned>(pieces - 1);
      }
      __syncthreads();
      if (last) {
        // The row's partials, read by the whole block (a serial loop of dependent L2
        // reads cost microseconds per hundred partials); same order every time.
        double total = 0;
        for (Index q = threadIdx.x; q < pieces; q += blockDim.x) total += __ldcg(&a.chunk_partials[first + q]);
        total = block_sum(total, shared);
        if (threadIdx.x == 0) {
          a.arrivals[k] = 0;
          finish_row(a, row, static_cast<V>(total), change);
        }
      }
      __syncthreads();
    }
  }
  // The iteration's L1 change: the last block to finish adds the blocks' sums, all its
  // threads reading (one thread reading a thousand partials one after the other cost
  // more than the iteration: the H100 run of 2026-11-25 14:59 took 50-77 us per
  // iteration on graphs whose SpMV takes 20-30 us), in the same order every time.
  const double mine = block_sum(change, shared);
  if (threadIdx.x == 0) {
    a.block_changes[blockIdx.x] = mine;
    __threadfence();
    last = atomicAdd(&a.control->blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last) {
    double part = 0;
    for (unsigned bi = threadIdx.x; bi < gridDim.x; bi += blockDim.x) part += __ldcg(&a.block_changes[bi]);
    const double delta = block_sum(part, shared);
    if (threadIdx.x == 0) {
      *a.delta_out = delta;
      a.control->blocks_done = 0;
      if (delta < a.tolerance) a.control->stop = 1;
    }
  }
}

template <class V>
__global__ void initialise_slot(Index m, const V* start, V uniform, const V* scale, V* x, V* xs) {
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += Index(gridDim.x) * blockDim.x) {
    const V v = start ? start[i] : uniform;
    x[i] = v;
    xs[i] = v * scale[i];
  }
}

template <class V>
PageRankBatch run_batch(const PageRankIterate& a, int current, int count) {
  const SparseStorage& At = *a.At;
  const std::shared_ptr<const HubPlan> plan = hub_plan(At);
  Ctx c(At.device);
  PageRankBatch out;
  out.current = current;
  const Index m = At.nrows;
  if (a.initialise && m > 0) {
    initialise_slot<V><<<ops::blocks_for(m), ops::LaunchPolicy::threads, 0, c.stream>>>(
        m, static_cast<const V*>(a.start), static_cast<V>(a.start_uniform), static_cast<const V*>(a.scale),
        static_cast<V*>(a.x[current]), static_cast<V*>(a.xs[current]));
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
  if (count <= 0) return out;
  int sms = 0;
  GEBLAS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c.device.ordinal()));
  unsigned short_blocks = ops::blocks_for(std::max<Index>(m, 1) * plan->lanes, PageRankPolicy::threads);
  short_blocks = std::min<unsigned>(short_blocks, static_cast<unsigned>(std::max(sms, 1) * PageRankPolicy::blocks_per_sm));
  const unsigned chunk_blocks =
      static_cast<unsigned>(std::min<Index>(plan->chunks, Index(std::max(sms, 1)) * PageRankPolicy::blocks_per_sm));
  const unsigned grid = short_blocks + chunk_blocks;

  RawBuffer deltas = temp<double>(count, c.device);
  RawBuffer control = temp<Control>(1, c.device);
  RawBuffer block_changes = temp<double>(grid, c.device);
  RawBuffer chunk_partials = temp<double>(plan->chunks, c.device);
  RawBuffer arrivals = temp<unsigned>(plan->long_rows, c.device);
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(control.data(), 0, sizeof(Control), c.stream));
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(deltas.data(), 0, deltas.bytes(), c.stream));
  if (arrivals.bytes()) GEBLAS_CUDA_CHECK(cudaMemsetAsync(arrivals.data(), 0, arrivals.bytes(), c.stream));

  StepArgs<V> s{};
  s.m = m;
  s.ro = At.row_offsets.as<Index>();
  s.ci = At.col_indices.as<ColIndex>();
  s.w = a.weighted ? At.values.as<V>() : nullptr;
  s.scale = static_cast<const V*>(a.scale);
  s.tele = static_cast<const V*>(a.teleport);
  s.uniform = static_cast<V>(a.teleport_uniform);
  s.lanes = plan->lanes;
  s.long_threshold = plan->long_threshold;
  s.short_blocks = short_blocks;
  s.long_rows = plan->long_rows;
  s.chunks = plan->chunks;
  s.long_list = plan->rows.as<Index>();
  s.chunk_first = plan->chunk_first.as<Index>();
  s.arrivals = arrivals.as<unsigned>();
  s.chunk_partials = chunk_partials.as<double>();
  s.block_changes = block_changes.as<double>();
  s.control = control.as<Control>();
  // with the changes left on the device no iteration of the batch may stop early
  s.tolerance = a.deltas_on_device ? -1.0 : a.tolerance;
  for (int j = 0; j < count; ++j) {
    const int from = (current + j) & 1;
    s.x = static_cast<const V*>(a.x[from]);
    s.xs = static_cast<const V*>(a.xs[from]);
    s.xn = static_cast<V*>(a.x[1 - from]);
    s.xsn = static_cast<V*>(a.xs[1 - from]);
    s.delta_out = (a.deltas_on_device ? a.deltas_on_device : deltas.as<double>()) + j;
    pagerank_step<V><<<grid, PageRankPolicy::threads, 0, c.stream>>>(s);
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
  if (a.deltas_on_device) {
    out.current = (current + count) & 1;
    return out;
  }
  std::vector<double> host(static_cast<std::size_t>(count));
  read_to_host(host.data(), deltas.data(), host.size() * sizeof(double), c.stream);
  for (int j = 0; j < count; ++j) {
    out.deltas.push_back(host[static_cast<std::size_t>(j)]);
    out.current = 1 - out.current;
    if (host[static_cast<std::size_t>(j)] < a.tolerance) break;
  }
  return out;
}

}  // namespace

PageRankBatch pagerank_iterate(const PageRankIterate& a, int current, int count) {
  switch (a.At->type) {
    case TypeId::float32: return run_batch<float>(a, current, count);
    case TypeId::float64: return run_batch<double>(a, current, count);
    default: throw InvalidValue("pagerank iterations on " + a.At->device.str() + ": the matrix must hold float or double");
  }
}

}  // namespace geblas::detail::cuda::graph
