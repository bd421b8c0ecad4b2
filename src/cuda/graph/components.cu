// Connected components on the GPU by Afforest (Sutton, Ben-Nun & Barak, IPDPS 2018), as
// on the host (src/cpu/graph/components.cpp): a concurrent union-find links only the
// first two entries of every row, which already joins most of a giant component; one
// block then finds that component's root from a sample of vertices, and the remaining
// entries are linked only for the vertices outside it. The giant component's rows are
// where most of a social or Kronecker graph's entries are.
//
// Skipping a row needs each of its edges to be seen from the other end: true when A' is
// cached (its rows are every vertex's in-edges) or A's pattern is known to be symmetric.
// Otherwise every entry is still read, but after every vertex has been pointed at its
// root, so an entry that joins nothing new costs one load beside its row's: its two ends
// then point at the same vertex (the giant root, for the giant component's entries, which
// is what the host tests; comparing the two ends needs no vote). Only the rest are
// linked. Correct for any pattern, and no symmetry test or transpose is paid for a
// one-shot call.
//
// The hooking is ECL-CC's (Jaiganesh & Burtscher, HPDC 2018): the larger root is hooked
// under the smaller with a CAS and finds halve the paths they walk. Hooking only ever
// lowers a parent, so parent(v) <= v throughout, no cycle can form, and each root is its
// component's smallest vertex. The giant root stays on the device; the number of roots
// is the one value read back (8 bytes, the only host wait), after five launches.
#include "core/derived_cache.hpp"
#include "core/trace.hpp"
#include "cuda/graph/entries.cuh"
#include "cuda/graph/graph.hpp"

namespace geblas::detail::cuda::graph {
namespace {

using ops::Ctx;

struct ComponentsPolicy {
  // Afforest's neighbour rounds: the paper finds 2 enough to join nearly all of a giant
  // component on its graphs (GAP and the host use 2); not re-tuned on the GPU.
  static constexpr Index sampled_neighbours = 2;
  // Vertices whose root votes for the giant component's label, one thread each in one
  // block (so at most 1024): GAP's sample size, as on the host.
  static constexpr int label_sample = 1024;
  // Slots of the vote's open-addressing table in shared memory: twice the sample keeps
  // the table at most half full, so probe runs stay short (24 KiB with the counts).
  static constexpr int vote_slot_bits = 11;
  static constexpr int vote_slots = 1 << vote_slot_bits;
  // Threads per block of the vertex and row kernels: ops::LaunchPolicy's 256, the choice
  // for memory-bound grid-stride loops on Hopper; not tuned for these kernels.
  static constexpr int threads = ops::LaunchPolicy::threads;
  // A vertex outside the giant component with more entries left than a warp has lanes
  // gets its whole warp (a lane per entry), so that a hub there does not hold up the
  // other 31 lanes; a shorter run costs its own lane no more steps than the warp's
  // shuffles would. Chosen by that reasoning, not measured.
  static constexpr Index warp_tail = 32;
};
static_assert(ComponentsPolicy::label_sample <= 1024, "the vote is one block, a thread per sample");
static_assert(ComponentsPolicy::vote_slots >= ComponentsPolicy::label_sample && ComponentsPolicy::vote_slot_bits <= 16,
              "a slot for every sample, its index in 16 bits");
static_assert(ComponentsPolicy::threads % 32 == 0, "whole warps: the row and count kernels shuffle over 32 lanes");

constexpr unsigned all_lanes = 0xffffffffu;

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

// The most frequent root among evenly spaced vertices, into *giant: an open-addressing
// count in shared memory, then the slot with the most votes (any of them on a tie: the
// choice only decides which rows are skipped, never a label).
__global__ void __launch_bounds__(ComponentsPolicy::label_sample)
    vote_kernel(GraphVertex* parent, Index n, GraphVertex* giant) {
  constexpr int slots = ComponentsPolicy::vote_slots;
  __shared__ unsigned long long key[slots];  // root + 1; 0 is an empty slot
  __shared__ unsigned votes[slots];
  __shared__ unsigned warp_best[ComponentsPolicy::label_sample / 32];
  for (int s = threadIdx.x; s < slots; s += blockDim.x) {
    key[s] = 0;
    votes[s] = 0;
  }
  __syncthreads();
  const Index samples = n < ComponentsPolicy::label_sample ? n : Index{ComponentsPolicy::label_sample};
  if (threadIdx.x < samples) {
    const auto k = static_cast<unsigned long long>(representative(parent, Index(threadIdx.x) * n / samples)) + 1;
    // Fibonacci hashing: the top bits of the product spread consecutive roots apart.
    unsigned s = static_cast<unsigned>((k * 0x9E3779B97F4A7C15ull) >> (64 - ComponentsPolicy::vote_slot_bits));
    for (;;) {
      const unsigned long long seen = atomicCAS(&key[s], 0ull, k);
      if (seen == 0 || seen == k) break;
      s = (s + 1) & (slots - 1);
    }
    atomicAdd(&votes[s], 1u);
  }
  __syncthreads();
  // Votes (<= 1024) in the high half, the slot in the low half: one max finds both.
  unsigned best = 0;
  for (int s = threadIdx.x; s < slots; s += blockDim.x) best = max(best, votes[s] << 16 | unsigned(s));
  for (int offset = 16; offset > 0; offset /= 2) best = max(best, __shfl_down_sync(all_lanes, best, offset));
  if ((threadIdx.x & 31) == 0) warp_best[threadIdx.x / 32] = best;
  __syncthreads();
  if (threadIdx.x < 32) {
    best = threadIdx.x < blockDim.x / 32 ? warp_best[threadIdx.x] : 0;
    for (int offset = 16; offset > 0; offset /= 2) best = max(best, __shfl_down_sync(all_lanes, best, offset));
    if (threadIdx.x == 0) *giant = static_cast<GraphVertex>(key[best & 0xffffu] - 1);
  }
}

// The entries not yet linked of every vertex outside the giant component's tree: its row
// past the sampled entries, and its in-edges when A' is given (tro non-null). A lane per
// vertex; a vertex with more than warp_tail of them is taken by its whole warp. The tree
// is told by its current root, not by the voted one: a link made here can hook the voted
// root under a smaller one, and the rows of the vertices under it are still skipped.
__global__ void __launch_bounds__(ComponentsPolicy::threads)
    link_outside_kernel(GraphVertex* parent, Index n, const Index* ro, const ColIndex* ci, const Index* tro,
                        const ColIndex* tci, const GraphVertex* giant_at) {
  const GraphVertex giant = *giant_at;
  const int lane = threadIdx.x & 31;
  // The loop runs per warp (first is the warp's first vertex), so every lane is there for
  // the ballot and the shuffles.
  for (Index first = Index(blockIdx.x) * blockDim.x + threadIdx.x - lane; first < n;
       first += Index(gridDim.x) * blockDim.x) {
    const Index v = first + lane;
    Index b = 0, e = 0, tb = 0, te = 0;
    // Equal roots, each read at some time, put v in the giant component's tree, as
    // trees only merge. A v below its root is left pointing at it, which shortens later
    // finds through v (a root is not written: a hook of it may have landed meanwhile).
    const GraphVertex rv = v < n ? representative(parent, v) : GraphVertex{0};
    if (v < n && rv != v) static_cast<volatile GraphVertex*>(parent)[v] = rv;
    if (v < n && rv != representative(parent, giant)) {
      e = ro[v + 1];
      b = ro[v] + ComponentsPolicy::sampled_neighbours < e ? ro[v] + ComponentsPolicy::sampled_neighbours : e;
      if (tro) {
        tb = tro[v];
        te = tro[v + 1];
      }
    }
    const bool wide = (e - b) + (te - tb) > ComponentsPolicy::warp_tail;
    if (!wide) {
      for (Index k = b; k < e; ++k) unite(parent, v, ci[k]);
      for (Index k = tb; k < te; ++k) unite(parent, v, tci[k]);
    }
    for (unsigned lanes = __ballot_sync(all_lanes, wide); lanes; lanes &= lanes - 1) {
      const int src = __ffs(lanes) - 1;
      const Index u = __shfl_sync(all_lanes, v, src);
      const Index ub = __shfl_sync(all_lanes, b, src), ue = __shfl_sync(all_lanes, e, src);
      const Index utb = __shfl_sync(all_lanes, tb, src), ute = __shfl_sync(all_lanes, te, src);
      for (Index k = ub + lane; k < ue; k += 32) unite(parent, u, ci[k]);
      for (Index k = utb + lane; k < ute; k += 32) unite(parent, u, tci[k]);
    }
  }
}

// Every vertex to its root; counts the roots (one atomic per warp).
__global__ void __launch_bounds__(ComponentsPolicy::threads)
    finalize_kernel(GraphVertex* parent, Index n, unsigned long long* roots) {
  volatile GraphVertex* p = parent;
  unsigned long long local = 0;
  for (Index v = Index(blockIdx.x) * blockDim.x + threadIdx.x; v < n; v += Index(gridDim.x) * blockDim.x) {
    GraphVertex root = p[v], next;
    while (root > (next = p[root])) root = next;
    p[v] = root;
    local += root == v ? 1 : 0;
  }
  for (int offset = 16; offset > 0; offset /= 2) local += __shfl_down_sync(all_lanes, local, offset);
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
  // Skipping is safe with A' or a pattern known to be symmetric; neither is built here
  // (a transpose costs a few SpMV, more than the filtered pass it would save).
  const auto At = cached_transpose_if_any(A);
  const bool symmetric = !At && pattern_symmetric_if_known(A).value_or(false);
  const bool skip = symmetric || At;
  // [0]: the count of roots, [1]: the giant component's root (written by the vote).
  RawBuffer scalars = ops::temp<unsigned long long>(2, c.device);
  unsigned long long* roots = scalars.as<unsigned long long>();
  auto* giant = reinterpret_cast<GraphVertex*>(roots + 1);
  // The sampled neighbours, the first two entries of every row. The first launch hooks
  // each vertex, still a singleton root, under its first neighbour when that one is
  // smaller: the link of that entry, with no CAS (and zeroes the count, saving a memset
  // launch). The second links the first entries it could not (a larger neighbour) and
  // the second entries.
  ops::for_each(n, c.stream, [=] __device__(Index v) {
    if (v == 0) *roots = 0;
    parent[v] = (ro[v] < ro[v + 1] && ci[ro[v]] < v) ? GraphVertex{ci[ro[v]]} : GraphVertex{v};
  });
  ops::for_each(n, c.stream, [=] __device__(Index v) {
    const Index b = ro[v], e = ro[v + 1];
    if (b < e && ci[b] > v) unite(parent, v, ci[b]);
    for (Index k = b + 1; k < b + ComponentsPolicy::sampled_neighbours && k < e; ++k) unite(parent, v, ci[k]);
  });
  if (skip) {
    vote_kernel<<<1, ComponentsPolicy::label_sample, 0, c.stream>>>(parent, n, giant);
    GEBLAS_CUDA_CHECK_LAUNCH();
    const Index* tro = At ? At->row_offsets.as<Index>() : nullptr;
    const ColIndex* tci = At ? At->col_indices.as<ColIndex>() : nullptr;
    link_outside_kernel<<<ops::blocks_for(n, ComponentsPolicy::threads), ComponentsPolicy::threads, 0, c.stream>>>(
        parent, n, ro, ci, tro, tci, giant);
    GEBLAS_CUDA_CHECK_LAUNCH();
  } else {
    // Every vertex at its root first (no hook runs meanwhile, so each one is exact).
    ops::for_each(n, c.stream, [=] __device__(Index v) {
      const GraphVertex r = representative(parent, v);
      static_cast<volatile GraphVertex*>(parent)[v] = r;
    });
    // An entry whose ends point at the same vertex is inside one tree: that vertex was
    // an ancestor of both when read, and trees only merge. The sampled entries and, once
    // the giant component's vertices point at its root, nearly all of its entries stop
    // at these two loads (the first one is shared by the row's entries).
    for_each_entry(ro, n, A.nvals, c.stream, [=] __device__(Index i, Index k) {
      volatile GraphVertex* p = parent;
      const GraphVertex j = ci[k];
      if (p[i] != p[j]) unite(parent, i, j);
    });
  }
  // Whole warps, so that the shuffle reduction always has 32 live lanes.
  finalize_kernel<<<ops::blocks_for(n, ComponentsPolicy::threads), ComponentsPolicy::threads, 0, c.stream>>>(
      parent, n, roots);
  GEBLAS_CUDA_CHECK_LAUNCH();
  unsigned long long count = 0;
  copy_bytes(&count, Device::cpu(), roots, c.device, sizeof(count));
  run.count = static_cast<std::int64_t>(count);
  DispatchRecord& rec = current_dispatch();
  rec.variant = "afforest";
  rec.reason = At ? "giant component skipped, in-edges from the cached A'"
                  : symmetric ? "giant component skipped, symmetric pattern"
                              : "giant component's rows filtered (pattern not known symmetric, no A')";
}

}  // namespace geblas::detail::cuda::graph
