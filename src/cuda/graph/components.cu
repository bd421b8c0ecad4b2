// Connected components on the GPU by concurrent union-find with atomic hooking, after
// ECL-CC (Jaiganesh & Burtscher, HPDC 2018): an initial parent per vertex (its smallest
// neighbour when smaller), one kernel that unites the two ends of every stored entry
// (the larger root is hooked under the smaller with a CAS; finds halve their paths),
// and a final kernel that points every vertex at its root and counts the roots. Parents
// only ever decrease, so each root is its component's smallest vertex. Three launches
// and one 8-byte read, with no host round trip per round: the rounds of min-label
// propagation (FastSV) are what this replaces.
#include "cuda/graph/entries.cuh"
#include "cuda/graph/graph.hpp"

namespace geblas::detail::cuda::graph {
namespace {

using ops::Ctx;

// Parents are read through volatile pointers: another thread may hook a root or
// shorten a path at any time, and a stale value is still an ancestor (trees only
// merge), so plain coherent reads are all the algorithm needs.
__device__ inline GraphVertex representative(GraphVertex* parent, GraphVertex v) {
  volatile GraphVertex* p = parent;
  GraphVertex cur = p[v];
  if (cur == v) return v;
  GraphVertex prev = v, next;
  while (cur > (next = p[cur])) {
    p[prev] = next;  // path halving: next is an ancestor prev already had
    prev = cur;
    cur = next;
  }
  return cur;
}

__device__ inline void unite(GraphVertex* parent, GraphVertex a, GraphVertex b) {
  GraphVertex ra = representative(parent, a), rb = representative(parent, b);
  while (ra != rb) {
    if (ra < rb) {  // hook the larger root under the smaller one
      const GraphVertex t = ra;
      ra = rb;
      rb = t;
    }
    const auto seen = static_cast<GraphVertex>(atomicCAS(reinterpret_cast<unsigned long long*>(parent + ra),
                                                         static_cast<unsigned long long>(ra),
                                                         static_cast<unsigned long long>(rb)));
    if (seen == ra) return;
    ra = seen;  // ra was hooked meanwhile: climb from its new parent
  }
}

// Every vertex to its root; counts the roots (one atomic per warp).
__global__ void finalize_kernel(GraphVertex* parent, Index n, unsigned long long* roots) {
  volatile GraphVertex* p = parent;
  unsigned long long local = 0;
  for (Index v = Index(blockIdx.x) * blockDim.x + threadIdx.x; v < n; v += Index(gridDim.x) * blockDim.x) {
    GraphVertex root = p[v], next;
    while (root > (next = p[root])) root = next;
    p[v] = root;
    local += root == v ? 1 : 0;
  }
  for (int offset = 16; offset > 0; offset /= 2) local += __shfl_down_sync(0xffffffffu, local, offset);
  if ((threadIdx.x & 31) == 0 && local > 0) atomicAdd(roots, local);
}

}  // namespace

void connected_components(ComponentsRun& run) {
  const SparseStorage& A = *run.A;
  const Ctx c(A.device);
  const Index n = A.nrows;
  run.rounds = 1;
  run.count = 0;
  if (n == 0) return;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  GraphVertex* parent = run.labels;
  // Start each vertex under its first (smallest) neighbour when that one is smaller.
  ops::for_each(n, c.stream, [=] __device__(Index i) {
    parent[i] = (ro[i] < ro[i + 1] && ci[ro[i]] < i) ? GraphVertex{ci[ro[i]]} : GraphVertex{i};
  });
  for_each_entry(ro, n, A.nvals, c.stream, [=] __device__(Index i, Index k) {
    const GraphVertex j = ci[k];
    if (j != i) unite(parent, i, j);
  });
  RawBuffer roots = ops::temp<unsigned long long>(1, c.device);
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(roots.data(), 0, sizeof(unsigned long long), c.stream));
  // Whole warps, so that the shuffle reduction always has 32 live lanes.
  finalize_kernel<<<ops::blocks_for(n), ops::LaunchPolicy::threads, 0, c.stream>>>(
      parent, n, roots.as<unsigned long long>());
  GEBLAS_CUDA_CHECK_LAUNCH();
  unsigned long long count = 0;
  copy_bytes(&count, Device::cpu(), roots.data(), c.device, sizeof(count));
  run.count = static_cast<std::int64_t>(count);
}

}  // namespace geblas::detail::cuda::graph
