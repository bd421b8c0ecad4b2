// The max / min SpMM with its argument (geblas/detail/spmm_arg.hpp) for the backward of
// max / min aggregation. Recording the argument by packing (float key, column) into int64
// and running an int64 max_min SpMM costs about 4x in 64-bit values and packing (on the
// H100, ego-Twitter at F = 512: 6.9 ms against 0.93 ms for the float32 max_times SpMM;
// docs/notes/python-torch-spmm.md).
// Here each lane keeps its best value and its column in registers and writes both once.
//
// A unit of work is a row of A or, for a row longer than piece_entries, one of the equal
// pieces it is cut into; a warp takes one, or at small F several short ones at once (the
// entry slots below). A unit's entries are read with coalesced loads and broadcast by
// shuffles, and each lane owns V consecutive columns of its tile (16-byte loads of X when
// V = 4). Entries are visited in column order and a term replaces the best only when
// strictly better, so the smallest column wins a tie. A cut row's pieces leave (best, column) in a workspace and
// a second kernel folds them in piece order with the same rule, so the result is the
// sequential scan's (NaN included: see better() below).
#include <cstdint>
#include <memory>
#include <string>

#include "core/derived_cache.hpp"
#include "cuda/check.cuh"
#include "cuda/context.cuh"
#include "cuda/ops/common.cuh"
#include "geblas/detail/spmm_arg.hpp"
#include "geblas/error.hpp"

namespace geblas::detail {
namespace cuda::spmm {
namespace {

// 4 units (warps) per block as the user-semiring kernel, V = 4 where X's rows allow
// 16-byte loads. A warp has `loads_in_flight` rows of X on the way before it compares the
// first: with one load at a time a hub row of R-MAT scale 20 kept the whole product
// waiting on its latency (max with its argument 13.5 ms forward + backward at F = 32,
// against 0.57 ms for max alone; H200). Eight in flight made it 8.2 ms, still
// one warp's walk of the hub row; rows longer than piece_entries are therefore cut into
// pieces of at most that many entries, each a warp's unit, so the longest unit costs
// piece_entries / loads_in_flight latencies whatever the graph's largest degree.
struct ArgExtremePolicy {
  static constexpr int rows_per_block = 4;
  // Rows of X in flight per entry slot: 8 of one float, 4 of four (16 bytes each). The
  // forward is latency-bound (a warp per row, mostly short rows): with 8 of four a thread
  // held 96 registers, 5 blocks per SM; 4 and at most 64 registers (min_blocks_per_sm,
  // 8 bytes spilled) fit 8 blocks and made R-MAT 20's forward 1.1-1.4x faster at every F
  // (H200: F = 16 1.32 -> 0.94 ms, F = 512 9.92 -> 8.41 ms).
  static constexpr int loads_in_flight(int v) { return v == 4 ? 4 : 8; }
  static constexpr int min_blocks_per_sm = 8;
  // With S > 1 slots, a unit of at most slot_row_steps x 32 / S entries is done by one
  // slot alone (its 32 / S lanes load as many entries per step).
  static constexpr int slot_row_steps = 2;
  static constexpr Index piece_entries = 256;
  static constexpr int fold_threads = 128;
  static constexpr unsigned max_grid_y = 65535;
};

// A unit of the work list: entries [begin, end) of `row`; slot < 0 writes Y and arg, else
// the workspace's row `slot` (a piece of a cut row; first: it is the row's first piece).
struct ArgUnit {
  Index begin, end, row;
  int slot, first;
};
// A cut row: its pieces' workspace rows are first_slot .. first_slot + pieces - 1.
struct ArgCut {
  Index row;
  int first_slot, pieces;
};

// The work list for A, in row order (a cut row's pieces together). When no row is longer
// than piece_entries the list is the rows themselves and `units` stays empty.
struct ArgPlan {
  RawBuffer units, cuts;
  Index unit_count = 0, cut_count = 0, slot_count = 0;
};

__host__ __device__ inline Index pieces_of(Index len) {
  constexpr Index P = ArgExtremePolicy::piece_entries;
  return len > P ? (len + P - 1) / P : 1;
}

std::shared_ptr<const ArgPlan> arg_plan(const SparseStorage& A) {
  return derived<ArgPlan>(A, "spmm_arg_pieces:" + std::to_string(ArgExtremePolicy::piece_entries), [&] {
    ops::Ctx c(A.device);
    const Index m = A.nrows;
    const Index* ro = A.row_offsets.as<Index>();
    ArgPlan plan;
    RawBuffer unit_at = ops::temp<Index>(m + 1, c.device);
    Index* u = unit_at.as<Index>();
    ops::for_each(m, c.stream, [=] __device__(Index i) { u[i] = pieces_of(ro[i + 1] - ro[i]); });
    plan.unit_count = ops::counts_to_offsets(u, m, c.stream);
    if (plan.unit_count == m) return plan;    // no cut row: a unit per row
    if (plan.unit_count > Index{0x7fffffff})  // workspace rows are numbered by int
      throw InvalidValue("spmm_arg_extreme: A's rows make more than 2^31 pieces");
    RawBuffer cut_at = ops::temp<Index>(m + 1, c.device), slot_at = ops::temp<Index>(m + 1, c.device);
    Index *ca = cut_at.as<Index>(), *sa = slot_at.as<Index>();
    ops::for_each(m, c.stream, [=] __device__(Index i) {
      const Index k = pieces_of(ro[i + 1] - ro[i]);
      ca[i] = k > 1 ? 1 : 0;
      sa[i] = k > 1 ? k : 0;
    });
    plan.cut_count = ops::counts_to_offsets(ca, m, c.stream);
    plan.slot_count = ops::counts_to_offsets(sa, m, c.stream);
    plan.units = RawBuffer(static_cast<std::size_t>(plan.unit_count) * sizeof(ArgUnit), A.device);
    plan.cuts = RawBuffer(static_cast<std::size_t>(plan.cut_count) * sizeof(ArgCut), A.device);
    ArgUnit* units = plan.units.as<ArgUnit>();
    ArgCut* cuts = plan.cuts.as<ArgCut>();
    ops::for_each(m, c.stream, [=] __device__(Index i) {
      const Index b = ro[i], e = ro[i + 1], k = pieces_of(e - b);
      if (k == 1) {
        units[u[i]] = {b, e, i, -1, 1};
        return;
      }
      const Index len = (e - b + k - 1) / k;  // equal pieces: their warps finish together
      for (Index q = 0; q < k; ++q) {
        const Index s = b + q * len < e ? b + q * len : e;
        units[u[i] + q] = {s, s + len < e ? s + len : e, i, static_cast<int>(sa[i] + q), q == 0 ? 1 : 0};
      }
      cuts[ca[i]] = {i, static_cast<int>(sa[i]), static_cast<int>(k)};
    });
    return plan;
  });
}

template <int V>
struct Pack;
template <>
struct Pack<1> {
  __device__ static void load(const float* p, float* x) { x[0] = __ldg(p); }
  __device__ static void store(float* p, int* w, const float* x, const int* k) {
    p[0] = x[0];
    w[0] = k[0];
  }
};
template <>
struct Pack<4> {
  __device__ static void load(const float* p, float* x) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(p));
    x[0] = v.x;
    x[1] = v.y;
    x[2] = v.z;
    x[3] = v.w;
  }
  // one 16-byte store each: four 4-byte stores per lane at a 16-byte stride took four
  // store instructions for what one does
  __device__ static void store(float* p, int* w, const float* x, const int* k) {
    *reinterpret_cast<float4*>(p) = make_float4(x[0], x[1], x[2], x[3]);
    *reinterpret_cast<int4*>(w) = make_int4(k[0], k[1], k[2], k[3]);
  }
};

// The result of a scan in entry (= column) order where a term replaces the best only when
// strictly better is: the row's first term if it is a NaN (nothing compares better than a
// NaN), else the best of the terms that are not NaN, the first of equal ones. So a lane
// skips NaNs, the entry slots' bests are combined with ties to the smaller column, and
// the first term of a row is put back where it is a NaN.
template <bool Max>
__device__ inline bool better(float t, float best) {
  return Max ? t > best : t < best;
}

// (best, who) of another slot into this slot's: the better, the smaller column on a tie;
// who < 0: nothing seen (a slot's best is never a NaN).
template <bool Max>
__device__ inline void merge(float& best, int& who, float other, int other_who) {
  if (other_who >= 0 && (who < 0 || better<Max>(other, best) || (other == best && other_who < who))) {
    best = other;
    who = other_who;
  }
}

// A lane's scan state for its V columns, before the first term: no best yet (who < 0),
// and the unit's first term (head) not seen.
template <int V>
__device__ __forceinline__ void start_scan(float (&best)[V], float (&head)[V], int (&who)[V]) {
#pragma unroll
  for (int v = 0; v < V; ++v) {
    best[v] = 0.0f;
    head[v] = 0.0f;
    who[v] = -1;
  }
}

// The term t of column k into a column's scan: taken when it is the first term that is
// not a NaN, or strictly better than the best.
template <bool Max>
__device__ __forceinline__ void take_if_better(float t, int k, float& best, int& who) {
  if ((who < 0 && t == t) || better<Max>(t, best)) {
    best = t;
    who = k;
  }
}

// S entry slots per warp: a slot is 32 / S lanes, each owning V consecutive columns. At
// small F (32 / S x V >= F) all 32 lanes then have work, where one entry at a time left
// 3 lanes in 4 idle at F = 32 (V = 4). A unit is done by the whole warp, the slots taking
// every S-th entry (unit_by_warp), or, when it is short, by one slot with its row's
// entries in order (unit_by_slot, S units at once): a power-law graph's rows are mostly a
// few entries long, and a warp per row paid the row's chain of dependent loads (unit,
// entries, X) for every one of them.

// The unit's entries by the whole warp; its result from the slots' merged bests.
template <bool Max, int V, int S>
__device__ void unit_by_warp(const ArgUnit& unit, int lane, const ColIndex* __restrict__ ci,
                             const float* __restrict__ av, Index n, const float* __restrict__ X, Index ldx, float* out,
                             int* out_who) {
  constexpr int L = 32 / S;  // lanes of a slot
  constexpr int U = ArgExtremePolicy::loads_in_flight(V);
  const int slot = lane / L;
  const Index begin = unit.begin, end = unit.end;
  for (Index j0 = static_cast<Index>(blockIdx.y) * L * V; j0 < n; j0 += static_cast<Index>(gridDim.y) * L * V) {
    const Index j = j0 + static_cast<Index>(lane % L) * V;
    const bool live = j < n;  // V > 1 only when V divides n: all V columns are live together
    float best[V], head[V];   // head: the unit's first term (slot 0 only)
    int who[V];
    start_scan(best, head, who);
    for (Index tile = begin; tile < end; tile += 32) {
      const int count = end - tile < 32 ? static_cast<int>(end - tile) : 32;
      int my_col = 0;
      float my_val = 1.0f;
      if (lane < count) {
        my_col = ci[tile + lane];
        my_val = av[tile + lane];
      }
      for (int e0 = 0; e0 < count; e0 += S * U) {
        int k[U];
        float a[U], x[U][V];
#pragma unroll
        for (int q = 0; q < U; ++q) {  // every lane shuffles; lanes past count are not used
          const int e = e0 + q * S + slot;
          k[q] = __shfl_sync(0xffffffffu, my_col, e & 31);
          a[q] = __shfl_sync(0xffffffffu, my_val, e & 31);
          if (live && e < count) Pack<V>::load(X + static_cast<Index>(k[q]) * ldx + j, x[q]);
        }
        // in entry order within the slot, so that the first of equal terms wins
#pragma unroll
        for (int q = 0; q < U; ++q) {
          if (!live || e0 + q * S + slot >= count) break;
#pragma unroll
          for (int v = 0; v < V; ++v) {
            const float t = a[q] * x[q][v];
            if (tile == begin && e0 + q * S + slot == 0) head[v] = t;
            take_if_better<Max>(t, k[q], best[v], who[v]);
          }
        }
      }
    }
#pragma unroll
    for (int off = L; off < 32; off <<= 1)
#pragma unroll
      for (int v = 0; v < V; ++v) {
        const float ob = __shfl_xor_sync(0xffffffffu, best[v], off);
        const int ow = __shfl_xor_sync(0xffffffffu, who[v], off);
        merge<Max>(best[v], who[v], ob, ow);
      }
    if (live && slot == 0) {
      const bool head_nan = unit.first != 0 && begin < end;  // a later piece's NaN never wins
#pragma unroll
      for (int v = 0; v < V; ++v)
        if (head_nan && head[v] != head[v]) {
          best[v] = head[v];
          who[v] = ci[begin];
        }
      Pack<V>::store(out + j, out_who + j, best, who);  // 0 and -1 for an empty row
    }
  }
}

// Each slot's own unit (mine: a short one) by the slot alone, its L lanes loading L
// entries at a time; len_max, the longest of the warp's short units, sets the common
// trip count. S > 1, so one tile of L x V columns covers the row.
template <bool Max, int V, int S>
__device__ void unit_by_slot(const ArgUnit& unit, bool mine, int len_max, int lane, const ColIndex* __restrict__ ci,
                             const float* __restrict__ av, Index n, const float* __restrict__ X, Index ldx, float* out,
                             int* out_who) {
  constexpr int L = 32 / S;
  constexpr int U = ArgExtremePolicy::loads_in_flight(V);
  const int base = lane / L * L, sub = lane % L;
  const Index j = static_cast<Index>(sub) * V;
  const bool live = mine && j < n;
  const int len = mine ? static_cast<int>(unit.end - unit.begin) : 0;
  float best[V], head[V];
  int who[V];
  start_scan(best, head, who);
  for (int t = 0; t < len_max; t += L) {
    const int count = len - t < L ? len - t : L;  // this slot's entries in the step (<= 0: none)
    int my_col = 0;
    float my_val = 1.0f;
    if (sub < count) {
      my_col = ci[unit.begin + t + sub];
      my_val = av[unit.begin + t + sub];
    }
    for (int e0 = 0; e0 < L; e0 += U) {
      int k[U];
      float a[U], x[U][V];
#pragma unroll
      for (int q = 0; q < U; ++q) {
        const int e = e0 + q;
        k[q] = __shfl_sync(0xffffffffu, my_col, base + (e & (L - 1)));
        a[q] = __shfl_sync(0xffffffffu, my_val, base + (e & (L - 1)));
        if (live && e < count) Pack<V>::load(X + static_cast<Index>(k[q]) * ldx + j, x[q]);
      }
#pragma unroll
      for (int q = 0; q < U; ++q) {
        if (!live || e0 + q >= count) break;
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const float term = a[q] * x[q][v];
          if (t == 0 && e0 + q == 0) head[v] = term;
          take_if_better<Max>(term, k[q], best[v], who[v]);
        }
      }
    }
  }
  if (live) {
    const bool head_nan = unit.first != 0 && len > 0;
#pragma unroll
    for (int v = 0; v < V; ++v)
      if (head_nan && head[v] != head[v]) {
        best[v] = head[v];
        who[v] = ci[unit.begin];
      }
    Pack<V>::store(out + j, out_who + j, best, who);
  }
}

template <bool Max, int V, int S>
__global__ void __launch_bounds__(32 * ArgExtremePolicy::rows_per_block, ArgExtremePolicy::min_blocks_per_sm)
    arg_extreme_kernel(const Index* __restrict__ ro, const ColIndex* __restrict__ ci, const float* __restrict__ av,
                       const ArgUnit* __restrict__ units, Index unit_count, Index n, const float* __restrict__ X,
                       Index ldx, float* __restrict__ Y, Index ldy, int* __restrict__ arg, Index lda,
                       float* __restrict__ piece_best, int* __restrict__ piece_who) {
  constexpr int L = 32 / S;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const Index w = static_cast<Index>(blockIdx.x) * ArgExtremePolicy::rows_per_block + (threadIdx.x >> 5);
  auto unit_at = [&](Index u) {
    if (units) return units[u];
    return ArgUnit{ro[u], ro[u + 1], u, -1, 1};
  };
  auto out_of = [&](const ArgUnit& unit) {
    return unit.slot < 0 ? Y + unit.row * ldy : piece_best + static_cast<Index>(unit.slot) * n;
  };
  auto who_of = [&](const ArgUnit& unit) {
    return unit.slot < 0 ? arg + unit.row * lda : piece_who + static_cast<Index>(unit.slot) * n;
  };
  if constexpr (S == 1) {
    if (w >= unit_count) return;  // whole warps leave together
    const ArgUnit unit = unit_at(w);
    unit_by_warp<Max, V, S>(unit, lane, ci, av, n, X, ldx, out_of(unit), who_of(unit));
  } else {
    const Index first = w * S;  // the warp's S units, one per slot
    if (first >= unit_count) return;
    const Index mine = first + lane / L;
    const bool have = mine < unit_count;
    const ArgUnit unit = have ? unit_at(mine) : ArgUnit{0, 0, 0, -1, 1};
    const Index len = unit.end - unit.begin;
    const bool is_short = have && len <= Index{ArgExtremePolicy::slot_row_steps} * L;
    const int len_max = static_cast<int>(__reduce_max_sync(0xffffffffu, is_short ? static_cast<unsigned>(len) : 0u));
    if (__any_sync(0xffffffffu, is_short))
      unit_by_slot<Max, V, S>(unit, is_short, len_max, lane, ci, av, n, X, ldx, out_of(unit), who_of(unit));
    // the long ones one after another, each by the whole warp
    unsigned long_units = __ballot_sync(0xffffffffu, have && !is_short && lane % L == 0);
    while (long_units) {
      const int leader = __ffs(long_units) - 1;
      long_units &= long_units - 1;
      ArgUnit u;
      u.begin = __shfl_sync(0xffffffffu, unit.begin, leader);
      u.end = __shfl_sync(0xffffffffu, unit.end, leader);
      u.row = __shfl_sync(0xffffffffu, unit.row, leader);
      u.slot = __shfl_sync(0xffffffffu, unit.slot, leader);
      u.first = __shfl_sync(0xffffffffu, unit.first, leader);
      unit_by_warp<Max, V, S>(u, lane, ci, av, n, X, ldx, out_of(u), who_of(u));
    }
  }
}

// Y and arg of each cut row from its pieces, in piece order: a later piece with a best
// (who >= 0; it never holds a NaN) replaces the running one only when strictly better.
template <bool Max>
__global__ void arg_fold_kernel(const ArgCut* __restrict__ cuts, Index cut_count, Index n,
                                const float* __restrict__ piece_best, const int* __restrict__ piece_who,
                                float* __restrict__ Y, Index ldy, int* __restrict__ arg, Index lda) {
  for (Index c = blockIdx.x; c < cut_count; c += gridDim.x) {
    const ArgCut cut = cuts[c];
    for (Index f = threadIdx.x; f < n; f += blockDim.x) {
      const Index at = static_cast<Index>(cut.first_slot) * n + f;
      float best = piece_best[at];
      int who = piece_who[at];  // the first piece is not empty: who >= 0
#pragma unroll 8
      for (int q = 1; q < cut.pieces; ++q) {
        const float t = piece_best[at + static_cast<Index>(q) * n];
        const int k = piece_who[at + static_cast<Index>(q) * n];
        if (k >= 0 && (Max ? t > best : t < best)) {
          best = t;
          who = k;
        }
      }
      Y[cut.row * ldy + f] = best;
      arg[cut.row * lda + f] = who;
    }
  }
}

template <bool Max, int V, int S>
void launch(const SparseStorage& A, const DenseStorage& X, DenseStorage& Y, DenseStorage& arg, cudaStream_t s) {
  const Index n = Y.ncols;
  const auto plan = arg_plan(A);
  RawBuffer best = ops::temp<float>(plan->slot_count * n, A.device);
  RawBuffer who = ops::temp<int>(plan->slot_count * n, A.device);
  const Index per_block = Index{ArgExtremePolicy::rows_per_block} * S;  // S units per warp
  const Index blocks = (plan->unit_count + per_block - 1) / per_block;
  constexpr Index width = 32 / S * V;  // columns of a tile
  const Index tiles = (n + width - 1) / width;
  const dim3 grid(static_cast<unsigned>(blocks),
                  static_cast<unsigned>(tiles < ArgExtremePolicy::max_grid_y ? tiles : ArgExtremePolicy::max_grid_y));
  arg_extreme_kernel<Max, V, S><<<grid, 32 * ArgExtremePolicy::rows_per_block, 0, s>>>(
      A.row_offsets.as<Index>(), A.col_indices.as<ColIndex>(), A.values.as<float>(),
      plan->cut_count > 0 ? plan->units.as<ArgUnit>() : nullptr, plan->unit_count, n, X.data.as<float>(), X.ld,
      Y.data.as<float>(), Y.ld, arg.data.as<int>(), arg.ld, best.as<float>(), who.as<int>());
  GEBLAS_CUDA_CHECK_LAUNCH();
  if (plan->cut_count == 0) return;
  arg_fold_kernel<Max><<<ops::blocks_for(plan->cut_count, 1), ArgExtremePolicy::fold_threads, 0, s>>>(
      plan->cuts.as<ArgCut>(), plan->cut_count, n, best.as<float>(), who.as<int>(), Y.data.as<float>(), Y.ld,
      arg.data.as<int>(), arg.ld);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

// The entry slots for F columns of V each: the most that still give every lane of a slot
// a column (at most 8).
template <bool Max, int V>
void launch_for_width(const SparseStorage& A, const DenseStorage& X, DenseStorage& Y, DenseStorage& arg,
                      cudaStream_t s) {
  const Index lanes = (Y.ncols + V - 1) / V;
  if (lanes <= 4) launch<Max, V, 8>(A, X, Y, arg, s);
  else if (lanes <= 8) launch<Max, V, 4>(A, X, Y, arg, s);
  else if (lanes <= 16) launch<Max, V, 2>(A, X, Y, arg, s);
  else launch<Max, V, 1>(A, X, Y, arg, s);
}

// dX(arg(i, f), f) += grad(i, f) x A(i, arg(i, f)): the backward of the max / min
// forward. Atomic adds, as torch's scatter_add: a column of X that won several rows takes
// several gradients. With av null A's values are all 1; else A(i, j) is found by a binary
// search of row i's sorted columns (log of its length in loads, against the F loads of
// the row's gradients).
__global__ void arg_scatter_kernel(Index m, Index n, Index k, const int* __restrict__ arg, Index lda,
                                   const float* __restrict__ grad, Index ldg, float* __restrict__ dx, Index ldd,
                                   const Index* __restrict__ ro, const ColIndex* __restrict__ ci,
                                   const float* __restrict__ av) {
  const Index total = m * n;
  for (Index t = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += static_cast<Index>(gridDim.x) * blockDim.x) {
    const Index i = t / n, f = t - i * n;
    const int a = arg[i * lda + f];
    if (a < 0 || a >= k) continue;
    float g = grad[i * ldg + f];
    if (av) {
      const Index at = ops::search_sorted(ci, ro[i], ro[i + 1], static_cast<ColIndex>(a));
      if (at < 0) continue;  // not an entry of row i: not an argument this A gave
      g *= av[at];
    }
    atomicAdd(dx + a * ldd + f, g);
  }
}

}  // namespace
}  // namespace cuda::spmm

void cuda_spmm_arg_extreme(const SparseStorage& A, const DenseStorage& X, DenseStorage& Y, DenseStorage& arg,
                           bool max) {
  const std::string op = "spmm_arg_extreme";
  if (!A.device.is_cuda())
    throw InvalidValue(op + ": A is on " + A.device.str() + "; this kernel runs on CUDA devices");
  auto same_device = [&](const DenseStorage& d, const char* name) {
    if (d.device != A.device)
      throw DeviceMismatch(op + ": " + name + " is on " + d.device.str() + " but A is on " + A.device.str());
  };
  same_device(X, "X");
  same_device(Y, "Y");
  same_device(arg, "arg");
  if (A.type != TypeId::float32 || X.type != TypeId::float32 || Y.type != TypeId::float32)
    throw DomainMismatch(op + ": A, X and Y must be float32 (A is " + std::string(to_string(A.type)) + ", X " +
                         std::string(to_string(X.type)) + ", Y " + std::string(to_string(Y.type)) + ")");
  if (arg.type != TypeId::int32)
    throw DomainMismatch(op + ": arg must be int32, is " + std::string(to_string(arg.type)));
  if (X.layout != Layout::row_major || Y.layout != Layout::row_major || arg.layout != Layout::row_major)
    throw InvalidValue(op + ": X, Y and arg must be row-major");
  if (X.nrows != A.ncols)
    throw DimensionMismatch(op + ": A is " + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) + " but X has " +
                            std::to_string(X.nrows) + " rows");
  if (Y.nrows != A.nrows || Y.ncols != X.ncols || arg.nrows != A.nrows || arg.ncols != X.ncols)
    throw DimensionMismatch(op + ": Y and arg must be " + std::to_string(A.nrows) + " x " + std::to_string(X.ncols) +
                            " (Y is " + std::to_string(Y.nrows) + " x " + std::to_string(Y.ncols) + ", arg " +
                            std::to_string(arg.nrows) + " x " + std::to_string(arg.ncols) + ")");
  if (A.nrows == 0 || X.ncols == 0) return;
  const int ordinal = A.device.ordinal();
  cuda::DeviceGuard guard(ordinal);
  const cudaStream_t s = cuda::stream(ordinal);
  // 16-byte loads of X and stores of Y and arg need 4 | F, 16-byte aligned bases and row
  // strides (the workspace's rows are F wide, its base aligned).
  auto aligned = [](const DenseStorage& d) {
    return d.ld % 4 == 0 && reinterpret_cast<std::uintptr_t>(d.data.data()) % 16 == 0;
  };
  const bool vec = X.ncols % 4 == 0 && aligned(X) && aligned(Y) && aligned(arg);
  if (max) {
    if (vec) cuda::spmm::launch_for_width<true, 4>(A, X, Y, arg, s);
    else cuda::spmm::launch_for_width<true, 1>(A, X, Y, arg, s);
  } else {
    if (vec) cuda::spmm::launch_for_width<false, 4>(A, X, Y, arg, s);
    else cuda::spmm::launch_for_width<false, 1>(A, X, Y, arg, s);
  }
}

void cuda_spmm_arg_scatter(const DenseStorage& arg, const DenseStorage& grad, DenseStorage& dX,
                           const SparseStorage* A) {
  const std::string op = "spmm_arg_scatter";
  if (!arg.device.is_cuda())
    throw InvalidValue(op + ": arg is on " + arg.device.str() + "; this kernel runs on CUDA devices");
  if (grad.device != arg.device || dX.device != arg.device)
    throw DeviceMismatch(op + ": arg is on " + arg.device.str() + ", grad on " + grad.device.str() + ", dX on " +
                         dX.device.str());
  if (arg.type != TypeId::int32 || grad.type != TypeId::float32 || dX.type != TypeId::float32)
    throw DomainMismatch(op + ": arg must be int32 (is " + std::string(to_string(arg.type)) +
                         "), grad and dX float32 (are " + std::string(to_string(grad.type)) + ", " +
                         std::string(to_string(dX.type)) + ")");
  if (arg.layout != Layout::row_major || grad.layout != Layout::row_major || dX.layout != Layout::row_major)
    throw InvalidValue(op + ": arg, grad and dX must be row-major");
  if (grad.nrows != arg.nrows || grad.ncols != arg.ncols || dX.ncols != arg.ncols)
    throw DimensionMismatch(op + ": grad must be " + std::to_string(arg.nrows) + " x " + std::to_string(arg.ncols) +
                            " as arg, and dX have " + std::to_string(arg.ncols) + " columns (grad is " +
                            std::to_string(grad.nrows) + " x " + std::to_string(grad.ncols) + ", dX " +
                            std::to_string(dX.nrows) + " x " + std::to_string(dX.ncols) + ")");
  if (A) {
    if (A->device != arg.device)
      throw DeviceMismatch(op + ": A is on " + A->device.str() + " but arg on " + arg.device.str());
    if (A->type != TypeId::float32)
      throw DomainMismatch(op + ": A must be float32, is " + std::string(to_string(A->type)));
    if (A->nrows != arg.nrows || A->ncols != dX.nrows)
      throw DimensionMismatch(op + ": A is " + std::to_string(A->nrows) + " x " + std::to_string(A->ncols) +
                              " but arg has " + std::to_string(arg.nrows) + " rows and dX " + std::to_string(dX.nrows));
  }
  const int ordinal = arg.device.ordinal();
  cuda::DeviceGuard guard(ordinal);
  const cudaStream_t s = cuda::stream(ordinal);
  if (dX.nrows == 0 || dX.ncols == 0) return;
  if (dX.ld == dX.ncols) {
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(dX.data.data(), 0, static_cast<std::size_t>(dX.nrows * dX.ncols) * 4, s));
  } else {
    GEBLAS_CUDA_CHECK(cudaMemset2DAsync(dX.data.data(), static_cast<std::size_t>(dX.ld) * 4, 0,
                                        static_cast<std::size_t>(dX.ncols) * 4, static_cast<std::size_t>(dX.nrows), s));
  }
  if (arg.nrows == 0) return;
  cuda::spmm::
      arg_scatter_kernel<<<cuda::ops::blocks_for(arg.nrows * arg.ncols), cuda::ops::LaunchPolicy::threads, 0, s>>>(
          arg.nrows, arg.ncols, dX.nrows, arg.data.as<int>(), arg.ld, grad.data.as<float>(), grad.ld,
          dX.data.as<float>(), dX.ld, A ? A->row_offsets.as<Index>() : nullptr,
          A ? A->col_indices.as<ColIndex>() : nullptr, A ? A->values.as<float>() : nullptr);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

}  // namespace geblas::detail
