// The kernels of the row-window SpMM (tc_window, tc_window_all), one template each for
// every value class they compute (the CUDA-core windows' kernel at the end). The
// tensor-core kernel: float in TF32 (mma m16n8k8) and half / bfloat16
// (mma m16n8k16, fp32 accumulation). What differs between the classes is in their value
// traits (TcTf32, Tc16<Half>, Tc16<BFloat>): the fragment shape, how a value is staged
// (rounded to TF32, or kept as 16 bits), how the fragments of B are gathered, the mma,
// and how a finished value reaches C (float: atomics into C for the parts of a split
// row; 16-bit: an fp32 scratch row rounded into C once by a last kernel, so no 16-bit
// partial sum is ever stored). The tuning of both is TcWindowPolicy.
//
// A block takes one 16-row window (or one 256-column segment of a wider one) and up to
// max_warps warps' columns of C: it stages the segment's entries once as a dense
// 16 x 256 tile in shared memory (all threads, coalesced, between two barriers), gathers
// the matching rows of B straight into mma fragments (several k-steps of gathers in
// flight) and runs the mma with fp32 accumulation. On row-major, 16-byte aligned B and C
// (N a multiple of the tiles per warp) a warp's n8 tiles are interleaved (tile q holds
// columns tiles * i + q), so that a lane's fragment values of one condensed column for
// all tiles are one 16-byte load of B and its results for those columns one 16-byte
// store of C: run 2 (H100) showed scalar gathers running at about a fifth of the
// CUDA-core path's gather rate. Other layouts gather scalars.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <type_traits>

#include "cuda/check.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/problem.hpp"
#include "cuda/spmm/warp_row.cuh"
#include "cuda/spmm/window_plan.cuh"

namespace geblas::detail::cuda::tc {

// Every tuning choice of the row-window kernels, per value class where they differ. A
// tensor-core block stages its whole segment (up to 256 condensed columns, 16.6 KB of
// shared memory for TF32) once, between two barriers: the kernel of run 1 staged 64
// columns per step and paid a zeroing, two barriers and a serial walk of each row per
// step.
struct TcWindowPolicy {
  static constexpr int rows = WindowPolicy::window_rows;  // mma M
  static constexpr int max_warps = 4;                     // warps (column groups of C) per block
  // The windows on CUDA cores, as row_split: work items (rows or pieces) per block and
  // loads of B in flight per entry slot.
  static constexpr int cc_warps = 8;
  static constexpr int cc_unroll = 4;
  static constexpr int zero_cols = 128;    // float: columns of C a warp zeroes per block
  static constexpr int finish_cols = 256;  // 16-bit: columns per block of the rounding kernel
  struct Tf32 {
    static constexpr int k = WindowPolicy::k_step_tf32;  // mma K
    static constexpr int tiles = 4;                      // n8 tiles per warp: 32 columns of C
    // Row padding of the staged tile, in values: rows 260 words apart (4 mod 32), so the
    // fragment loads (row lane/4, column lane%4) of a warp fall into 32 different banks.
    static constexpr int pad = 4;
    // k-steps whose gathers of B are issued before the first of their mma: 32 scalar
    // loads per lane on the scalar path (run 2), 16 loads of 16 bytes on the vector path
    // (not yet measured: the same bytes in flight as twice the scalar path's).
    static constexpr int kg_scalar = 4;
    static constexpr int kg_vector = 8;
  };
  struct B16 {
    static constexpr int k = WindowPolicy::k_step_16bit;  // mma K
    static constexpr int tiles = 8;                       // n8 tiles per warp: one 16-byte load of B covers all
    // Row padding in 16-bit values: rows 132 words apart (4 mod 32), as the TF32 tile.
    static constexpr int pad = 8;
    // 16 loads of 16 bytes per lane on the vector path (the bytes in flight of the TF32
    // vector path), 64 scalar loads on the scalar path. Chosen by analogy with the TF32
    // kernel and kept after the H100 runs 4 and 5 (docs/PERFORMANCE.md, "Hybrid
    // tensor-core SpMM"), which timed this kernel but did not sweep these two depths.
    static constexpr int kg_scalar = 2;
    static constexpr int kg_vector = 4;
  };
};

using u16 = unsigned short;

// The operands of a run; scratch and row_slot only for the 16-bit classes.
template <class Value>
struct TcOperands {
  const Index* __restrict__ ro;
  const ColIndex* __restrict__ ci;
  const Value* __restrict__ av;
  const int* __restrict__ local;  // condensed column of each entry
  const int* __restrict__ wcols;  // condensed column -> column of A
  const int* __restrict__ wco;    // window -> first condensed column
  Index nrows;
  Index n;
  const Value* __restrict__ b;
  Index b_rs, b_cs;  // B(i, j) at b[i * b_rs + j * b_cs]
  Value* c;
  Index c_rs, c_cs;
  bool accumulate;
  float* scratch;       // [split rows x n] fp32 sums of the rows several items add into
  const int* row_slot;  // row -> its scratch row, -1 for rows one item computes
};

// The operands of the product p over A's plan and routing; `workspace` holds the 16-bit
// classes' scratch rows (tc_window_workspace bytes; none for float).
template <class Value>
TcOperands<Value> tc_operands(const spmm::SpmmProblem& p, const WindowPlan& plan, const WindowRoute& route,
                              void* workspace) {
  const SparseStorage& A = *p.matrix;
  TcOperands<Value> op{};
  op.ro = A.row_offsets.as<Index>();
  op.ci = A.col_indices.as<ColIndex>();
  op.av = static_cast<const Value*>(A.values.data());
  op.local = plan.local_cols.as<int>();
  op.wcols = plan.window_cols.as<int>();
  op.wco = plan.window_col_offsets.as<int>();
  op.nrows = A.nrows;
  op.n = p.n;
  op.b = static_cast<const Value*>(p.B);
  op.b_rs = p.b_row_stride;
  op.b_cs = p.b_col_stride;
  op.c = static_cast<Value*>(p.C);
  op.c_rs = p.c_row_stride;
  op.c_cs = p.c_col_stride;
  op.accumulate = p.accumulate;
  op.scratch = static_cast<float*>(workspace);
  op.row_slot = route.row_slot.as<int>();
  return op;
}

template <class Value>
__device__ __forceinline__ Value& c_at(const TcOperands<Value>& op, Index i, Index j) {
  return op.c[i * op.c_rs + j * op.c_cs];
}

// ---- float in TF32 ------------------------------------------------------------------

__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

struct TcTf32 {
  using Value = float;
  using Word = unsigned;  // a staged value: its TF32 bits
  using Shape = TcWindowPolicy::Tf32;

  __device__ __forceinline__ static unsigned stage(float x) { return to_tf32(x); }

  // The B fragments of the k-step at condensed column kk: K rows t and t + 4 of the
  // lane's column(s), one value per register.
  template <bool Vec>
  __device__ __forceinline__ static void gather(const TcOperands<float>& op, const int* seg_cols, int kk, bool live,
                                                int g, int t, Index n0, Index jv, bool v_in,
                                                unsigned (&b)[Shape::tiles][2]) {
    const int c0 = live ? seg_cols[kk + t] : -1;
    const int c1 = live ? seg_cols[kk + t + 4] : -1;
    if constexpr (Vec) {
      // lane (g, t) reads B(c, n0 + 4g .. n0 + 4g + 3), element q being its fragment
      // value of tile q (tile q, fragment column g = column n0 + 4g + q of C)
      const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
      const float4 x0 = (v_in && c0 >= 0) ? __ldg(reinterpret_cast<const float4*>(op.b + c0 * op.b_rs + jv)) : z;
      const float4 x1 = (v_in && c1 >= 0) ? __ldg(reinterpret_cast<const float4*>(op.b + c1 * op.b_rs + jv)) : z;
      b[0][0] = to_tf32(x0.x), b[1][0] = to_tf32(x0.y), b[2][0] = to_tf32(x0.z), b[3][0] = to_tf32(x0.w);
      b[0][1] = to_tf32(x1.x), b[1][1] = to_tf32(x1.y), b[2][1] = to_tf32(x1.z), b[3][1] = to_tf32(x1.w);
    } else {
#pragma unroll
      for (int nt = 0; nt < Shape::tiles; ++nt) {
        const Index j = n0 + nt * 8 + g;
        const bool in = j < op.n;
        b[nt][0] = (in && c0 >= 0) ? to_tf32(__ldg(op.b + c0 * op.b_rs + j * op.b_cs)) : 0u;
        b[nt][1] = (in && c1 >= 0) ? to_tf32(__ldg(op.b + c1 * op.b_rs + j * op.b_cs)) : 0u;
      }
    }
  }

  // d += a (16x8, row-major fragment) * b (8x8, column-major fragment), fp32 accumulate.
  __device__ __forceinline__ static void mma(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                                             unsigned b0, unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }

  __device__ __forceinline__ static void store(const TcOperands<float>& op, Index i, Index j, float v, bool atomic) {
    float& out = c_at(op, i, j);
    if (atomic) atomicAdd(&out, v);  // a part of a split row; the row was zeroed or holds the old C
    else out = op.accumulate ? out + v : v;
  }

  // Row `row` (fragment row half h) of the warp's columns from n0. A split row's parts
  // are added into C with atomics (the row was zeroed first, or holds the C accumulated
  // into), so their order may vary between runs.
  template <bool Vec>
  __device__ __forceinline__ static void finish_row(const TcOperands<float>& op, Index row, Index n0, int t, int h,
                                                    bool split, const float (&acc)[Shape::tiles][4]) {
    if constexpr (Vec) {
      // acc[q][2h + i] is row `row`, fragment column 2t + i of tile q: column
      // n0 + 4 (2t + i) + q of C, so i selects a group of 4 consecutive columns.
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const Index j = n0 + 8 * t + 4 * i;
        if (j >= op.n) continue;
        float* out = &c_at(op, row, j);
        float4 v = make_float4(acc[0][2 * h + i], acc[1][2 * h + i], acc[2][2 * h + i], acc[3][2 * h + i]);
        if (split) {
          atomicAdd(out, v.x), atomicAdd(out + 1, v.y), atomicAdd(out + 2, v.z), atomicAdd(out + 3, v.w);
        } else {
          if (op.accumulate) {
            const float4 old = *reinterpret_cast<const float4*>(out);
            v.x += old.x, v.y += old.y, v.z += old.z, v.w += old.w;
          }
          *reinterpret_cast<float4*>(out) = v;
        }
      }
    } else {
#pragma unroll
      for (int nt = 0; nt < Shape::tiles; ++nt)
#pragma unroll
        for (int q = 0; q < 2; ++q) {
          const Index j = n0 + nt * 8 + 2 * t + q;
          if (j < op.n) store(op, row, j, acc[nt][2 * h + q], split);
        }
    }
  }
};

// ---- half and bfloat16 ----------------------------------------------------------------

// The 32-bit word of a pair of 16-bit values, as the mma takes its operands.
template <class Pair>
__device__ __forceinline__ unsigned pair_word(Pair h) {
  unsigned w;
  std::memcpy(&w, &h, 4);
  return w;
}

// d += a (16x16, row-major fragment) * b (16x8, column-major fragment) on half
// (BFloat16 = false) or bfloat16 values, fp32 accumulate.
template <bool BFloat16>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                                             unsigned b0, unsigned b1) {
  if constexpr (BFloat16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

struct Half {
  using Stored = __half;
  __device__ static float to_float(u16 b) { return __half2float(__ushort_as_half(b)); }
  __device__ static u16 from_float(float x) { return __half_as_ushort(__float2half_rn(x)); }
  __device__ static float2 unpack(unsigned w) {
    __half2 h;
    std::memcpy(&h, &w, 4);
    return __half22float2(h);
  }
  __device__ static unsigned pack(float lo, float hi) { return pair_word(__floats2half2_rn(lo, hi)); }
};

struct BFloat {
  using Stored = __nv_bfloat16;
  __device__ static float to_float(u16 b) { return __uint_as_float(static_cast<unsigned>(b) << 16); }
  __device__ static u16 from_float(float x) { return __bfloat16_as_ushort(__float2bfloat16_rn(x)); }
  __device__ static float2 unpack(unsigned w) {
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
  }
  __device__ static unsigned pack(float lo, float hi) { return pair_word(__floats2bfloat162_rn(lo, hi)); }
};

// One finished 16-bit value of C: into the row's fp32 scratch (slot >= 0) or rounded into C.
template <class L>
__device__ __forceinline__ void put16(const TcOperands<u16>& op, Index row, Index j, float v, int slot) {
  if (slot >= 0) {
    atomicAdd(op.scratch + static_cast<Index>(slot) * op.n + j, v);
  } else {
    u16& out = c_at(op, row, j);
    out = L::from_float(op.accumulate ? L::to_float(out) + v : v);
  }
}

template <class L>
struct Tc16 {
  using Value = u16;
  using Word = u16;  // staged as stored
  using Shape = TcWindowPolicy::B16;

  __device__ __forceinline__ static u16 stage(u16 x) { return x; }

  // A B fragment register holds two K values of one column, which come from two
  // different condensed columns: K rows 2t, 2t+1 (register 0) and 2t+8, 2t+9
  // (register 1), so a lane gathers four rows of B per k-step.
  template <bool Vec>
  __device__ __forceinline__ static void gather(const TcOperands<u16>& op, const int* seg_cols, int kk, bool live,
                                                int g, int t, Index n0, Index jv, bool v_in,
                                                unsigned (&b)[Shape::tiles][2]) {
    int c[4];
    c[0] = live ? seg_cols[kk + 2 * t] : -1;
    c[1] = live ? seg_cols[kk + 2 * t + 1] : -1;
    c[2] = live ? seg_cols[kk + 2 * t + 8] : -1;
    c[3] = live ? seg_cols[kk + 2 * t + 9] : -1;
    if constexpr (Vec) {
      // lane (g, t) reads B(c, n0 + 8g .. n0 + 8g + 7); value q is its fragment value of
      // tile q (fragment column g of tile q = column n0 + 8g + q of C), paired into
      // registers with byte permutes
      uint4 x[4];
#pragma unroll
      for (int r = 0; r < 4; ++r)
        x[r] = (v_in && c[r] >= 0) ? __ldg(reinterpret_cast<const uint4*>(op.b + c[r] * op.b_rs + jv))
                                   : make_uint4(0u, 0u, 0u, 0u);
      const unsigned w0[4] = {x[0].x, x[0].y, x[0].z, x[0].w}, w1[4] = {x[1].x, x[1].y, x[1].z, x[1].w};
      const unsigned w2[4] = {x[2].x, x[2].y, x[2].z, x[2].w}, w3[4] = {x[3].x, x[3].y, x[3].z, x[3].w};
#pragma unroll
      for (int q = 0; q < Shape::tiles; ++q) {
        // value q of each load: the low (q even) or high (q odd) half of word q/2
        const unsigned sel = (q & 1) ? 0x7632u : 0x5410u;
        b[q][0] = __byte_perm(w0[q / 2], w1[q / 2], sel);
        b[q][1] = __byte_perm(w2[q / 2], w3[q / 2], sel);
      }
    } else {
#pragma unroll
      for (int q = 0; q < Shape::tiles; ++q) {
        const Index j = n0 + q * 8 + g;
        const bool in = j < op.n;
        unsigned v[4];
#pragma unroll
        for (int r = 0; r < 4; ++r) v[r] = (in && c[r] >= 0) ? __ldg(op.b + c[r] * op.b_rs + j * op.b_cs) : 0u;
        b[q][0] = v[0] | (v[1] << 16);
        b[q][1] = v[2] | (v[3] << 16);
      }
    }
  }

  __device__ __forceinline__ static void mma(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                                             unsigned b0, unsigned b1) {
    mma_m16n8k16<std::is_same_v<typename L::Stored, __nv_bfloat16>>(d, a0, a1, a2, a3, b0, b1);
  }

  // Row `row` (fragment row half h): a split row adds into its fp32 scratch row, the
  // others are rounded into C once.
  template <bool Vec>
  __device__ __forceinline__ static void finish_row(const TcOperands<u16>& op, Index row, Index n0, int t, int h,
                                                    bool split, const float (&acc)[Shape::tiles][4]) {
    const int slot = split ? op.row_slot[row] : -1;
    if constexpr (Vec) {
      // acc[q][2h + i] is row `row`, fragment column 2t + i of tile q: column
      // n0 + 8 (2t + i) + q of C, so i selects a group of 8 consecutive columns.
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const Index j = n0 + 16 * t + 8 * i;
        if (j >= op.n) continue;
        float v[Shape::tiles];
#pragma unroll
        for (int q = 0; q < Shape::tiles; ++q) v[q] = acc[q][2 * h + i];
        if (slot >= 0) {
          float* out = op.scratch + static_cast<Index>(slot) * op.n + j;
#pragma unroll
          for (int q = 0; q < Shape::tiles; ++q) atomicAdd(out + q, v[q]);
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
      for (int q = 0; q < Shape::tiles; ++q)
#pragma unroll
        for (int i = 0; i < 2; ++i) {
          const Index j = n0 + q * 8 + 2 * t + i;
          if (j < op.n) put16<L>(op, row, j, acc[q][2 * h + i], slot);
        }
    }
  }
};

// ---- the kernel -------------------------------------------------------------------------

// grid: (tensor-core items, column blocks of C); block: 32, 64 or max_warps * 32 threads.
// An item is one window, or one segment of the condensed columns of a window with many.
// Vec: B and C row-major with 16-byte aligned rows, N a multiple of V::Shape::tiles
// (interleaved tiles).
template <class V, bool Vec>
__global__ void __launch_bounds__(TcWindowPolicy::max_warps * 32)
    tc_items_kernel(TcOperands<typename V::Value> op, const int2* __restrict__ items) {
  using S = typename V::Shape;
  using Word = typename V::Word;
  constexpr int rows = TcWindowPolicy::rows;
  constexpr int seg = WindowPolicy::segment_columns;
  constexpr int stride = seg + S::pad;                          // staged values per row
  constexpr int per_word = static_cast<int>(4 / sizeof(Word));  // staged values per 32-bit word
  constexpr int wstride = stride / per_word;
  constexpr int warp_n = 8 * S::tiles;
  constexpr int KG = Vec ? S::kg_vector : S::kg_scalar;
  __shared__ __align__(16) Word tile[rows * stride];
  __shared__ int seg_cols[seg];
  __shared__ Index row_start[rows + 1];
  const int2 item = items[blockIdx.x];
  const int w = item.x;
  const int tid = static_cast<int>(threadIdx.x);
  const int nthreads = static_cast<int>(blockDim.x);
  const int lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const Index row0 = static_cast<Index>(w) * rows;
  const int col_begin = op.wco[w];
  const int ncols = op.wco[w + 1] - col_begin;
  const int k_begin = item.y * seg;
  const int kn = min(ncols - k_begin, seg);  // condensed columns of this segment, 1..seg
  const int ksteps = (kn + S::k - 1) / S::k;
  const bool split = ncols > seg;

  // Stage the segment as a dense 16 x kn tile: zero it, read the column map and the
  // window's row offsets, then every thread takes window entries in turn (coalesced)
  // and drops those of other segments.
  {
    uint4* t4 = reinterpret_cast<uint4*>(tile);
    for (int i = tid; i < rows * stride / (4 * per_word); i += nthreads) t4[i] = make_uint4(0u, 0u, 0u, 0u);
  }
  for (int i = tid; i < ksteps * S::k; i += nthreads) seg_cols[i] = i < kn ? op.wcols[col_begin + k_begin + i] : -1;
  for (int i = tid; i <= rows; i += nthreads) row_start[i] = op.ro[min(row0 + i, op.nrows)];
  __syncthreads();
  const Index e_end = row_start[rows];
  for (Index e = row_start[0] + tid; e < e_end; e += nthreads) {
    const int lc = op.local[e] - k_begin;
    if (lc < 0 || lc >= kn) continue;
    int r = 0;  // the entry's row in the window: the last r with row_start[r] <= e
#pragma unroll
    for (int step = rows / 2; step > 0; step >>= 1)
      if (row_start[r + step] <= e) r += step;
    tile[r * stride + lc] = V::stage(op.av[e]);
  }
  __syncthreads();

  const Index n0 = static_cast<Index>(blockIdx.y) * (nthreads / 32) * warp_n + warp * warp_n;
  if (n0 >= op.n) return;  // no barrier follows

  float acc[S::tiles][4];
#pragma unroll
  for (int q = 0; q < S::tiles; ++q) acc[q][0] = acc[q][1] = acc[q][2] = acc[q][3] = 0.f;

  const unsigned* tw = reinterpret_cast<const unsigned*>(tile);
  // Vec: lane (g, t) reads tiles consecutive columns from jv (V::gather).
  const Index jv = n0 + S::tiles * g;
  const bool v_in = jv < op.n;  // N % tiles == 0: the columns are all inside or all outside
  for (int kg = 0; kg < ksteps; kg += KG) {
    unsigned b[KG][S::tiles][2];
#pragma unroll
    for (int s = 0; s < KG; ++s)
      V::template gather<Vec>(op, seg_cols, (kg + s) * S::k, kg + s < ksteps, g, t, n0, jv, v_in, b[s]);
#pragma unroll
    for (int s = 0; s < KG; ++s) {
      if (kg + s >= ksteps) break;  // warp-uniform
      // the A fragment: K = 8 words of the staged rows g and g + 8 (8 TF32 values or 16
      // 16-bit ones), words t and t + 4 of the k-step
      const int kw = (kg + s) * (S::k / per_word);
      const unsigned a0 = tw[g * wstride + kw + t], a1 = tw[(g + 8) * wstride + kw + t];
      const unsigned a2 = tw[g * wstride + kw + t + 4], a3 = tw[(g + 8) * wstride + kw + t + 4];
#pragma unroll
      for (int q = 0; q < S::tiles; ++q)
        // warp-uniform; on the vector path every tile spans the warp's columns
        if (Vec || n0 + q * 8 < op.n) V::mma(acc[q], a0, a1, a2, a3, b[s][q][0], b[s][q][1]);
    }
  }

#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const Index row = row0 + g + 8 * h;
    if (row >= op.nrows) continue;
    V::template finish_row<Vec>(op, row, n0, t, h, split, acc);
  }
}

// grid: (CUDA-core items / warps, column tiles); one warp per item, an item being a row
// or a 128-entry piece of a long row, computed by row_split's warp loop (warp_row.cuh;
// 16-bit: entry slots, 16-byte loads of 8 values when V = 8, fp32 accumulators). A whole
// row is written by write_row (16-bit: rounded once); the pieces of a split row are
// added with atomics into C (float: the row was zeroed first, or holds the C being
// accumulated into) or into the row's fp32 scratch row (16-bit: row_slot, scratch).
template <class Value, class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(TcWindowPolicy::cc_warps * 32)
    cc_items_kernel(spmm::Operands<Value, RowMajor> op, Ops ops, const int* __restrict__ row_slot, float* scratch,
                    int log_w, const int2* __restrict__ items, Index count) {
  constexpr bool into_c = std::is_same_v<Value, float>;
  constexpr int piece = WindowPolicy::piece_entries;
  const Index idx = static_cast<Index>(blockIdx.x) * TcWindowPolicy::cc_warps + (threadIdx.x >> 5);
  if (idx >= count) return;  // the whole warp leaves together
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int2 item = items[idx];
  const Index row = item.x;
  const Index row_begin = op.ro[row], row_end = op.ro[row + 1];
  const bool split = row_end - row_begin > piece;
  int slot_row = -1;
  if constexpr (!into_c) slot_row = split ? row_slot[row] : -1;
  const Index begin = row_begin + static_cast<Index>(item.y) * piece;
  const Index end = min(row_end, begin + piece);
  const Index tile_width = static_cast<Index>(V) << log_w;
  for (Index tile = blockIdx.y; tile * tile_width < op.n; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(lane & ((1 << log_w) - 1)) * V;
    const bool active = j < op.n;
    float acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = ops.identity();
    spmm::warp_row<TcWindowPolicy::cc_unroll>(op, ops, begin, end, j, active, log_w, acc);
    if (!active || (lane >> log_w) != 0) continue;
    float* part = nullptr;  // where this piece adds, for a split row
    if constexpr (into_c) {
      if (split) part = op.c_at(row, j);
    } else {
      if (slot_row >= 0) part = scratch + static_cast<Index>(slot_row) * op.n + j;
    }
    if (part) {
#pragma unroll
      for (int v = 0; v < V; ++v) atomicAdd(part + v, acc[v]);  // V > 1 only when row-major
    } else {
      spmm::write_row(op, ops, row, j, begin == end, acc);
    }
  }
}

inline unsigned blocks(Index n, Index per) { return static_cast<unsigned>((n + per - 1) / per); }

// Launches the tensor-core items of `route` (route.tc_items > 0) on stream s. vec: B and
// C allow the interleaved 16-byte path (spmm::vector_aligned(p, V::Shape::tiles)).
template <class V>
void launch_tc_items(const TcOperands<typename V::Value>& op, const int2* items, Index count, bool vec,
                     cudaStream_t s) {
  constexpr Index warp_n = 8 * V::Shape::tiles;
  const Index n = op.n;
  const int warps = n <= warp_n ? 1 : n <= 2 * warp_n ? 2 : TcWindowPolicy::max_warps;
  const dim3 grid(static_cast<unsigned>(count), blocks(n, Index{warps} * warp_n));
  if (vec) tc_items_kernel<V, true><<<grid, warps * 32, 0, s>>>(op, items);
  else tc_items_kernel<V, false><<<grid, warps * 32, 0, s>>>(op, items);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

// Launches the CUDA-core items (count > 0) of the product p on stream s, stored as
// Value (float, __half, __nv_bfloat16); row_slot and scratch for the 16-bit classes.
template <class Value, class Ops, int V, bool RowMajor>
void launch_cc_items(const spmm::SpmmProblem& p, Ops ops, const int* row_slot, float* scratch, const int2* items,
                     Index count, cudaStream_t s) {
  const spmm::LaunchShape g =
      spmm::tile_grid(count, TcWindowPolicy::cc_warps, p.n, V, spmm::log2_of(spmm::tile_lanes(p.n, V)));
  cc_items_kernel<Value, Ops, V, RowMajor><<<dim3(g.grid_x, g.grid_y), TcWindowPolicy::cc_warps * 32, 0, s>>>(
      spmm::operands<Value, RowMajor>(p), ops, row_slot, scratch, g.log_w, items, count);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

}  // namespace geblas::detail::cuda::tc
