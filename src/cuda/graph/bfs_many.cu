// BFS from many sources in one traversal on the GPU (core/graph_kernels.hpp, bfs_many):
// the sources go 64 at a time, one bit each, and every vertex holds three 64-bit words:
// the sources that reached it (visited), the ones that reached it at the previous level
// (the frontier) and at this one (next). A level is one pull pass over A': a vertex
// missing some sources ORs its in-neighbours' frontier words, in the in-list's sorted
// order, until it has them all or the list ends. So k traversals cost one pass per level
// over the graph instead of k, with 8-byte words where k separate traversals each read
// their own level arrays (the "multi-source BFS" of Then et al., VLDB 2015, on a GPU).
//
// Parents: the in-list is read 32 entries at a time, one per lane; an exclusive prefix
// OR over the lanes tells each lane which of its sources no smaller in-neighbour of the
// chunk (nor an earlier chunk) already gave, so that lane's entry is the parent of those
// sources: the smallest in-neighbour one level up, as the single-source BFS gives.
//
// The level loop stays on the device: level d returns at once when level d - 1 reached
// nothing, so the host queues a batch of levels and reads their counts once per batch.
#include <algorithm>
#include <vector>

#include "cuda/graph/graph.hpp"
#include "cuda/graph/traversal.cuh"
#include "cuda/ops/common.cuh"

namespace geblas::detail::cuda::graph {
namespace {

using Word = unsigned long long;
constexpr int group = 64;  // sources per traversal: the bits of a Word

// Levels queued per host wait: the first batch is short (most graphs reached from a
// random root are 5 to 25 levels deep), the later ones longer (road graphs have a
// thousand). Chosen by that reasoning; a level queued after the last costs one launch
// that returns at once.
constexpr int first_batch = 8, later_batch = 32;

struct ManyArgs {
  Index n;
  const Index* tro;
  const ColIndex* tci;
  const Word* frontier;  // reached at level - 1
  Word* next;            // reached at level (written for every vertex)
  Word* visited;
  Word wanted;           // the bits of the group's sources
  long long* level;      // column-major, leading dimension n, from the group's first column
  long long* parent;
  long long depth_new;
  const unsigned long long* previous_count;  // pairs reached at level - 1
  unsigned long long* count;                 // pairs reached at this level, zero before
  unsigned long long* examined;
};

__global__ void seed_kernel(Index n, const long long* sources, int k, Word* frontier, Word* visited, long long* level,
                            long long* parent, unsigned long long* count0) {
  const int c = static_cast<int>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c == 0) *count0 = static_cast<unsigned long long>(k);
  if (c >= k) return;
  const long long s = sources[c];
  atomicOr(frontier + s, Word{1} << c);
  atomicOr(visited + s, Word{1} << c);
  level[static_cast<Index>(c) * n + s] = 0;
  parent[static_cast<Index>(c) * n + s] = s;
}

__global__ void __launch_bounds__(TraversalLaunchPolicy::grid_threads) level_kernel(ManyArgs a) {
  if (*a.previous_count == 0) return;  // the traversal ended before this level
  const int lane = threadIdx.x & 31;
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  unsigned long long found = 0, examined = 0;
  for (long long base = warp * 32; base < a.n; base += warps * 32) {
    // A lane per vertex reads what it still needs and its in-list's bounds; the warp
    // then walks the lists of the vertices that need something, one after the other.
    const long long mine = base + lane;
    Word seen = 0, need = 0;
    Index mb = 0, me = 0;
    if (mine < a.n) {
      seen = a.visited[mine];
      need = a.wanted & ~seen;
      if (need) {
        mb = a.tro[mine];
        me = a.tro[mine + 1];
      }
    }
    Word gained = 0;
    for (unsigned pending = __ballot_sync(0xffffffffu, need != 0 && me > mb); pending; pending &= pending - 1) {
      const int owner = __ffs(pending) - 1;
      const long long v = base + owner;
      const Word want = __shfl_sync(0xffffffffu, need, owner);
      const Index b = __shfl_sync(0xffffffffu, mb, owner), e = __shfl_sync(0xffffffffu, me, owner);
      Word got = 0;
      Index walked = 0;
      for (Index chunk = b; chunk < e && got != want; chunk += 32) {
        const Index k = chunk + lane;
        long long u = 0;
        Word bits = 0;
        if (k < e) {
          u = a.tci[k];
          bits = a.frontier[u] & want & ~got;
        }
        Word before = bits;  // inclusive prefix OR over the lanes
        for (int off = 1; off < 32; off *= 2) {
          const Word t = __shfl_up_sync(0xffffffffu, before, off);
          if (lane >= off) before |= t;
        }
        const Word all = __shfl_sync(0xffffffffu, before, 31);
        Word exclusive = __shfl_up_sync(0xffffffffu, before, 1);
        if (lane == 0) exclusive = 0;
        // The sources this lane's in-neighbour is the first to give.
        for (Word first = bits & ~exclusive; first; first &= first - 1) {
          const int c = __ffsll(static_cast<long long>(first)) - 1;
          a.level[static_cast<Index>(c) * a.n + v] = a.depth_new;
          a.parent[static_cast<Index>(c) * a.n + v] = u;
          ++found;
        }
        got |= all;
        walked += (e - chunk < 32) ? (e - chunk) : 32;
      }
      if (lane == owner) gained = got;
      if (lane == 0) examined += static_cast<unsigned long long>(walked);
    }
    if (mine < a.n) {
      a.next[mine] = gained;
      if (gained) a.visited[mine] = seen | gained;
    }
  }
  found = warp_sum(found);
  examined = warp_sum(examined);
  if (lane == 0) {
    if (found) atomicAdd(a.count, found);
    if (examined) atomicAdd(a.examined, examined);
  }
}

}  // namespace

void bfs_many(BfsManyRun& run) {
  const SparseStorage& At = *run.At;
  const ops::Ctx c(At.device);
  const Device dev = At.device;
  const Index n = At.nrows;
  const auto k = static_cast<Index>(run.sources.size());
  run.depth = 0;
  run.edges_examined = 0;
  run.reached_per_level.clear();
  if (n == 0 || k == 0) return;
  const std::size_t bytes = static_cast<std::size_t>(n) * static_cast<std::size_t>(k) * sizeof(long long);
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(run.levels, 0xff, bytes, c.stream));  // -1 everywhere
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(run.parents, 0xff, bytes, c.stream));
  RawBuffer words[3] = {ops::temp<Word>(n, dev), ops::temp<Word>(n, dev), ops::temp<Word>(n, dev)};
  Word* visited = words[2].as<Word>();
  RawBuffer sources = ops::temp<long long>(k, dev);
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(sources.data(), run.sources.data(), static_cast<std::size_t>(k) * sizeof(long long),
                                    cudaMemcpyHostToDevice, c.stream));
  // counts[d]: pairs reached at level d (counts[0] the group's sources). No level past
  // n - 1 reaches anything, so level n, the last queued, always ends the loop.
  RawBuffer counts = ops::temp<unsigned long long>(n + 1, dev);
  RawBuffer examined = ops::temp<unsigned long long>(1, dev);
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(examined.data(), 0, sizeof(unsigned long long), c.stream));
  const unsigned grid = step_grid();
  std::vector<unsigned long long> host;
  for (Index first = 0; first < k; first += group) {
    const int width = static_cast<int>(std::min<Index>(group, k - first));
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(words[0].data(), 0, words[0].bytes(), c.stream));
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(visited, 0, words[2].bytes(), c.stream));
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, counts.bytes(), c.stream));
    long long* level = reinterpret_cast<long long*>(run.levels) + first * n;
    long long* parent = reinterpret_cast<long long*>(run.parents) + first * n;
    unsigned long long* count = counts.as<unsigned long long>();
    seed_kernel<<<1, group, 0, c.stream>>>(n, sources.as<long long>() + first, width, words[0].as<Word>(), visited, level,
                                          parent, count);
    GEBLAS_CUDA_CHECK_LAUNCH();
    ManyArgs a;
    a.n = n;
    a.tro = At.row_offsets.as<Index>();
    a.tci = At.col_indices.as<ColIndex>();
    a.visited = visited;
    a.wanted = width == group ? ~Word{0} : (Word{1} << width) - 1;
    a.level = level;
    a.parent = parent;
    a.examined = examined.as<unsigned long long>();
    Index queued = 0;  // levels 1..queued are queued
    int depth = -1;
    for (int batch = first_batch; depth < 0; batch = later_batch) {
      const Index from = queued + 1, to = std::min<Index>(queued + batch, n);
      for (Index d = from; d <= to; ++d) {
        a.frontier = words[(d - 1) & 1].as<Word>();
        a.next = words[d & 1].as<Word>();
        a.depth_new = d;
        a.previous_count = count + d - 1;
        a.count = count + d;
        level_kernel<<<grid, TraversalLaunchPolicy::grid_threads, 0, c.stream>>>(a);
        GEBLAS_CUDA_CHECK_LAUNCH();
      }
      queued = to;
      host.resize(static_cast<std::size_t>(to - from + 1));
      read_to_host(host.data(), count + from, host.size() * sizeof(unsigned long long), c.stream);
      for (std::size_t j = 0; j < host.size() && depth < 0; ++j) {
        if (host[j] == 0) {
          depth = static_cast<int>(from + static_cast<Index>(j)) - 1;
          break;
        }
        const auto d = static_cast<std::size_t>(from) + j;
        if (run.reached_per_level.size() < d) run.reached_per_level.resize(d, 0);
        run.reached_per_level[d - 1] += static_cast<double>(host[j]);
      }
    }
    run.depth = std::max(run.depth, depth);
  }
  unsigned long long total = 0;
  read_to_host(&total, examined.data(), sizeof total, c.stream);
  run.edges_examined = static_cast<double>(total);
}

}  // namespace geblas::detail::cuda::graph
