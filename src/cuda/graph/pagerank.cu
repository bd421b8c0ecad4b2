// PageRank iterations on the GPU (core/graph_kernels.hpp): each iteration is one launch
// that pulls over A' and writes the next iterate, its scaled copy and the L1 change; a
// batch of iterations is queued at once and read back with one synchronisation.
//
// Load balance. Rows of A' are in-degrees: social and R-MAT graphs put rows of 10^4-10^5
// entries next to a median of a few, and many empty rows. The work is cut by rows plus
// entries, not by rows: tile t holds the rows i with i + ro[i] in [t T, (t + 1) T)
// (ro = A''s row offsets, T = tile_items), a fixed amount of work whatever the rows'
// lengths, in the spirit of merge-based SpMV (Merrill & Garland 2016). A block takes a
// tile: it gathers every entry's product w * xs(j) into shared memory in one coalesced
// sweep (all gathers independent), then sums each row there, a thread per row of up to a
// warp's width and a warp per longer row, and finishes the row (teleport, scale, change)
// in the same pass. Rows longer than long_row are cut into chunks of `chunk` entries, one
// block each, which write partial sums; the last chunk of a row to finish (an arrival
// counter) adds them in chunk order. Every row's sum therefore has one fixed order, and
// the ranks do not depend on scheduling. The tiles and the long rows are found on the
// device once per matrix and kept in A''s derived cache.
//
// Convergence. Each block adds its rows' L1 change (warp shuffles, then one atomic per
// block) to the iteration's delta; the next iteration of the batch reads that delta first
// and returns at once when it is below the tolerance, and so does every later one (their
// deltas stay 0). So the host waits once per batch, never once per iteration, and the
// iteration that converged is known exactly. The atomics make the order in which the
// blocks' changes are added, and so the last bits of a delta, vary between runs; the
// ranks themselves do not.
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

// 256 threads, 8 blocks on an sm_90 SM. A tile of 1024 rows-plus-entries gives each
// thread about 4 gathers, enough independent loads to hide L2 latency, and keeps a block's
// shared buffer (tile_items + long_row values, 16 KB in double) small enough for 8 blocks
// per SM; rows of more than long_row entries would make a tile's work uneven, so they take
// chunk blocks of 2048 entries (8 per thread). Rows up to `warp_row` entries are summed by
// one thread: below that a warp's shuffles cost more than the serial adds. Chosen by that
// reasoning, not swept (the H200 bench in docs/PERFORMANCE.md measured this choice only).
struct PageRankPolicy {
  static constexpr int threads = 256;
  static constexpr Index tile_items = 1024;
  static constexpr Index long_row = 1024;
  static constexpr Index chunk = 2048;
  static constexpr int warp_row = 32;
  static constexpr Index tile_values = tile_items + long_row;  // bound on a tile's entries
};

// The tiles and the long rows of A', built once per matrix.
struct TilePlan {
  Index tiles = 0;
  RawBuffer tile_first;   // Index[tiles + 1]: tile t is rows [first[t], first[t + 1])
  Index long_rows = 0;
  Index chunks = 0;
  RawBuffer rows;         // Index[long_rows]
  RawBuffer chunk_first;  // Index[long_rows + 1]: chunks of long row k are [first[k], first[k+1])
};

__device__ inline bool is_long_row(const Index* ro, Index i) { return ro[i + 1] - ro[i] > PageRankPolicy::long_row; }

// The tile key of row i: rows with equal keys form a tile. (i + ro[i]) / T splits rows
// plus entries evenly; 2 * (long rows before i) + (i is long) makes every long row a tile
// of its own (its key is above every earlier row's and below every later one's), so a
// short tile never holds more than tile_items + long_row entries.
__device__ inline Index tile_key(const Index* ro, const Index* longs_before, Index i) {
  return (i + ro[i]) / PageRankPolicy::tile_items + 2 * longs_before[i] + (is_long_row(ro, i) ? 1 : 0);
}

__global__ void long_row_counts(Index m, const Index* ro, Index* counts, std::uint8_t* flags) {
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += Index(gridDim.x) * blockDim.x) {
    const bool l = is_long_row(ro, i);
    counts[i] = l;
    flags[i] = l;
  }
}

__global__ void tile_start_flags(Index m, const Index* ro, const Index* longs_before, std::uint8_t* flags) {
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += Index(gridDim.x) * blockDim.x)
    flags[i] = i == 0 || tile_key(ro, longs_before, i) != tile_key(ro, longs_before, i - 1);
}

__global__ void chunk_counts(Index k, const Index* rows, const Index* ro, Index* counts) {
  for (Index j = Index(blockIdx.x) * blockDim.x + threadIdx.x; j < k; j += Index(gridDim.x) * blockDim.x) {
    const Index len = ro[rows[j] + 1] - ro[rows[j]];
    counts[j] = (len + PageRankPolicy::chunk - 1) / PageRankPolicy::chunk;
  }
}

// The ids i in [0, m) whose flag is set, into a new buffer of count + extra slots.
RawBuffer select_ids(Index m, const std::uint8_t* flags, Index extra, Index& count, const Ctx& c) {
  RawBuffer selected = temp<Index>(m + extra, c.device), n = temp<Index>(1, c.device);
  thrust::counting_iterator<Index> ids(0);
  std::size_t bytes = 0;
  GEBLAS_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, ids, flags, selected.as<Index>(), n.as<Index>(), m,
                                               c.stream));
  RawBuffer scratch(bytes, c.device);
  GEBLAS_CUDA_CHECK(cub::DeviceSelect::Flagged(scratch.data(), bytes, ids, flags, selected.as<Index>(),
                                               n.as<Index>(), m, c.stream));
  read_to_host(&count, n.data(), sizeof(Index), c.stream);
  return selected;
}

TilePlan build_plan(const SparseStorage& At) {
  TilePlan p;
  const Index m = At.nrows;
  if (m == 0) return p;
  Ctx c(At.device);
  const Index* ro = At.row_offsets.as<Index>();
  RawBuffer longs_before = temp<Index>(m + 1, c.device);
  RawBuffer flags = temp<std::uint8_t>(m, c.device);
  long_row_counts<<<ops::blocks_for(m), ops::LaunchPolicy::threads, 0, c.stream>>>(m, ro, longs_before.as<Index>(),
                                                                                    flags.as<std::uint8_t>());
  GEBLAS_CUDA_CHECK_LAUNCH();
  Index long_rows = 0;
  RawBuffer long_list = select_ids(m, flags.as<std::uint8_t>(), 0, long_rows, c);
  ops::counts_to_offsets(longs_before.as<Index>(), m, c.stream);
  tile_start_flags<<<ops::blocks_for(m), ops::LaunchPolicy::threads, 0, c.stream>>>(
      m, ro, longs_before.as<Index>(), flags.as<std::uint8_t>());
  GEBLAS_CUDA_CHECK_LAUNCH();
  p.tile_first = select_ids(m, flags.as<std::uint8_t>(), 1, p.tiles, c);
  Index* tile_end = p.tile_first.as<Index>() + p.tiles;
  ops::for_each(1, c.stream, [=] __device__(Index) { *tile_end = m; });
  p.long_rows = long_rows;
  if (long_rows == 0) return p;
  p.rows = std::move(long_list);
  p.chunk_first = temp<Index>(long_rows + 1, c.device);
  chunk_counts<<<ops::blocks_for(long_rows), ops::LaunchPolicy::threads, 0, c.stream>>>(
      long_rows, p.rows.as<Index>(), ro, p.chunk_first.as<Index>());
  GEBLAS_CUDA_CHECK_LAUNCH();
  p.chunks = ops::counts_to_offsets(p.chunk_first.as<Index>(), long_rows, c.stream);
  return p;
}

std::shared_ptr<const TilePlan> tile_plan(const SparseStorage& At) {
  return derived<TilePlan>(At, "pagerank_tile_plan", [&] { return build_plan(At); });
}

template <class V>
struct StepArgs {
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
  const Index* tile_first;
  Index long_rows;
  Index chunks;           // blocks [0, chunks) take the chunks, the rest one tile each
  const Index* long_list;
  const Index* chunk_first;
  unsigned* arrivals;     // per long row
  double* chunk_partials; // per chunk
  const double* previous_delta;  // the batch's previous iteration's; null for its first
  double* delta_out;      // this iteration's slot, zero before the launch
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
__device__ inline V product(const StepArgs<V>& a, Index p) {
  return a.w ? a.w[p] * a.xs[a.ci[p]] : a.xs[a.ci[p]];
}

// One chunk of a long row; the row's last chunk to finish completes it.
template <class V>
__device__ void chunk_step(const StepArgs<V>& a, Index c, double* shared, double& change) {
  __shared__ bool last;
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
#pragma unroll 4
  for (Index p = b + threadIdx.x; p < e; p += blockDim.x) part += static_cast<double>(product(a, p));
  part = block_sum(part, shared);
  const Index first = a.chunk_first[k], pieces = a.chunk_first[k + 1] - first;
  if (pieces == 1) {
    if (threadIdx.x == 0) finish_row(a, row, static_cast<V>(part), change);
    return;
  }
  if (threadIdx.x == 0) {
    a.chunk_partials[c] = part;
    __threadfence();
    last = atomicAdd(&a.arrivals[k], 1u) == static_cast<unsigned>(pieces - 1);
  }
  __syncthreads();
  if (!last) return;
  // The row's partials, read by the whole block (a serial loop of dependent L2 reads
  // costs microseconds per hundred partials); same order every time.
  double total = 0;
  for (Index q = threadIdx.x; q < pieces; q += blockDim.x) total += __ldcg(&a.chunk_partials[first + q]);
  total = block_sum(total, shared);
  if (threadIdx.x == 0) {
    a.arrivals[k] = 0;
    finish_row(a, row, static_cast<V>(total), change);
  }
}

// One tile of short rows: gather into shared memory, then sum and finish every row.
template <class V>
__device__ void tile_step(const StepArgs<V>& a, Index t, V* values, double& change) {
  const Index r0 = a.tile_first[t], r1 = a.tile_first[t + 1];
  const Index e0 = a.ro[r0], e1 = a.ro[r1];
  if (r1 - r0 == 1 && e1 - e0 > PageRankPolicy::long_row) return;  // a long row: its chunks finish it
  const int count = static_cast<int>(e1 - e0);
#pragma unroll 4
  for (int q = threadIdx.x; q < count; q += PageRankPolicy::threads) values[q] = product(a, e0 + q);
  __syncthreads();
  const int lane = threadIdx.x & 31;
  for (Index base = r0; base < r1; base += PageRankPolicy::threads) {  // the same trip count in every thread
    const Index i = base + threadIdx.x;
    int b = 0, e = 0;
    if (i < r1) {
      b = static_cast<int>(a.ro[i] - e0);
      e = static_cast<int>(a.ro[i + 1] - e0);
    }
    const bool wide = e - b > PageRankPolicy::warp_row;
    V acc = V(0);
    if (!wide)
      for (int q = b; q < e; ++q) acc += values[q];
    // The warp's wide rows, one after the other, 32 lanes each.
    for (unsigned pending = __ballot_sync(0xffffffffu, wide); pending; pending &= pending - 1) {
      const int owner = __ffs(pending) - 1;
      const int wb = __shfl_sync(0xffffffffu, b, owner), we = __shfl_sync(0xffffffffu, e, owner);
      V part = V(0);
      for (int q = wb + lane; q < we; q += 32) part += values[q];
      for (int off = 16; off > 0; off /= 2) part += __shfl_xor_sync(0xffffffffu, part, off);
      if (lane == owner) acc = part;
    }
    if (i < r1) finish_row(a, i, acc, change);
  }
}

template <class V>
__global__ void __launch_bounds__(PageRankPolicy::threads) pagerank_step(StepArgs<V> a) {
  if (a.previous_delta && *a.previous_delta < a.tolerance) return;  // the batch converged
  __shared__ V values[PageRankPolicy::tile_values];
  __shared__ double shared[PageRankPolicy::threads / 32];
  double change = 0;
  if (Index(blockIdx.x) < a.chunks) chunk_step(a, Index(blockIdx.x), shared, change);
  else tile_step(a, Index(blockIdx.x) - a.chunks, values, change);
  // Every thread reaches this point (the early returns above are block-wide).
  const double mine = block_sum(change, shared);
  if (threadIdx.x == 0 && mine != 0) atomicAdd(a.delta_out, mine);
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
  const std::shared_ptr<const TilePlan> plan = tile_plan(At);
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
  const Index blocks = plan->chunks + plan->tiles;
  if (blocks > Index{0x7fffffff})
    throw InvalidValue("pagerank iterations on " + At.device.str() + ": A' needs " + std::to_string(blocks) +
                       " blocks per iteration, more than one launch holds");

  RawBuffer deltas = temp<double>(a.deltas_on_device ? 0 : count, c.device);
  double* delta_slots = a.deltas_on_device ? a.deltas_on_device : deltas.as<double>();
  RawBuffer chunk_partials = temp<double>(plan->chunks, c.device);
  RawBuffer arrivals = temp<unsigned>(plan->long_rows, c.device);
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(delta_slots, 0, static_cast<std::size_t>(count) * sizeof(double), c.stream));
  if (arrivals.bytes()) GEBLAS_CUDA_CHECK(cudaMemsetAsync(arrivals.data(), 0, arrivals.bytes(), c.stream));

  StepArgs<V> s{};
  s.ro = At.row_offsets.as<Index>();
  s.ci = At.col_indices.as<ColIndex>();
  s.w = a.weighted ? At.values.as<V>() : nullptr;
  s.scale = static_cast<const V*>(a.scale);
  s.tele = static_cast<const V*>(a.teleport);
  s.uniform = static_cast<V>(a.teleport_uniform);
  s.tile_first = plan->tile_first.as<Index>();
  s.long_rows = plan->long_rows;
  s.chunks = plan->chunks;
  s.long_list = plan->rows.as<Index>();
  s.chunk_first = plan->chunk_first.as<Index>();
  s.arrivals = arrivals.as<unsigned>();
  s.chunk_partials = chunk_partials.as<double>();
  s.tolerance = a.tolerance;
  for (int j = 0; j < count; ++j) {
    const int from = (current + j) & 1;
    s.x = static_cast<const V*>(a.x[from]);
    s.xs = static_cast<const V*>(a.xs[from]);
    s.xn = static_cast<V*>(a.x[1 - from]);
    s.xsn = static_cast<V*>(a.xs[1 - from]);
    // with the changes left on the device no iteration of the batch may stop early
    s.previous_delta = a.deltas_on_device || j == 0 ? nullptr : delta_slots + j - 1;
    s.delta_out = delta_slots + j;
    if (blocks > 0) {
      pagerank_step<V><<<static_cast<unsigned>(blocks), PageRankPolicy::threads, 0, c.stream>>>(s);
      GEBLAS_CUDA_CHECK_LAUNCH();
    }
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
