// Triangle counting on the GPU by ordered sorted-list intersection (the forward algorithm
// of Schank & Wagner, as the host's cpu/graph/triangles.cpp runs it): each edge is kept
// once, in the out-list of its lower-ranked end (ids, or (degree, id) when the degrees
// are skewed: core/triangle_ranking.hpp), and each edge u -> v adds the common
// out-neighbours of u and v. The oriented lists are built on the device from both
// directions of A (counts with atomics, a scan, a scatter, a segmented sort, and a
// per-list de-duplication); the count runs one thread per oriented edge, a merge that
// stops when either list ends, a block reduction and one atomic per block. Reads back
// the sampled row lengths (for the ranking decision), the list total (for the
// allocation) and the two sums.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <vector>

#include "core/trace.hpp"
#include "core/triangle_ranking.hpp"
#include "cuda/graph/entries.cuh"
#include "cuda/graph/graph.hpp"

namespace geblas::detail::cuda::graph {
namespace {

using ops::Ctx;

struct TriangleKernelPolicy {
  // One thread per oriented edge; 256 threads per block as the element-wise kernels
  // (ops::LaunchPolicy), chosen by that analogy, not measured.
  static constexpr int threads = 256;
};

__device__ inline unsigned long long* as_ull(Index* p) { return reinterpret_cast<unsigned long long*>(p); }

// For every stored slot k of the sorted lists (row u's slots are [begin[u], begin[u + 1]),
// the first end[u] - begin[u] of them unique): the common entries of u's list past k and
// v = adj[k]'s list. Sums the triangles and the unique slots (the oriented edges).
__global__ void count_kernel(const Index* begin, const Index* end, const ColIndex* adj, Index n, Index slots,
                             unsigned long long* sums) {
  using Reduce = cub::BlockReduce<unsigned long long, TriangleKernelPolicy::threads>;
  __shared__ typename Reduce::TempStorage scratch;
  unsigned long long triangles = 0, edges = 0;
  for (Index k = Index(blockIdx.x) * blockDim.x + threadIdx.x; k < slots; k += Index(gridDim.x) * blockDim.x) {
    const Index u = ops::row_of_entry(begin, n, k);
    const Index ue = end[u];
    if (k >= ue) continue;  // a duplicate's slot past the unique prefix
    ++edges;
    const ColIndex v = adj[k];
    Index x = k + 1, y = begin[v];
    const Index ye = end[v];
    while (x < ue && y < ye) {
      const ColIndex a = adj[x], b = adj[y];
      triangles += a == b;
      x += a <= b;
      y += b <= a;
    }
  }
  triangles = Reduce(scratch).Sum(triangles);
  __syncthreads();
  edges = Reduce(scratch).Sum(edges);
  if (threadIdx.x == 0) {
    if (triangles) atomicAdd(&sums[0], triangles);
    if (edges) atomicAdd(&sums[1], edges);
  }
}

// rank[v]: v's position among the vertices ordered by (degree, id), degree counting both
// directions of every entry other than a self-loop (a stable radix sort of the ids by
// degree keeps ties in id order).
RawBuffer degree_ranks(const SparseStorage& A, const Ctx& c) {
  const Index n = A.nrows, K = A.nvals;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  RawBuffer deg_buf = ops::temp<std::uint64_t>(n, c.device), deg_sorted = ops::temp<std::uint64_t>(n, c.device);
  RawBuffer ids = ops::temp<ColIndex>(n, c.device), ids_sorted = ops::temp<ColIndex>(n, c.device);
  auto* deg = deg_buf.as<unsigned long long>();
  ColIndex* id = ids.as<ColIndex>();
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(deg, 0, static_cast<std::size_t>(n) * sizeof(std::uint64_t), c.stream));
  ops::for_each(n, c.stream, [=] __device__(Index v) { id[v] = static_cast<ColIndex>(v); });
  for_each_entry(ro, n, K, c.stream, [=] __device__(Index i, Index k) {
    const Index j = ci[k];
    if (j == i) return;
    atomicAdd(&deg[i], 1ull);
    atomicAdd(&deg[j], 1ull);
  });
  const int bits = ops::bits_for(static_cast<std::uint64_t>(2 * K + 1));
  std::size_t bytes = 0;
  GEBLAS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, deg_buf.as<std::uint64_t>(),
                                                    deg_sorted.as<std::uint64_t>(), id, ids_sorted.as<ColIndex>(),
                                                    n, 0, bits, c.stream));
  RawBuffer tmp(bytes, c.device);
  GEBLAS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, deg_buf.as<std::uint64_t>(),
                                                    deg_sorted.as<std::uint64_t>(), id, ids_sorted.as<ColIndex>(),
                                                    n, 0, bits, c.stream));
  RawBuffer rank_buf = ops::temp<ColIndex>(n, c.device);
  ColIndex* rank = rank_buf.as<ColIndex>();
  const ColIndex* order = ids_sorted.as<ColIndex>();
  ops::for_each(n, c.stream, [=] __device__(Index p) { rank[order[p]] = static_cast<ColIndex>(p); });
  return rank_buf;
}

}  // namespace

void triangle_count(TriangleCountRun& run) {
  const SparseStorage& A = *run.A;
  const Ctx c(A.device);
  const Index n = A.nrows, K = A.nvals;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  run.triangles = 0;
  run.oriented_edges = 0;
  // The ranking decision from a sample of row lengths.
  const Index samples = ranking_sample_size(n);
  std::vector<Index> lengths(static_cast<std::size_t>(samples));
  if (samples > 0) {
    RawBuffer lens = ops::temp<Index>(samples, c.device);
    Index* len = lens.as<Index>();
    ops::for_each(samples, c.stream, [=] __device__(Index s) {
      const Index v = ranking_sample_vertex(s, n);
      len[s] = ro[v + 1] - ro[v];
    });
    read_to_host(lengths.data(), len, static_cast<std::size_t>(samples) * sizeof(Index), c.stream);
  }
  const TriangleRanking ranking = choose_triangle_ranking(std::move(lengths));
  run.degree_ranked = ranking.by_degree;
  DispatchRecord& rec = current_dispatch();
  rec.variant = "ordered_merge";
  rec.reason = ranking.reason;
  if (n == 0 || K == 0) return;

  RawBuffer rank_buf;
  if (ranking.by_degree) rank_buf = degree_ranks(A, c);
  const ColIndex* rank = ranking.by_degree ? rank_buf.as<ColIndex>() : nullptr;
  // Both directions of A in one pass: entry (i, j) goes to the lower-ranked end's list.
  RawBuffer begin_buf = ops::temp<Index>(n + 1, c.device);
  Index* begin = begin_buf.as<Index>();
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(begin, 0, static_cast<std::size_t>(n + 1) * sizeof(Index), c.stream));
  for_each_entry(ro, n, K, c.stream, [=] __device__(Index i, Index k) {
    const Index j = ci[k];
    if (j == i) return;
    const ColIndex ri = rank ? rank[i] : static_cast<ColIndex>(i), rj = rank ? rank[j] : static_cast<ColIndex>(j);
    atomicAdd(as_ull(begin + (ri < rj ? ri : rj)), 1ull);
  });
  const Index slots = ops::counts_to_offsets(begin, n, c.stream);
  if (slots == 0) return;
  RawBuffer cursor_buf = ops::temp<Index>(n, c.device);
  Index* cursor = cursor_buf.as<Index>();
  GEBLAS_CUDA_CHECK(
      cudaMemcpyAsync(cursor, begin, static_cast<std::size_t>(n) * sizeof(Index), cudaMemcpyDeviceToDevice, c.stream));
  RawBuffer scattered_buf = ops::temp<ColIndex>(slots, c.device), adj_buf = ops::temp<ColIndex>(slots, c.device);
  ColIndex* scattered = scattered_buf.as<ColIndex>();
  for_each_entry(ro, n, K, c.stream, [=] __device__(Index i, Index k) {
    const Index j = ci[k];
    if (j == i) return;
    const ColIndex ri = rank ? rank[i] : static_cast<ColIndex>(i), rj = rank ? rank[j] : static_cast<ColIndex>(j);
    const Index pos = static_cast<Index>(atomicAdd(as_ull(cursor + (ri < rj ? ri : rj)), 1ull));
    scattered[pos] = ri < rj ? rj : ri;
  });
  ColIndex* adj = adj_buf.as<ColIndex>();
  std::size_t bytes = 0;
  GEBLAS_CUDA_CHECK(
      cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, scattered, adj, slots, n, begin, begin + 1, c.stream));
  RawBuffer tmp(bytes, c.device);
  GEBLAS_CUDA_CHECK(
      cub::DeviceSegmentedSort::SortKeys(tmp.data(), bytes, scattered, adj, slots, n, begin, begin + 1, c.stream));
  // Duplicates (an edge stored in both directions, or twice) dropped in place: list u
  // keeps its unique prefix, [begin[u], end[u]). The cursors are free again for end.
  Index* end = cursor;
  ops::for_each(n, c.stream, [=] __device__(Index u) {
    Index w = begin[u];
    for (Index k = begin[u]; k < begin[u + 1]; ++k)
      if (k == begin[u] || adj[k] != adj[w - 1]) adj[w++] = adj[k];
    end[u] = w;
  });
  RawBuffer sums_buf = ops::temp<unsigned long long>(2, c.device);
  auto* sums = sums_buf.as<unsigned long long>();
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(sums, 0, 2 * sizeof(unsigned long long), c.stream));
  count_kernel<<<ops::blocks_for(slots, TriangleKernelPolicy::threads), TriangleKernelPolicy::threads, 0, c.stream>>>(
      begin, end, adj, n, slots, sums);
  GEBLAS_CUDA_CHECK_LAUNCH();
  unsigned long long host_sums[2] = {0, 0};
  read_to_host(host_sums, sums, sizeof host_sums, c.stream);
  run.triangles = static_cast<std::int64_t>(host_sums[0]);
  run.oriented_edges = static_cast<double>(host_sums[1]);
}

}  // namespace geblas::detail::cuda::graph
