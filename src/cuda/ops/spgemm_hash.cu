// Sparse x sparse by rows with hash tables. Each output row i is accumulated in a table
// keyed by column: every product A(i,k) B(k,j) is inserted at j (open addressing, linear
// probing, keys claimed by CAS). Two passes over the products:
//  * count: keys only; the row's distinct columns give C's row offsets (one scan);
//  * fill: keys and values, the add monoid applied at the slot (atomic), then the table
//    sorted by key and its first entries written as row i of C.
// A row is processed by a group of threads whose size and table grow with the row's
// estimate (its products, at most B's columns, in the count pass; its exact entry count
// in the fill pass): rows are binned by it (HashSpgemmPolicy) and each bin is one launch.
// Within a group the products are spread evenly whatever the lengths of B's rows: the
// group takes A's row in chunks of one entry per thread, scans their B-row lengths, and
// each thread takes every group-th product of the chunk, found by binary search.
// Rows that touch a large share of C's columns take a dense row of columns instead (a
// bitmap in shared memory; their entries come out in column order, with no sort). Rows
// whose table does not fit in a block's shared memory use tables in global memory, one
// per block, and their entries are sorted afterwards by one segmented sort.
//
// Memory. Unlike esc (mxm_sparse_sparse.cu) the products are never written out. Beyond A,
// B and the mask the product holds C, 8 (m + 1) + nnz(C) (4 + v) bytes (m rows, n
// columns, v = sizeof(value), 4-byte columns, 8-byte offsets), and a workspace
//   W <= 40 (m + 1) + max(P, 4 n (4 + v)) + max(H, 2 n (4 + v)) + S
// with P = global_pool_bytes (global tables, or the dense rows' value pool), H =
// hub_chunk_bytes (the global bin's rows in the fill pass, unsorted and sorted, in chunks)
// and S the segmented sort's temporary for one chunk (a little more than its keys):
// 24 (m + 1) are the row arrays (estimates, bin lists, counts), 16 (m + 1) bounds the
// global bin's offsets; a table or a chunk exceeds P or H only where a single row needs
// more (a table has < 4 min(n, row estimate) slots). Before each phase the bytes it will
// hold are checked against the device's free memory (the driver's and the pool's unused):
// the count pass's row arrays and tables, then, once the counts give C's exact size, C
// and the fill pass's workspace, all before C is allocated; a product that cannot fit is
// OutOfMemory naming both numbers, and what it had allocated is freed.
//
// The order in which a slot's terms are added is not fixed: floating-point sums may
// differ in the last bits between runs (as any parallel reduction's); integer, min / max
// and logical results do not.
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/ops/spgemm_hash.cuh"

namespace geblas::detail::cuda::ops {

struct HashSpgemmPolicy {
  // A bin: rows of estimate <= slots / 2, each taken by `group` threads with a table of
  // `slots` entries in shared memory. group 32 is a warp and shares its block with
  // warp_block / 32 - 1 other rows (warp-synchronous); larger groups are the whole block.
  // The largest table (16384 slots of key + double, plus the chunk arrays) takes 209 KB
  // of Hopper's 227 KB of shared memory per block.
  struct Bin {
    int group;
    int slots;
  };
  static constexpr std::array<Bin, 5> bins = {{{32, 64}, {32, 256}, {128, 1024}, {256, 4096}, {512, 16384}}};
  static constexpr int warp_block = 256;
  // Rows above the last bin: blocks of global_group threads, one row at a time each, with
  // tables in global memory; at most global_pool_bytes of tables at once (fewer blocks
  // then), and at least one table whatever its size.
  static constexpr int global_group = 512;
  static constexpr std::size_t global_pool_bytes = std::size_t{256} << 20;
  static constexpr int global_blocks_per_sm = 2;
  // The fill pass takes the global bin's rows in chunks whose unsorted and sorted copies
  // take at most hub_chunk_bytes (at least one row): the workspace does not grow with C.
  static constexpr std::size_t hub_chunk_bytes = std::size_t{256} << 20;
  // Rows that touch a large share of C's columns take a dense row instead of a table: a
  // bitmap of the columns in shared memory (the count pass counts its bits; the fill
  // pass writes the entries in column order by a scan of it: no sort), values indexed by
  // column, in shared memory when they fit beside the bitmap, else in a global pool of
  // one row per block. A row is dense when its estimate x dense_ratio >= the columns (the
  // bitmap's clear and scan then cost at most one word per dense_ratio / 32 of the row's
  // estimate, against a table's sort of several passes per entry), and the bitmap fits:
  // at most dense_max_cols columns.
  static constexpr int dense_group = 256;
  static constexpr Index dense_ratio = 64;
  static constexpr Index dense_max_cols = Index{1} << 20;        // a 128 KB bitmap
  static constexpr std::size_t dense_shared_bytes = 200 * 1024;  // bitmap + values in shared memory
  static constexpr int dense_blocks_per_sm = 4;
};

namespace {

constexpr int n_bins = static_cast<int>(HashSpgemmPolicy::bins.size());
constexpr int dense_bin = n_bins;            // the rows with a dense row of columns
constexpr int global_bin = n_bins + 1;       // the rows with tables in global memory
constexpr unsigned empty_key = 0xffffffffu;  // sorts after every column
constexpr unsigned long long hash_mul = 2654435761ull;

// counters[b] rows in bin b (b <= global_bin); counters[global_bin + 1] the largest
// estimate among the global bin's rows.
constexpr int n_counters = global_bin + 2;

template <int G>
__device__ inline void group_sync() {
  if constexpr (G == 32) __syncwarp();
  else __syncthreads();
}

// Inclusive sum of x over the group (G threads; lane = thread in group). `totals` holds
// G / 32 Index in shared memory for groups larger than a warp; the caller syncs before
// the next call reuses it.
template <int G>
__device__ inline Index group_inclusive_sum(Index x, int lane, Index* totals) {
  const int l = lane & 31;
  for (int d = 1; d < 32; d <<= 1) {
    const Index y = __shfl_up_sync(0xffffffffu, x, d);
    if (l >= d) x += y;
  }
  if constexpr (G == 32) {
    return x;
  } else {
    constexpr int warps = G / 32;
    const int w = lane >> 5;
    if (l == 31) totals[w] = x;
    __syncthreads();
    if (w == 0) {
      Index t = l < warps ? totals[l] : 0;
      for (int d = 1; d < warps; d <<= 1) {
        const Index y = __shfl_up_sync(0xffffffffu, t, d);
        if (l >= d) t += y;
      }
      if (l < warps) totals[l] = t;
    }
    __syncthreads();
    return w > 0 ? x + totals[w - 1] : x;
  }
}

template <int G>
__device__ inline Index group_sum(Index x, int lane, Index* totals) {
  const Index incl = group_inclusive_sum<G>(x, lane, totals);
  // the last thread's inclusive sum is the total
  if constexpr (G == 32) {
    return __shfl_sync(0xffffffffu, incl, 31);
  } else {
    __shared__ Index total;
    if (lane == G - 1) total = incl;
    __syncthreads();
    return total;
  }
}

// The value a slot starts from: the add monoid's identity, except -0 for a floating-point
// plus, which leaves every sum as a fold from its first term would (+0 would turn an
// all -0 sum into +0).
template <class V>
__device__ inline V slot_start(MonoidId add) {
  if constexpr (std::is_floating_point_v<V>)
    if (add == MonoidId::plus) return V(-0.0);
  return monoid_identity<V>(add);
}

template <class V>
__device__ inline void slot_add(V* slot, V x, MonoidId add, bool claimed) {
  if (add == MonoidId::any) {
    if (claimed) *slot = x;  // the term of the thread that claimed the key
    return;
  }
  if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>) {
    if (add == MonoidId::plus) {
      atomicAdd(slot, x);
      return;
    }
  } else if constexpr (std::is_same_v<V, std::int32_t>) {
    if (add == MonoidId::plus) {
      atomicAdd(reinterpret_cast<int*>(slot), static_cast<int>(x));
      return;
    }
  } else if constexpr (std::is_same_v<V, std::int64_t>) {
    if (add == MonoidId::plus) {
      atomicAdd(reinterpret_cast<unsigned long long*>(slot), static_cast<unsigned long long>(x));
      return;
    }
  }
  atomic_update(slot, [=](V cur) { return monoid_apply<V>(add, cur, x); });
}

// Inserts key j; the slot it lands in, and whether this thread claimed it.
template <class S>
__device__ inline S insert_key(unsigned* keys, S slots, unsigned j, bool& claimed) {
  S h = static_cast<S>((j * hash_mul) & static_cast<unsigned long long>(slots - 1));
  for (;;) {
    unsigned cur = keys[h];
    if (cur == empty_key) {
      cur = atomicCAS(keys + h, empty_key, j);
      if (cur == empty_key) {
        claimed = true;
        return h;
      }
    }
    if (cur == j) {
      claimed = false;
      return h;
    }
    h = (h + 1) & (slots - 1);
  }
}

// The operands as the row kernels read them. V = void in the count pass (no values).
template <class V>
struct RowArgs {
  Index m = 0;
  Index ncols = 0;
  const Index* aro = nullptr;
  const ColIndex* aci = nullptr;
  const V* av = nullptr;
  const Index* bro = nullptr;
  const ColIndex* bci = nullptr;
  const V* bv = nullptr;
  MaskView mask;
  RtSemiring sr;
  const Index* rows = nullptr;  // the bin's rows
  Index count = 0;              // how many
  const Index* est = nullptr;   // each row's estimate (global tables are sized by it)
  // count pass: the rows' entry counts
  Index* row_nnz = nullptr;
  // fill pass: C, and for global-table rows the unsorted entries at hub_pos[r]
  const Index* cro = nullptr;
  ColIndex* cci = nullptr;
  V* cv = nullptr;
  const Index* hub_pos = nullptr;
  ColIndex* hub_ci = nullptr;
  V* hub_v = nullptr;
};

struct NoValue {};

// Shared memory of a group: the chunk of A's row (inclusive product offsets, B-row starts,
// A values) and the scan's warp totals; the table's keys and values live in `keys` / `vals`.
template <int G, class V>
struct Chunk {
  Index incl[G];
  Index bstart[G];
  Index totals[32];
  std::conditional_t<std::is_void_v<V>, NoValue, V> aval[std::is_void_v<V> ? 1 : G];
};

// Calls f(j, t, pb) for every product A(i,k) B(k,j) of row i that the mask allows (t:
// the chunk entry holding A(i,k), whose value is ch.aval[t]; pb: B(k,j)'s position). The
// group takes A's row in chunks of one entry per thread, scans their B-row lengths, and
// each thread takes every G-th product of the chunk, found by binary search.
template <int G, class V, class F>
__device__ void for_each_product(const RowArgs<V>& a, Index i, int lane, Chunk<G, V>& ch, F f) {
  const Index ea = a.aro[i + 1];
  for (Index pa = a.aro[i]; pa < ea; pa += G) {
    const Index p = pa + lane;
    Index len = 0;
    if (p < ea) {
      const ColIndex k = a.aci[p];
      const Index b0 = a.bro[k];
      len = a.bro[k + 1] - b0;
      ch.bstart[lane] = b0;
      if constexpr (!std::is_void_v<V>) ch.aval[lane] = a.av[p];
    }
    const Index incl = group_inclusive_sum<G>(len, lane, ch.totals);
    ch.incl[lane] = incl;
    group_sync<G>();
    const Index total = ch.incl[G - 1];
    for (Index q = lane; q < total; q += G) {
      // the chunk entry t holding product q: the first with incl[t] > q
      int lo = 0, hi = G - 1;
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (ch.incl[mid] > q) hi = mid;
        else lo = mid + 1;
      }
      const Index before = lo > 0 ? ch.incl[lo - 1] : 0;
      const Index pb = ch.bstart[lo] + (q - before);
      const unsigned j = static_cast<unsigned>(a.bci[pb]);
      if (a.mask.kind != MaskView::none && !a.mask.allows(i, j)) continue;
      f(j, lo, pb);
    }
    group_sync<G>();  // the chunk arrays are rewritten next
  }
}

// One row's products into the table (keys[0..slots), vals the same, V = void: keys only).
// Returns the keys this thread claimed.
template <int G, class V, class S>
__device__ Index accumulate_row(const RowArgs<V>& a, Index i, int lane, unsigned* keys,
                                std::conditional_t<std::is_void_v<V>, NoValue, V>* vals, S slots, Chunk<G, V>& ch) {
  constexpr bool numeric = !std::is_void_v<V>;
  for (S s = lane; s < slots; s += G) {
    keys[s] = empty_key;
    if constexpr (numeric) vals[s] = slot_start<V>(a.sr.add);
  }
  Index claimed_keys = 0;
  for_each_product<G, V>(a, i, lane, ch, [&](unsigned j, int t, Index pb) {
    bool claimed = false;
    const S h = insert_key(keys, slots, j, claimed);
    claimed_keys += claimed ? 1 : 0;
    if constexpr (numeric) slot_add(vals + h, binop_apply<V>(a.sr.mul, ch.aval[t], a.bv[pb]), a.sr.add, claimed);
  });
  return claimed_keys;
}

// Sorts the table by key (bitonic, slots a power of two): the row's entries come first.
template <int G, class V, class S>
__device__ void sort_table(unsigned* keys, V* vals, S slots, int lane) {
  for (S size = 2; size <= slots; size <<= 1)
    for (S stride = size >> 1; stride > 0; stride >>= 1) {
      for (S t = lane; t < slots / 2; t += G) {
        const S lo = 2 * t - (t & (stride - 1));
        const S hi = lo + stride;
        const bool up = (lo & size) == 0;
        const unsigned x = keys[lo], y = keys[hi];
        if ((x > y) == up) {
          keys[lo] = y;
          keys[hi] = x;
          const V t0 = vals[lo];
          vals[lo] = vals[hi];
          vals[hi] = t0;
        }
      }
      group_sync<G>();
    }
}

template <int G>
constexpr int block_threads_of() {
  return G == 32 ? HashSpgemmPolicy::warp_block : G;
}

// Shared bytes of a block of the bin kernel (table and chunk per group).
template <int G, int S, class V>
constexpr std::size_t shared_bytes() {
  constexpr std::size_t groups = block_threads_of<G>() / G;
  constexpr std::size_t vbytes = std::is_void_v<V> ? 0 : sizeof(std::conditional_t<std::is_void_v<V>, char, V>);
  std::size_t per = sizeof(Chunk<G, V>) + S * vbytes + S * sizeof(unsigned);
  per = (per + 15) / 16 * 16;
  return groups * per;
}

// Rows of one bin, tables in shared memory.
template <int G, int S, class V>
__global__ void __launch_bounds__(block_threads_of<G>()) bin_rows_kernel(RowArgs<V> a) {
  constexpr bool numeric = !std::is_void_v<V>;
  using Val = std::conditional_t<numeric, V, NoValue>;
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr std::size_t per = shared_bytes<G, S, V>() / (block_threads_of<G>() / G);
  const int group = static_cast<int>(threadIdx.x) / G, lane = static_cast<int>(threadIdx.x) % G;
  unsigned char* base = smem + group * per;
  Chunk<G, V>& ch = *reinterpret_cast<Chunk<G, V>*>(base);
  Val* vals = reinterpret_cast<Val*>(base + sizeof(Chunk<G, V>));
  unsigned* keys = reinterpret_cast<unsigned*>(base + sizeof(Chunk<G, V>) + (numeric ? S * sizeof(Val) : 0));
  const Index r = static_cast<Index>(blockIdx.x) * (block_threads_of<G>() / G) + group;
  if (r >= a.count) return;  // whole groups leave: a block-wide group is alone in its block
  const Index i = a.rows[r];
  const Index mine = accumulate_row<G, V, int>(a, i, lane, keys, vals, S, ch);
  if constexpr (!numeric) {
    const Index n = group_sum<G>(mine, lane, ch.totals);
    if (lane == 0) a.row_nnz[i] = n;
  } else {
    group_sync<G>();
    sort_table<G, V, int>(keys, vals, S, lane);
    const Index c0 = a.cro[i], nnz = a.cro[i + 1] - c0;
    for (Index s = lane; s < nnz; s += G) {
      a.cci[c0 + s] = static_cast<ColIndex>(keys[s]);
      a.cv[c0 + s] = vals[s];
    }
  }
}

// Rows of the global bin: one block takes rows r = blockIdx.x, + gridDim.x, ..., each with
// a table of the smallest power of two >= twice its estimate, in its part of the pool.
// The fill pass leaves each row's entries unsorted at hub_pos[r].
template <class V>
__global__ void __launch_bounds__(HashSpgemmPolicy::global_group)
    global_rows_kernel(RowArgs<V> a, unsigned* pool_keys, std::conditional_t<std::is_void_v<V>, NoValue, V>* pool_vals,
                       Index pool_slots) {
  constexpr int G = HashSpgemmPolicy::global_group;
  constexpr bool numeric = !std::is_void_v<V>;
  __shared__ Chunk<G, V> ch;
  __shared__ unsigned long long written;
  const int lane = static_cast<int>(threadIdx.x);
  unsigned* keys = pool_keys + blockIdx.x * pool_slots;
  auto* vals = numeric ? pool_vals + blockIdx.x * pool_slots : pool_vals;
  for (Index r = blockIdx.x; r < a.count; r += gridDim.x) {
    const Index i = a.rows[r];
    Index slots = 1;
    while (slots < 2 * a.est[i]) slots <<= 1;
    const Index mine = accumulate_row<G, V, Index>(a, i, lane, keys, vals, slots, ch);
    if constexpr (!numeric) {
      const Index n = group_sum<G>(mine, lane, ch.totals);
      if (lane == 0) a.row_nnz[i] = n;
    } else {
      if (lane == 0) written = 0;
      __syncthreads();
      const Index h0 = a.hub_pos[r];
      for (Index s = lane; s < slots; s += G)
        if (keys[s] != empty_key) {
          const Index w = h0 + static_cast<Index>(atomicAdd(&written, 1ull));
          a.hub_ci[w] = static_cast<ColIndex>(keys[s]);
          a.hub_v[w] = vals[s];
        }
    }
    __syncthreads();  // the table is cleared for the next row
  }
}

// Bins rows by estimate: counts per bin (block-aggregated), then the rows scattered into
// the bins' segments of `lists` in a second pass.
struct BinPlan {
  std::array<Index, global_bin + 2> start{};  // segment of bin b: [start[b], start[b + 1])
  Index global_max_est = 0;
};

template <std::size_t... B>
__device__ inline int first_bin_holding(Index est, std::index_sequence<B...>) {
  int bin = global_bin;
  ((bin == global_bin && 2 * est <= HashSpgemmPolicy::bins[B].slots ? (bin = static_cast<int>(B)) : 0), ...);
  return bin;
}

// What the binning may use on this device: C's columns, whether a dense row's bitmap fits
// in a block's shared memory, and the largest shared-memory bin that does (a device with
// less shared memory than Hopper sends the rows of the larger bins to global tables).
struct BinRule {
  Index ncols = 0;
  bool dense = false;
  int last_shared_bin = n_bins - 1;
};

// The dense bin, else the first bin whose tables hold twice the estimate; -1: no work.
__device__ inline int bin_of(Index est, const BinRule& rule) {
  if (est <= 0) return -1;
  if (rule.dense && est * HashSpgemmPolicy::dense_ratio >= rule.ncols) return dense_bin;
  const int b = first_bin_holding(est, std::make_index_sequence<n_bins>{});
  return b <= rule.last_shared_bin ? b : global_bin;
}

__global__ void count_bins_kernel(Index m, BinRule rule, const Index* est, unsigned long long* counters) {
  __shared__ unsigned long long local[n_counters];
  if (threadIdx.x < n_counters) local[threadIdx.x] = 0;
  __syncthreads();
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    const int b = bin_of(est[i], rule);
    if (b < 0) continue;
    atomicAdd(&local[b], 1ull);
    if (b == global_bin) atomicMax(&local[global_bin + 1], static_cast<unsigned long long>(est[i]));
  }
  __syncthreads();
  if (threadIdx.x <= global_bin) atomicAdd(&counters[threadIdx.x], local[threadIdx.x]);
  if (threadIdx.x == global_bin + 1) atomicMax(&counters[threadIdx.x], local[threadIdx.x]);
}

__global__ void scatter_bins_kernel(Index m, BinRule rule, const Index* est, unsigned long long* next, Index* lists) {
  __shared__ unsigned long long local[global_bin + 1], base[global_bin + 1];
  if (threadIdx.x <= global_bin) local[threadIdx.x] = 0;
  __syncthreads();
  // each block takes a contiguous range so that one pass over it ranks and places
  const Index per = (m + gridDim.x - 1) / gridDim.x;
  const Index lo = static_cast<Index>(blockIdx.x) * per, hi = lo + per < m ? lo + per : m;
  for (Index i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    const int b = bin_of(est[i], rule);
    if (b >= 0) atomicAdd(&local[b], 1ull);
  }
  __syncthreads();
  if (threadIdx.x <= global_bin) {
    base[threadIdx.x] = atomicAdd(&next[threadIdx.x], local[threadIdx.x]);
    local[threadIdx.x] = 0;
  }
  __syncthreads();
  for (Index i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    const int b = bin_of(est[i], rule);
    if (b >= 0) lists[base[b] + atomicAdd(&local[b], 1ull)] = i;
  }
}

// The largest dynamic shared memory a block of this device may take (opt-in), less the
// few static bytes a kernel declares beside it.
inline std::size_t shared_limit() {
  int device = 0, optin = 0;
  GEBLAS_CUDA_CHECK(cudaGetDevice(&device));
  GEBLAS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(optin) > 64 ? static_cast<std::size_t>(optin) - 64 : 0;
}

inline int sm_count() {
  int device = 0, sms = 0;
  GEBLAS_CUDA_CHECK(cudaGetDevice(&device));
  GEBLAS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms > 0 ? sms : 1;
}

template <class V, std::size_t... B>
int last_fitting_bin(std::size_t limit, std::index_sequence<B...>) {
  int last = -1;
  ((shared_bytes<HashSpgemmPolicy::bins[B].group, HashSpgemmPolicy::bins[B].slots, V>() <= limit
        ? (last = static_cast<int>(B))
        : 0),
   ...);
  return last;
}

// The bytes of a dense row's bitmap of n columns (a whole number of 16-byte units).
inline std::size_t bitmap_bytes(Index n) {
  return (static_cast<std::size_t>((n + 31) / 32) * sizeof(unsigned) + 15) / 16 * 16;
}

template <class V>
BinRule bin_rule(Index ncols) {
  const std::size_t limit = shared_limit();
  BinRule rule;
  rule.ncols = ncols;
  rule.last_shared_bin = last_fitting_bin<V>(limit, std::make_index_sequence<n_bins>{});
  rule.dense = ncols <= HashSpgemmPolicy::dense_max_cols &&
               bitmap_bytes(ncols) + sizeof(Chunk<HashSpgemmPolicy::dense_group, V>) + sizeof(Index) <= limit;
  return rule;
}

BinPlan bin_rows(Index m, const BinRule& rule, const Index* est, Index* lists, const Ctx& c) {
  const cudaStream_t s = c.stream;
  RawBuffer counters_buf = temp<unsigned long long>(n_counters, c.device);
  auto* counters = counters_buf.as<unsigned long long>();
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(counters, 0, n_counters * sizeof(unsigned long long), s));
  count_bins_kernel<<<blocks_for(m), LaunchPolicy::threads, 0, s>>>(m, rule, est, counters);
  GEBLAS_CUDA_CHECK_LAUNCH();
  std::array<unsigned long long, n_counters> host{};
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(host.data(), counters, sizeof(host), cudaMemcpyDeviceToHost, s));
  GEBLAS_CUDA_CHECK(cudaStreamSynchronize(s));
  BinPlan plan;
  for (int b = 0; b <= global_bin; ++b) plan.start[b + 1] = plan.start[b] + static_cast<Index>(host[b]);
  plan.global_max_est = static_cast<Index>(host[global_bin + 1]);
  if (plan.start[global_bin + 1] == 0) return plan;
  std::array<unsigned long long, global_bin + 1> next{};
  for (int b = 0; b <= global_bin; ++b) next[b] = static_cast<unsigned long long>(plan.start[b]);
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(counters, next.data(), sizeof(next), cudaMemcpyHostToDevice, s));
  scatter_bins_kernel<<<blocks_for(m), LaunchPolicy::threads, 0, s>>>(m, rule, est, counters, lists);
  GEBLAS_CUDA_CHECK_LAUNCH();
  // `next` is pageable: the copy has taken it before returning; `counters_buf` is freed in
  // stream order, after the kernel
  return plan;
}

// The dense rows: one block takes rows r = blockIdx.x, + gridDim.x, ... with a bitmap of
// the columns in shared memory; the fill pass adds each product at vals[j] (shared when
// ValuesShared, else this block's row of the pool), which hold slot_start between rows:
// a value is put back to it as its entry is written out.
template <class V, bool ValuesShared>
__global__ void __launch_bounds__(HashSpgemmPolicy::dense_group)
    dense_rows_kernel(RowArgs<V> a, std::conditional_t<std::is_void_v<V>, NoValue, V>* pool_vals) {
  constexpr int G = HashSpgemmPolicy::dense_group;
  constexpr bool numeric = !std::is_void_v<V>;
  using Val = std::conditional_t<numeric, V, NoValue>;
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ Chunk<G, V> ch;
  __shared__ Index placed;
  const int lane = static_cast<int>(threadIdx.x);
  const Index n = a.ncols, words = (n + 31) / 32;
  Val* vals = nullptr;
  if constexpr (numeric) vals = ValuesShared ? reinterpret_cast<Val*>(smem) : pool_vals + blockIdx.x * n;
  unsigned* bits = reinterpret_cast<unsigned*>(smem + (ValuesShared ? (n * sizeof(Val) + 15) / 16 * 16 : 0));
  if constexpr (numeric && ValuesShared)
    for (Index j = lane; j < n; j += G) vals[j] = slot_start<V>(a.sr.add);
  for (Index r = blockIdx.x; r < a.count; r += gridDim.x) {
    const Index i = a.rows[r];
    for (Index w = lane; w < words; w += G) bits[w] = 0;
    // the clear is seen by the first chunk's insertions: for_each_product syncs before them
    for_each_product<G, V>(a, i, lane, ch, [&](unsigned j, int t, Index pb) {
      const unsigned bit = 1u << (j & 31);
      const bool claimed = (atomicOr(bits + (j >> 5), bit) & bit) == 0;
      if constexpr (numeric) slot_add(vals + j, binop_apply<V>(a.sr.mul, ch.aval[t], a.bv[pb]), a.sr.add, claimed);
    });
    if constexpr (!numeric) {
      Index mine = 0;
      for (Index w = lane; w < words; w += G) mine += __popc(bits[w]);
      const Index total = group_sum<G>(mine, lane, ch.totals);
      if (lane == 0) a.row_nnz[i] = total;
    } else {
      // entries in column order: word w's set bits go after those of the words before it
      if (lane == 0) placed = a.cro[i];
      __syncthreads();
      for (Index w0 = 0; w0 < words; w0 += G) {
        const Index w = w0 + lane;
        unsigned word = w < words ? bits[w] : 0u;
        const Index cnt = __popc(word);
        const Index incl = group_inclusive_sum<G>(cnt, lane, ch.totals);
        Index pos = placed + incl - cnt;
        while (word != 0) {
          const int b = __ffs(word) - 1;
          word &= word - 1;
          const Index j = w * 32 + b;
          a.cci[pos] = static_cast<ColIndex>(j);
          a.cv[pos] = vals[j];
          vals[j] = slot_start<V>(a.sr.add);
          ++pos;
        }
        __syncthreads();  // every thread has read `placed`
        if (lane == G - 1) placed += incl;
        __syncthreads();
      }
    }
    __syncthreads();  // the bitmap is cleared for the next row
  }
}

// The memory an allocation on this device can still get: the driver's free memory and
// what the stream-ordered pool holds unused (geblas keeps freed blocks there).
inline std::size_t device_available() {
  int device = 0;
  GEBLAS_CUDA_CHECK(cudaGetDevice(&device));
  std::size_t free_bytes = 0, total = 0;
  GEBLAS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  cudaMemPool_t pool = nullptr;
  GEBLAS_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t reserved = 0, used = 0;
  GEBLAS_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  GEBLAS_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  return free_bytes + static_cast<std::size_t>(reserved > used ? reserved - used : 0);
}

// OutOfMemory before a phase starts when the bytes it will hold at once (`needed`, what
// they are in `what`) exceed what the device can still give: the product fails whole,
// before any of its kernels run, instead of at its n-th allocation.
void require_device_memory(std::size_t needed, const std::string& what, const Ctx& c) {
  const std::size_t available = device_available();
  if (needed <= available) return;
  throw OutOfMemory("mxm(sparse x sparse) on " + c.device.str() + ": " + what + " needs " + std::to_string(needed) +
                        " bytes, " + std::to_string(available) + " are free",
                    needed);
}

// How the dense rows run: values in shared memory beside the bitmap, or a pool of one row
// of values per block in global memory (pool_bytes).
struct DenseLaunch {
  bool in_shared = false;
  Index blocks = 0;
  std::size_t shared_bytes = 0;
  std::size_t pool_bytes = 0;
};

template <class V>
DenseLaunch dense_launch(Index count, Index n) {
  using Val = std::conditional_t<std::is_void_v<V>, NoValue, V>;
  constexpr bool numeric = !std::is_void_v<V>;
  DenseLaunch d;
  if (count == 0) return d;
  const std::size_t bitmap = bitmap_bytes(n);
  const std::size_t shared_vals = (static_cast<std::size_t>(n) * sizeof(Val) + 15) / 16 * 16;
  const std::size_t limit = shared_limit(), fixed = sizeof(Chunk<HashSpgemmPolicy::dense_group, V>) + sizeof(Index);
  const std::size_t fits = std::min(HashSpgemmPolicy::dense_shared_bytes, limit > fixed ? limit - fixed : 0);
  d.in_shared = numeric && shared_vals + bitmap <= fits;
  d.blocks = std::min<Index>(count, Index{sm_count()} * HashSpgemmPolicy::dense_blocks_per_sm);
  if (numeric && !d.in_shared) {
    const Index per_pool =
        static_cast<Index>(HashSpgemmPolicy::global_pool_bytes / (static_cast<std::size_t>(n) * sizeof(Val)));
    d.blocks = std::clamp<Index>(per_pool, 1, d.blocks);
    d.pool_bytes = static_cast<std::size_t>(d.blocks) * static_cast<std::size_t>(n) * sizeof(Val);
  }
  d.shared_bytes = bitmap + (d.in_shared ? shared_vals : 0);
  return d;
}

template <class V>
void launch_dense(RowArgs<V> a, const BinPlan& plan, const Index* lists, const Ctx& c) {
  using Val = std::conditional_t<std::is_void_v<V>, NoValue, V>;
  a.rows = lists + plan.start[dense_bin];
  a.count = plan.start[dense_bin + 1] - plan.start[dense_bin];
  if (a.count == 0) return;
  const Index n = a.ncols;
  const DenseLaunch d = dense_launch<V>(a.count, n);
  RawBuffer pool;
  if (d.pool_bytes > 0) {
    pool = temp_bytes(d.blocks * n, sizeof(Val), c.device);
    if constexpr (!std::is_void_v<V>) {
      Val* pv = pool.as<Val>();
      const MonoidId add = a.sr.add;
      for_each(d.blocks * n, c.stream, [=] __device__(Index e) { pv[e] = slot_start<V>(add); });
    }
  }
  const std::size_t bytes = d.shared_bytes;
  const auto launch = [&](auto kernel) {
    if (bytes > 48 * 1024)
      GEBLAS_CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
    kernel<<<static_cast<unsigned>(d.blocks), HashSpgemmPolicy::dense_group, bytes, c.stream>>>(
        a, static_cast<Val*>(pool.data()));
    GEBLAS_CUDA_CHECK_LAUNCH();
  };
  if (d.in_shared) launch(dense_rows_kernel<V, true>);
  else launch(dense_rows_kernel<V, false>);
}

template <int B, class V>
void launch_bin(RowArgs<V> a, const BinPlan& plan, const Index* lists, const Ctx& c) {
  constexpr int G = HashSpgemmPolicy::bins[B].group, S = HashSpgemmPolicy::bins[B].slots;
  a.rows = lists + plan.start[B];
  a.count = plan.start[B + 1] - plan.start[B];
  if (a.count > 0) {
    constexpr int threads = block_threads_of<G>();
    constexpr std::size_t bytes = shared_bytes<G, S, V>();
    if constexpr (bytes > 48 * 1024)
      GEBLAS_CUDA_CHECK(cudaFuncSetAttribute(bin_rows_kernel<G, S, V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(bytes)));
    const Index blocks = (a.count + threads / G - 1) / (threads / G);
    bin_rows_kernel<G, S, V><<<static_cast<unsigned>(blocks), threads, bytes, c.stream>>>(a);
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
  if constexpr (B + 1 < n_bins) launch_bin<B + 1, V>(a, plan, lists, c);
}

// How the global bin's rows run: `blocks` tables of `slots` entries (the smallest power of
// two >= twice the largest estimate), at most global_pool_bytes of them, at least one.
struct GlobalLaunch {
  Index slots = 0;
  Index blocks = 0;
  std::size_t bytes = 0;
};

template <class V>
GlobalLaunch global_launch(Index count, Index max_est) {
  using Val = std::conditional_t<std::is_void_v<V>, NoValue, V>;
  GlobalLaunch g;
  if (count == 0) return g;
  g.slots = 1;
  while (g.slots < 2 * max_est) g.slots <<= 1;
  const std::size_t slot_bytes = sizeof(unsigned) + (std::is_void_v<V> ? 0 : sizeof(Val));
  const Index fit =
      static_cast<Index>(HashSpgemmPolicy::global_pool_bytes / (static_cast<std::size_t>(g.slots) * slot_bytes));
  g.blocks =
      std::clamp<Index>(fit, 1, std::min<Index>(count, Index{sm_count()} * HashSpgemmPolicy::global_blocks_per_sm));
  g.bytes = static_cast<std::size_t>(g.blocks) * static_cast<std::size_t>(g.slots) * slot_bytes;
  return g;
}

// Launches `count` rows of the global bin (`rows`, indices into C) with tables sized for
// `max_est`.
template <class V>
void launch_global(RowArgs<V> a, const Index* rows, Index count, Index max_est, const Ctx& c) {
  using Val = std::conditional_t<std::is_void_v<V>, NoValue, V>;
  a.rows = rows;
  a.count = count;
  if (a.count == 0) return;
  const GlobalLaunch g = global_launch<V>(count, max_est);
  require_device_memory(g.bytes, "the global hash tables of " + std::to_string(count) + " rows", c);
  RawBuffer keys = temp<unsigned>(g.blocks * g.slots, c.device);
  RawBuffer vals = std::is_void_v<V> ? RawBuffer() : temp_bytes(g.blocks * g.slots, sizeof(Val), c.device);
  global_rows_kernel<V><<<static_cast<unsigned>(g.blocks), HashSpgemmPolicy::global_group, 0, c.stream>>>(
      a, keys.as<unsigned>(), static_cast<Val*>(vals.data()), g.slots);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

// The numeric phase: C's rows have their exact sizes (`offsets`, nvals entries in all).
// Everything it will hold is known before C is allocated, and checked against the free
// memory first. The global bin's rows go in chunks of consecutive rows whose two copies
// (unsorted, sorted) take at most hub_chunk_bytes (or one row, where a row needs more):
// each chunk is filled unsorted, sorted by one segmented sort and copied into C.
template <class V>
void hash_fill(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, RowArgs<void> count_args, Index* est,
               Index* lists, const Index* offsets, Index nvals, const Ctx& c) {
  const cudaStream_t s = c.stream;
  const Index m = A.nrows, n = B.ncols;
  constexpr std::size_t entry_bytes = sizeof(ColIndex) + sizeof(V);
  RowArgs<V> a;
  a.m = m;
  a.aro = count_args.aro;
  a.aci = count_args.aci;
  a.av = A.values.as<V>();
  a.bro = count_args.bro;
  a.bci = count_args.bci;
  a.bv = B.values.as<V>();
  a.mask = count_args.mask;
  a.sr = count_args.sr;
  a.est = est;
  a.ncols = count_args.ncols;
  for_each(m, s, [=] __device__(Index i) { est[i] = offsets[i + 1] - offsets[i]; });
  const BinPlan plan = bin_rows(m, bin_rule<V>(n), est, lists, c);

  // the global bin's layout and chunks
  const Index hubs = plan.start[global_bin + 1] - plan.start[global_bin];
  const Index* hub_rows = lists + plan.start[global_bin];
  RawBuffer pos_buf;
  std::vector<Index> host_pos;
  std::vector<Index> cuts{0};  // chunk k: hub rows [cuts[k], cuts[k + 1])
  Index chunk_items = 0, chunk_rows = 0;
  std::size_t sort_bytes = 0;
  if (hubs > 0) {
    pos_buf = temp<Index>(hubs + 1, c.device);
    Index* pos = pos_buf.as<Index>();
    for_each(hubs, s, [=] __device__(Index r) { pos[r] = est[hub_rows[r]]; });
    counts_to_offsets(pos, hubs, s);
    host_pos.resize(static_cast<std::size_t>(hubs) + 1);
    read_to_host(host_pos.data(), pos, host_pos.size() * sizeof(Index), s);
    const Index budget = std::max<Index>(1, static_cast<Index>(HashSpgemmPolicy::hub_chunk_bytes / (2 * entry_bytes)));
    for (Index r = 0; r < hubs;) {
      Index e = r + 1;
      while (e < hubs && host_pos[e + 1] - host_pos[r] <= budget) ++e;
      cuts.push_back(e);
      chunk_items = std::max(chunk_items, host_pos[e] - host_pos[r]);
      chunk_rows = std::max(chunk_rows, e - r);
      r = e;
    }
    GEBLAS_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(
        nullptr, sort_bytes, static_cast<const ColIndex*>(nullptr), static_cast<ColIndex*>(nullptr),
        static_cast<const V*>(nullptr), static_cast<V*>(nullptr), chunk_items, chunk_rows,
        static_cast<const Index*>(nullptr), static_cast<const Index*>(nullptr), s));
  }

  // what the phase holds at once: C, then the dense rows' pool, or a chunk's two copies
  // with its offsets and the larger of its tables and its sort's temporary
  const DenseLaunch dense = dense_launch<V>(plan.start[dense_bin + 1] - plan.start[dense_bin], n);
  const GlobalLaunch global = global_launch<V>(hubs, plan.global_max_est);
  const std::size_t chunk_bytes = hubs == 0 ? 0
                                            : static_cast<std::size_t>(chunk_rows + 1) * sizeof(Index) +
                                                  2 * static_cast<std::size_t>(chunk_items) * entry_bytes +
                                                  std::max(global.bytes, sort_bytes);
  const std::size_t workspace = std::max(dense.pool_bytes, chunk_bytes);
  const std::size_t c_bytes =
      static_cast<std::size_t>(m + 1) * sizeof(Index) + static_cast<std::size_t>(nvals) * entry_bytes;
  require_device_memory(c_bytes + workspace,
                        "the numeric phase (C: " + std::to_string(nvals) + " entries, " + std::to_string(c_bytes) +
                            " bytes; workspace: " + std::to_string(workspace) + " bytes)",
                        c);

  T = new_sparse(m, n, nvals, A.type, c.device);
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(T.row_offsets.data(), offsets, static_cast<std::size_t>(m + 1) * sizeof(Index),
                                    cudaMemcpyDeviceToDevice, s));
  a.cro = T.row_offsets.as<Index>();
  a.cci = T.col_indices.as<ColIndex>();
  a.cv = T.values.as<V>();
  launch_bin<0, V>(a, plan, lists, c);
  launch_dense<V>(a, plan, lists, c);
  if (hubs == 0) return;
  const Index* pos = pos_buf.as<Index>();
  const Index* cro = a.cro;
  ColIndex* cci = a.cci;
  V* cv = a.cv;
  RawBuffer rel_buf = temp<Index>(chunk_rows + 1, c.device);
  Index* rel = rel_buf.as<Index>();
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    const Index r0 = cuts[k], rows = cuts[k + 1] - r0;
    const Index base = host_pos[static_cast<std::size_t>(r0)];
    const Index items = host_pos[static_cast<std::size_t>(cuts[k + 1])] - base;
    const Index* chunk_hubs = hub_rows + r0;
    for_each(rows + 1, s, [=] __device__(Index r) { rel[r] = pos[r0 + r] - base; });
    RawBuffer ci_in = temp<ColIndex>(items, c.device), ci_out = temp<ColIndex>(items, c.device);
    RawBuffer v_in = temp<V>(items, c.device), v_out = temp<V>(items, c.device);
    a.hub_pos = rel;
    a.hub_ci = ci_in.as<ColIndex>();
    a.hub_v = v_in.as<V>();
    launch_global<V>(a, chunk_hubs, rows, plan.global_max_est, c);
    std::size_t bytes = 0;
    GEBLAS_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(nullptr, bytes, ci_in.as<ColIndex>(), ci_out.as<ColIndex>(),
                                                          v_in.as<V>(), v_out.as<V>(), items, rows, rel, rel + 1, s));
    RawBuffer tmp(bytes, c.device);
    GEBLAS_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(tmp.data(), bytes, ci_in.as<ColIndex>(),
                                                          ci_out.as<ColIndex>(), v_in.as<V>(), v_out.as<V>(), items,
                                                          rows, rel, rel + 1, s));
    const ColIndex* sci = ci_out.as<ColIndex>();
    const V* sv = v_out.as<V>();
    // entry e of the sorted chunk belongs to its row r = the last with rel[r] <= e
    for_each(items, s, [=] __device__(Index e) {
      Index lo = 0, hi = rows - 1;
      while (lo < hi) {
        const Index mid = (lo + hi + 1) / 2;
        if (rel[mid] <= e) lo = mid;
        else hi = mid - 1;
      }
      const Index w = cro[chunk_hubs[lo]] + (e - rel[lo]);
      cci[w] = sci[e];
      cv[w] = sv[e];
    });
  }
}

}  // namespace

void hash_product(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, const MaskView& mask, RtSemiring sr,
                  const Ctx& c) {
  const cudaStream_t s = c.stream;
  const Index m = A.nrows, n = B.ncols;
  require_device_memory(3 * static_cast<std::size_t>(m + 1) * sizeof(Index), "the symbolic phase's row arrays", c);
  RowArgs<void> a;
  a.m = m;
  a.aro = A.row_offsets.as<Index>();
  a.aci = A.col_indices.as<ColIndex>();
  a.bro = B.row_offsets.as<Index>();
  a.bci = B.col_indices.as<ColIndex>();
  a.mask = mask;
  a.sr = sr;
  RawBuffer est_buf = temp<Index>(m, c.device), lists_buf = temp<Index>(m, c.device);
  RawBuffer nnz_buf = temp<Index>(m + 1, c.device);
  Index* est = est_buf.as<Index>();
  Index* lists = lists_buf.as<Index>();
  Index* row_nnz = nnz_buf.as<Index>();
  a.est = est;
  a.row_nnz = row_nnz;
  // count pass: each row's estimate is its product count, at most B's columns and, under
  // a sparse mask that is not complemented, the mask row's entries (no other column can
  // be kept): smaller tables for masked rows
  const Index* aro = a.aro;
  const ColIndex* aci = a.aci;
  const Index* bro = a.bro;
  const bool mask_lists = mask.kind == MaskView::csr && !mask.complemented;
  const Index* mro = mask.ro;
  for_each(m, s, [=] __device__(Index i) {
    Index ub = 0;
    for (Index p = aro[i]; p < aro[i + 1]; ++p) ub += bro[aci[p] + 1] - bro[aci[p]];
    const Index cap = mask_lists && mro[i + 1] - mro[i] < n ? mro[i + 1] - mro[i] : n;
    est[i] = ub < cap ? ub : cap;
    row_nnz[i] = 0;  // rows without products are in no bin
  });
  a.ncols = n;
  const BinPlan plan = bin_rows(m, bin_rule<void>(n), est, lists, c);
  launch_bin<0, void>(a, plan, lists, c);
  launch_dense<void>(a, plan, lists, c);
  launch_global<void>(a, lists + plan.start[global_bin], plan.start[global_bin + 1] - plan.start[global_bin],
                      plan.global_max_est, c);
  const Index nvals = counts_to_offsets(row_nnz, m, s);
  if (nvals == 0) {
    T = new_sparse(m, n, 0, A.type, c.device);
    GEBLAS_CUDA_CHECK(cudaMemcpyAsync(T.row_offsets.data(), row_nnz, static_cast<std::size_t>(m + 1) * sizeof(Index),
                                      cudaMemcpyDeviceToDevice, s));
    return;
  }
  visit_type(A.type, [&]<class V>() { hash_fill<V>(T, A, B, a, est, lists, row_nnz, nvals, c); });
}

}  // namespace geblas::detail::cuda::ops
