// The half and bfloat16 kernels of the tensor-core row-window SpMM (tc_window,
// tc_window_all; plus_times with A, B and C all 16-bit). Products of 16-bit values are
// exact in fp32 and the mma accumulates in fp32, so the result is of the same class as
// the CUDA-core path: computed in fp32, rounded once when C is stored.
//
// Tensor-core windows: a block takes one window (or one 256-column segment of a wider
// one) and up to 256 columns of C; it stages the segment once as a dense 16 x 256 tile of
// 16-bit values in shared memory and each warp runs mma.m16n8k16 over 64 columns of C
// (eight n8 tiles). A B fragment register holds two K values of one column, which come
// from two different condensed columns, so a lane gathers four rows of B per k-step. On
// row-major, 16-byte aligned B and C with N % 8 == 0 the eight tiles are interleaved
// (tile q holds columns 8i + q): a lane's values of one condensed column for all eight
// tiles are one 16-byte load of B, paired into registers with byte permutes, and its
// results for eight consecutive columns one 16-byte store of C. Other layouts gather
// scalars. Windows kept on CUDA cores run row_split's warp loop (warp_row.cuh) on 16-bit
// values: entry slots, 16-byte loads of 8 values of B, fp32 accumulators.
//
// A row computed by several items (a segmented window, a long row cut into pieces) is
// summed in an fp32 scratch row (atomics, order may vary between runs) and rounded into
// C once by a last kernel, so no 16-bit partial sum is ever stored.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>

#include "cuda/check.cuh"
#include "cuda/spmm/tc_window.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/warp_row.cuh"
#include "cuda/spmm/window_plan.cuh"

namespace geblas::detail::cuda {
namespace {

struct Tc16Policy {
  static constexpr int rows = WindowPolicy::window_rows;  // mma M
  static constexpr int k = WindowPolicy::k_step_16bit;    // mma K
  // Row padding of the staged tile in 16-bit values: rows 132 words apart (4 mod 32),
  // so the A fragment loads (word row lane/4, word column lane%4) of a warp fall into
  // 32 different banks, as in the TF32 kernel.
  static constexpr int pad = 8;
  static constexpr int tiles = 8;      // n8 tiles per warp: one 16-byte load of B covers all
  static constexpr int warp_n = 8 * tiles;
  static constexpr int max_warps = 4;  // a block covers up to 256 columns of C
  // k-steps whose gathers of B are issued before the first of their mma: 16 loads of 16
  // bytes per lane on the vector path (the bytes in flight of the TF32 vector path), 64
  // scalar loads on the scalar path. Chosen by analogy with the TF32 kernel and kept
  // after the H100 runs 4 and 5 (docs/PERFORMANCE.md, "Hybrid tensor-core SpMM"), which
  // timed this kernel but did not sweep these two depths.
  static constexpr int kg_vector = 4;
  static constexpr int kg_scalar = 2;
};

struct Cc16Policy {
  static constexpr int warps = 8;   // work items (rows or pieces) per block, as row_split
  static constexpr int unroll = 4;  // loads of B in flight per entry slot, as row_split
  static constexpr int finish_cols = 256;  // columns per block of the rounding kernel
};

struct Half {
  using Stored = __half;
  __device__ static float to_float(unsigned short b) { return __half2float(__ushort_as_half(b)); }
  __device__ static unsigned short from_float(float x) { return __half_as_ushort(__float2half_rn(x)); }
  __device__ static float2 unpack(unsigned w) {
    __half2 h;
    std::memcpy(&h, &w, 4);
    return __half22float2(h);
  }
  __device__ static unsigned pack(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    unsigned w;
    std::memcpy(&w, &h, 4);
    return w;
  }
  __device__ static void mma(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0,
                             unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
};

struct BFloat {
  using Stored = __nv_bfloat16;
  __device__ static float to_float(unsigned short b) { return __uint_as_float(static_cast<unsigned>(b) << 16); }
  __device__ static unsigned short from_float(float x) { return __bfloat16_as_ushort(__float2bfloat16_rn(x)); }
  __device__ static float2 unpack(unsigned w) { return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u)); }
  __device__ static unsigned pack(float lo, float hi) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    unsigned w;
    std::memcpy(&w, &h, 4);
    return w;
  }
  __device__ static void mma(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0,
                             unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
};

using u16 = unsigned short;

struct Op16 {
  const Index* __restrict__ ro;
  const ColIndex* __restrict__ ci;
  const u16* __restrict__ av;
  const int* __restrict__ local;  // condensed column of each entry
  const int* __restrict__ wcols;  // condensed column -> column of A
  const int* __restrict__ wco;    // window -> first condensed column
  Index nrows;
  Index n;
  const u16* __restrict__ b;
  Index b_rs, b_cs;  // B(i, j) at b[i * b_rs + j * b_cs]
  u16* c;
  Index c_rs, c_cs;
  bool accumulate;
  float* scratch;       // [split rows x n] fp32 sums of the rows several items add into
  const int* row_slot;  // row -> its scratch row, -1 for rows one item computes
};

__device__ __forceinline__ u16& c_at(const Op16& op, Index i, Index j) { return op.c[i * op.c_rs + j * op.c_cs]; }

// One finished value of C: into the row's scratch (slot >= 0) or rounded into C.
template <class L>
__device__ __forceinline__ void put(const Op16& op, Index row, Index j, float v, int slot) {
  if (slot >= 0) {
    atomicAdd(op.scratch + static_cast<Index>(slot) * op.n + j, v);
  } else {
    u16& out = c_at(op, row, j);
    out = L::from_float(op.accumulate ? L::to_float(out) + v : v);
  }
}

// grid: (tensor-core items, column blocks of C); block: 32, 64 or 128 threads.
template <class L, bool Vec>
__global__ void __launch_bounds__(Tc16Policy::max_warps * 32)
    tc16_items_kernel(Op16 op, const int2* __restrict__ items) {
  using P = Tc16Policy;
  constexpr int seg = WindowPolicy::segment_columns;
  constexpr int stride = seg + P::pad;  // 16-bit values
  constexpr int wstride = stride / 2;   // 32-bit words
  constexpr int KG = Vec ? P::kg_vector : P::kg_scalar;
  __shared__ __align__(16) u16 tile[P::rows * stride];
  __shared__ int seg_cols[seg];
  __shared__ Index row_start[P::rows + 1];
  const int2 item = items[blockIdx.x];
  const int w = item.x;
  const int tid = static_cast<int>(threadIdx.x);
  const int nthreads = static_cast<int>(blockDim.x);
  const int lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const Index row0 = static_cast<Index>(w) * P::rows;
  const int col_begin = op.wco[w];
  const int ncols = op.wco[w + 1] - col_begin;
  const int k_begin = item.y * seg;
  const int kn = min(ncols - k_begin, seg);  // condensed columns of this segment, 1..seg
  const int ksteps = (kn + P::k - 1) / P::k;
  const bool split = ncols > seg;

  // Stage the segment as a dense 16 x kn tile (zeros elsewhere), as the TF32 kernel.
  {
    uint4* t4 = reinterpret_cast<uint4*>(tile);
    for (int i = tid; i < P::rows * stride / 8; i += nthreads) t4[i] = make_uint4(0u, 0u, 0u, 0u);
  }
  for (int i = tid; i < ksteps * P::k; i += nthreads) seg_cols[i] = i < kn ? op.wcols[col_begin + k_begin + i] : -1;
  for (int i = tid; i <= P::rows; i += nthreads) row_start[i] = op.ro[min(row0 + i, op.nrows)];
  __syncthreads();
  const Index e_end = row_start[P::rows];
  for (Index e = row_start[0] + tid; e < e_end; e += nthreads) {
    const int lc = op.local[e] - k_begin;
    if (lc < 0 || lc >= kn) continue;
    int r = 0;  // the entry's row in the window: the last r with row_start[r] <= e
#pragma unroll
    for (int step = P::rows / 2; step > 0; step >>= 1)
      if (row_start[r + step] <= e) r += step;
    tile[r * stride + lc] = op.av[e];
  }
  __syncthreads();

  const Index n0 = static_cast<Index>(blockIdx.y) * (nthreads / 32) * P::warp_n + warp * P::warp_n;
  if (n0 >= op.n) return;  // no barrier follows

  float acc[P::tiles][4];
#pragma unroll
  for (int q = 0; q < P::tiles; ++q) acc[q][0] = acc[q][1] = acc[q][2] = acc[q][3] = 0.f;

  const unsigned* tw = reinterpret_cast<const unsigned*>(tile);
  // Vec: lane (g, t) reads B(c, n0 + 8g .. n0 + 8g + 7); value q is its fragment value
  // of tile q (fragment column g of tile q = column n0 + 8g + q of C).
  const Index jv = n0 + 8 * g;
  const bool v_in = jv < op.n;  // N % 8 == 0: the 8 columns are all inside or all outside
  for (int kg = 0; kg < ksteps; kg += KG) {
    unsigned b[KG][P::tiles][2];
#pragma unroll
    for (int s = 0; s < KG; ++s) {
      const int kk = (kg + s) * P::k;
      const bool live = kg + s < ksteps;
      // The fragment's K rows 2t, 2t+1 (register 0) and 2t+8, 2t+9 (register 1).
      int c[4];
      c[0] = live ? seg_cols[kk + 2 * t] : -1;
      c[1] = live ? seg_cols[kk + 2 * t + 1] : -1;
      c[2] = live ? seg_cols[kk + 2 * t + 8] : -1;
      c[3] = live ? seg_cols[kk + 2 * t + 9] : -1;
      if constexpr (Vec) {
        uint4 x[4];
#pragma unroll
        for (int r = 0; r < 4; ++r)
          x[r] = (v_in && c[r] >= 0) ? __ldg(reinterpret_cast<const uint4*>(op.b + c[r] * op.b_rs + jv))
                                     : make_uint4(0u, 0u, 0u, 0u);
        const unsigned w0[4] = {x[0].x, x[0].y, x[0].z, x[0].w}, w1[4] = {x[1].x, x[1].y, x[1].z, x[1].w};
        const unsigned w2[4] = {x[2].x, x[2].y, x[2].z, x[2].w}, w3[4] = {x[3].x, x[3].y, x[3].z, x[3].w};
#pragma unroll
        for (int q = 0; q < P::tiles; ++q) {
          // value q of each load: the low (q even) or high (q odd) half of word q/2
          const unsigned sel = (q & 1) ? 0x7632u : 0x5410u;
          b[s][q][0] = __byte_perm(w0[q / 2], w1[q / 2], sel);
          b[s][q][1] = __byte_perm(w2[q / 2], w3[q / 2], sel);
        }
      } else {
#pragma unroll
        for (int q = 0; q < P::tiles; ++q) {
          const Index j = n0 + q * 8 + g;
          const bool in = j < op.n;
          unsigned v[4];
#pragma unroll
          for (int r = 0; r < 4; ++r) v[r] = (in && c[r] >= 0) ? __ldg(op.b + c[r] * op.b_rs + j * op.b_cs) : 0u;
          b[s][q][0] = v[0] | (v[1] << 16);
          b[s][q][1] = v[2] | (v[3] << 16);
        }
      }
    }
#pragma unroll
    for (int s = 0; s < KG; ++s) {
      if (kg + s >= ksteps) break;  // warp-uniform
      const int kw = (kg + s) * (P::k / 2);
      const unsigned a0 = tw[g * wstride + kw + t], a1 = tw[(g + 8) * wstride + kw + t];
      const unsigned a2 = tw[g * wstride + kw + t + 4], a3 = tw[(g + 8) * wstride + kw + t + 4];
#pragma unroll
      for (int q = 0; q < P::tiles; ++q)
        // warp-uniform; on the vector path every tile spans the warp's 64 columns
        if (Vec || n0 + q * 8 < op.n) L::mma(acc[q], a0, a1, a2, a3, b[s][q][0], b[s][q][1]);
    }
  }

#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const Index row = row0 + g + 8 * h;
    if (row >= op.nrows) continue;
    const int slot = split ? op.row_slot[row] : -1;
    if constexpr (Vec) {
      // acc[q][2h + i] is row `row`, fragment column 2t + i of tile q: column
      // n0 + 8 (2t + i) + q of C, so i selects a group of 8 consecutive columns.
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const Index j = n0 + 16 * t + 8 * i;
        if (j >= op.n) continue;
        float v[P::tiles];
#pragma unroll
        for (int q = 0; q < P::tiles; ++q) v[q] = acc[q][2 * h + i];
        if (slot >= 0) {
          float* out = op.scratch + static_cast<Index>(slot) * op.n + j;
#pragma unroll
          for (int q = 0; q < P::tiles; ++q) atomicAdd(out + q, v[q]);
          continue;
        }
        u16* out = &c_at(op, row, j);
        if (op.accumulate) {
          const uint4 old = *reinterpret_cast<const uint4*>(out);
          const unsigned ow[4] = {old.x, old.y, old.z, old.w};
#pragma unroll
          for (int p = 0; p < 4; ++p) {
            const float2 o = L::unpack(ow[p]);
            v[2 * p] += o.x;
            v[2 * p + 1] += o.y;
          }
        }
        *reinterpret_cast<uint4*>(out) =
            make_uint4(L::pack(v[0], v[1]), L::pack(v[2], v[3]), L::pack(v[4], v[5]), L::pack(v[6], v[7]));
      }
    } else {
#pragma unroll
      for (int q = 0; q < P::tiles; ++q)
#pragma unroll
        for (int i = 0; i < 2; ++i) {
          const Index j = n0 + q * 8 + 2 * t + i;
          if (j < op.n) put<L>(op, row, j, acc[q][2 * h + i], slot);
        }
    }
  }
}

// grid: (CUDA-core items / warps, column tiles); one warp per item (a row or a 128-entry
// piece of a long row), computed by the 16-bit warp loop of row_split (warp_row.cuh:
// entry slots, 16-byte loads of 8 values when V = 8, fp32 accumulators). A whole row
// is rounded into C by write_row; a piece adds into its row's fp32 scratch.
template <class L, int V, bool RowMajor>
__global__ void __launch_bounds__(Cc16Policy::warps * 32)
    cc16_items_kernel(Op16 op, spmm::Operands<typename L::Stored, RowMajor> sop, int log_w,
                      const int2* __restrict__ items, Index count) {
  using Ops = spmm::StaticOps<semiring::plus_times<float>, typename L::Stored>;
  constexpr int piece = WindowPolicy::piece_entries;
  const Ops ops{};
  const Index idx = static_cast<Index>(blockIdx.x) * Cc16Policy::warps + (threadIdx.x >> 5);
  if (idx >= count) return;  // the whole warp leaves together
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int2 item = items[idx];
  const Index row = item.x;
  const Index row_begin = op.ro[row], row_end = op.ro[row + 1];
  const bool split = row_end - row_begin > piece;
  const int slot_row = split ? op.row_slot[row] : -1;
  const Index begin = row_begin + static_cast<Index>(item.y) * piece;
  const Index end = min(row_end, begin + piece);
  const Index tile_width = static_cast<Index>(V) << log_w;
  for (Index tile = blockIdx.y; tile * tile_width < op.n; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(lane & ((1 << log_w) - 1)) * V;
    const bool active = j < op.n;
    float acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = 0.f;
    spmm::warp_row<Cc16Policy::unroll>(sop, ops, begin, end, j, active, log_w, acc);
    if (!active || (lane >> log_w) != 0) continue;
    if (slot_row >= 0) {
      float* out = op.scratch + static_cast<Index>(slot_row) * op.n + j;
#pragma unroll
      for (int v = 0; v < V; ++v) atomicAdd(out + v, acc[v]);  // V > 1 only when row-major
    } else {
      spmm::write_row(sop, ops, row, j, begin == end, acc);
    }
  }
}

// Rounds the scratch rows into C (adding C's old value when accumulating): the one
// rounding of the rows that several items summed. grid: (split rows, column blocks).
template <class L>
__global__ void __launch_bounds__(Cc16Policy::finish_cols)
    finish16_kernel(Op16 op, const int* __restrict__ rows) {
  const Index j = static_cast<Index>(blockIdx.y) * Cc16Policy::finish_cols + threadIdx.x;
  if (j >= op.n) return;
  const Index slot = blockIdx.x;
  const float v = op.scratch[slot * op.n + j];
  u16& out = c_at(op, rows[slot], j);
  out = L::from_float(op.accumulate ? L::to_float(out) + v : v);
}

unsigned blocks(Index n, Index per) { return static_cast<unsigned>((n + per - 1) / per); }

template <class L>
void run16(const spmm::SpmmProblem& p, const SparseStorage& A, const WindowPlan& plan, const WindowRoute& route,
           void* workspace, cudaStream_t s) {
  Op16 op{};
  op.ro = A.row_offsets.as<Index>();
  op.ci = A.col_indices.as<ColIndex>();
  op.av = static_cast<const u16*>(A.values.data());
  op.local = plan.local_cols.as<int>();
  op.wcols = plan.window_cols.as<int>();
  op.wco = plan.window_col_offsets.as<int>();
  op.nrows = A.nrows;
  op.n = p.n;
  op.b = static_cast<const u16*>(p.B);
  op.b_rs = p.b_row_stride;
  op.b_cs = p.b_col_stride;
  op.c = static_cast<u16*>(p.C);
  op.c_rs = p.c_row_stride;
  op.c_cs = p.c_col_stride;
  op.accumulate = p.accumulate;
  op.scratch = static_cast<float*>(workspace);
  op.row_slot = route.row_slot.as<int>();

  const Index n = p.n;
  const bool vec = spmm::vector_aligned(p, 8);
  if (route.zero_rows > 0)
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(workspace, 0, sizeof(float) * static_cast<std::size_t>(route.zero_rows * n), s));
  if (route.tc_items > 0) {
    using P = Tc16Policy;
    const int warps = n <= P::warp_n ? 1 : n <= 2 * P::warp_n ? 2 : P::max_warps;
    const dim3 grid(static_cast<unsigned>(route.tc_items), blocks(n, Index{warps} * P::warp_n));
    if (vec) tc16_items_kernel<L, true><<<grid, warps * 32, 0, s>>>(op, route.tc_item_list.as<int2>());
    else tc16_items_kernel<L, false><<<grid, warps * 32, 0, s>>>(op, route.tc_item_list.as<int2>());
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
  if (route.cc_items > 0) {
    const int2* items = route.cc_item_list.as<int2>();
    const Index count = route.cc_items;
    auto launch = [&]<int V, bool RowMajor>() {
      const int log_w = spmm::log2_of(spmm::slot_lanes(n, V));
      const Index tile_width = static_cast<Index>(V) << log_w;
      const Index tiles = (n + tile_width - 1) / tile_width;
      const dim3 grid(blocks(count, Cc16Policy::warps), static_cast<unsigned>(tiles < 65535 ? tiles : 65535));
      cc16_items_kernel<L, V, RowMajor><<<grid, Cc16Policy::warps * 32, 0, s>>>(
          op, spmm::operands<typename L::Stored, RowMajor>(p), log_w, items, count);
      GEBLAS_CUDA_CHECK_LAUNCH();
    };
    if (vec) launch.template operator()<8, true>();
    else if (p.b_row_major() && p.c_row_major()) launch.template operator()<1, true>();
    else launch.template operator()<1, false>();
  }
  if (route.zero_rows > 0) {
    const dim3 grid(static_cast<unsigned>(route.zero_rows), blocks(n, Cc16Policy::finish_cols));
    finish16_kernel<L><<<grid, Cc16Policy::finish_cols, 0, s>>>(op, route.zero_row_list.as<int>());
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

void tc_window_run_16bit(const spmm::SpmmProblem& p, const WindowPlan& plan, const WindowRoute& route,
                         void* workspace, cudaStream_t stream) {
  if (p.type == TypeId::float16) run16<Half>(p, *p.matrix, plan, route, workspace, stream);
  else run16<BFloat>(p, *p.matrix, plan, route, workspace, stream);
}

}  // namespace geblas::detail::cuda
