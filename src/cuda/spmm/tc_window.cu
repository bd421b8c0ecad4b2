// The tensor-core row-window SpMM (variants tc_window and tc_window_all, float
// plus_times in TF32). A block takes one 16-row window (or one 256-column segment of a
// wide one) and up to 128 columns of C: it stages the segment's entries once as a dense
// 16 x 256 TF32 tile in shared memory (all threads, coalesced), gathers the matching
// rows of B straight into mma fragments (four k-steps of gathers in flight) and runs
// mma.sync.m16n8k8 with fp32 accumulation. Windows the cost model keeps off
// tensor cores run on a CUDA-core kernel with one warp per row (or per 128-entry piece
// of a long row), GE-SpMM style: a warp reads 32 entries at once and broadcasts them
// with shuffles. A row is computed by one kind of core only; the parts of a split row
// are summed with float atomics (so their summation order may vary between runs).
#include <algorithm>
#include <cstdio>
#include <string>

#include "cuda/check.cuh"
#include "cuda/context.cuh"
#include "cuda/spmm/tc_window.cuh"
#include "cuda/spmm/window_plan.cuh"

namespace geblas::detail::cuda {
namespace {

struct TcWindowPolicy {
  static constexpr int rows = WindowPolicy::window_rows;  // mma M
  // A block stages its whole segment (up to 256 condensed columns, 16.6 KB of shared
  // memory) once, between two barriers: the kernel of run 1 staged 64 columns per step
  // and paid a zeroing, two barriers and a serial walk of each row per step.
  // Row padding of the staged tile: with rows 260 words apart (4 mod 32), the fragment
  // loads (row lane/4, column lane%4) of a warp fall into 32 different banks.
  static constexpr int pad = 4;
  static constexpr int warp_n = 32;    // columns of C per warp: 4 mma n8 tiles
  static constexpr int max_warps = 4;  // a block covers up to 128 columns of C
};

struct CoreRowsPolicy {
  static constexpr int warps = 8;          // rows per block of the CUDA-core kernel
  static constexpr int cols_per_lane = 4;  // a warp covers 128 columns of C per block
};

constexpr unsigned full_mask = 0xffffffffu;

struct Operands {
  const Index* __restrict__ ro;
  const ColIndex* __restrict__ ci;
  const float* __restrict__ av;
  const int* __restrict__ local;  // condensed column of each entry
  const int* __restrict__ wcols;  // condensed column -> column of A
  const int* __restrict__ wco;    // window -> first condensed column
  Index nrows;
  Index n;
  const float* __restrict__ b;
  Index b_rs, b_cs;  // B(i, j) at b[i * b_rs + j * b_cs]
  float* c;
  Index c_rs, c_cs;
  bool accumulate;
};

__device__ __forceinline__ float load_b(const Operands& op, Index k, Index j) {
  return __ldg(op.b + k * op.b_rs + j * op.b_cs);
}
__device__ __forceinline__ float& c_at(const Operands& op, Index i, Index j) {
  return op.c[i * op.c_rs + j * op.c_cs];
}

__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

// d += a (16x8, row-major fragment) * b (8x8, column-major fragment), fp32 accumulate.
__device__ __forceinline__ void mma_tf32(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                                         unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void store(const Operands& op, Index i, Index j, float v, bool atomic) {
  float& out = c_at(op, i, j);
  if (atomic) atomicAdd(&out, v);  // a part of a split row; the row was zeroed or holds the old C
  else out = op.accumulate ? out + v : v;
}

// grid: (tensor-core items, column blocks of C); block: 32, 64 or 128 threads. An item
// is one window, or one segment of the condensed columns of a window with many.
__global__ void __launch_bounds__(TcWindowPolicy::max_warps * 32)
    tc_items_kernel(Operands op, const int2* __restrict__ items) {
  using P = TcWindowPolicy;
  constexpr int seg = WindowPolicy::segment_columns;
  constexpr int stride = seg + P::pad;
  __shared__ __align__(16) unsigned tile[P::rows * stride];
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
  const int ksteps = (kn + 7) / 8;
  const bool atomic = ncols > seg;

  // Stage the segment as a dense 16 x kn TF32 tile: zero it, read the column map and
  // the window's row offsets, then every thread takes window entries in turn
  // (coalesced) and drops those of other segments.
  {
    uint4* t4 = reinterpret_cast<uint4*>(tile);
    for (int i = tid; i < P::rows * stride / 4; i += nthreads) t4[i] = make_uint4(0u, 0u, 0u, 0u);
  }
  for (int i = tid; i < ksteps * 8; i += nthreads) seg_cols[i] = i < kn ? op.wcols[col_begin + k_begin + i] : -1;
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
    tile[r * stride + lc] = to_tf32(op.av[e]);
  }
  __syncthreads();

  const Index n0 = static_cast<Index>(blockIdx.y) * (nthreads / 32) * P::warp_n + warp * P::warp_n;
  if (n0 >= op.n) return;  // no barrier follows

  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;

  // Four k-steps at a time: their 32 gathers of B are all in flight before the first
  // mma needs one (the loop is latency-bound otherwise).
  for (int kg = 0; kg < ksteps; kg += 4) {
    unsigned b[4][4][2];
#pragma unroll
    for (int s4 = 0; s4 < 4; ++s4) {
      const int kk = (kg + s4) * 8;
      const bool live = kg + s4 < ksteps;
      const int c0 = live ? seg_cols[kk + t] : -1;
      const int c1 = live ? seg_cols[kk + t + 4] : -1;
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
        const Index j = n0 + nt * 8 + g;
        const bool in = j < op.n;
        b[s4][nt][0] = (in && c0 >= 0) ? to_tf32(load_b(op, c0, j)) : 0u;
        b[s4][nt][1] = (in && c1 >= 0) ? to_tf32(load_b(op, c1, j)) : 0u;
      }
    }
#pragma unroll
    for (int s4 = 0; s4 < 4; ++s4) {
      if (kg + s4 >= ksteps) break;  // warp-uniform
      const int kk = (kg + s4) * 8;
      const unsigned a0 = tile[g * stride + kk + t], a1 = tile[(g + 8) * stride + kk + t];
      const unsigned a2 = tile[g * stride + kk + t + 4], a3 = tile[(g + 8) * stride + kk + t + 4];
#pragma unroll
      for (int nt = 0; nt < 4; ++nt)
        if (n0 + nt * 8 < op.n) mma_tf32(acc[nt], a0, a1, a2, a3, b[s4][nt][0], b[s4][nt][1]);  // warp-uniform
    }
  }

#pragma unroll
  for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const Index row = row0 + g + 8 * half;
      if (row >= op.nrows) continue;
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        const Index j = n0 + nt * 8 + 2 * t + q;
        if (j < op.n) store(op, row, j, acc[nt][2 * half + q], atomic);
      }
    }
  }
}

// grid: (CUDA-core items / warps, column blocks of 128); one warp per item, an item
// being a row, or a piece of a long row.
__global__ void __launch_bounds__(CoreRowsPolicy::warps * 32)
    cc_items_kernel(Operands op, const int2* __restrict__ items, Index count) {
  using P = CoreRowsPolicy;
  constexpr int piece = WindowPolicy::piece_entries;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const Index idx = static_cast<Index>(blockIdx.x) * P::warps + (threadIdx.x >> 5);
  if (idx >= count) return;  // the whole warp leaves together
  const int2 item = items[idx];
  const Index row = item.x;
  const Index row_begin = op.ro[row], row_end = op.ro[row + 1];
  const bool atomic = row_end - row_begin > piece;
  const Index begin = row_begin + static_cast<Index>(item.y) * piece;
  const Index end = min(row_end, begin + piece);
  const Index j0 = static_cast<Index>(blockIdx.y) * (32 * P::cols_per_lane) + lane;
  float acc[P::cols_per_lane];
#pragma unroll
  for (int q = 0; q < P::cols_per_lane; ++q) acc[q] = 0.f;
  for (Index e0 = begin; e0 < end; e0 += 32) {
    int col = 0;
    float val = 0.f;
    if (e0 + lane < end) {
      col = op.ci[e0 + lane];
      val = op.av[e0 + lane];
    }
    const int m = static_cast<int>(min(static_cast<Index>(32), end - e0));
#pragma unroll 4
    for (int k = 0; k < m; ++k) {
      const int ck = __shfl_sync(full_mask, col, k);
      const float vk = __shfl_sync(full_mask, val, k);
#pragma unroll
      for (int q = 0; q < P::cols_per_lane; ++q) {
        const Index j = j0 + 32 * q;
        if (j < op.n) acc[q] = fmaf(vk, load_b(op, ck, j), acc[q]);
      }
    }
  }
#pragma unroll
  for (int q = 0; q < P::cols_per_lane; ++q) {
    const Index j = j0 + 32 * q;
    if (j < op.n) store(op, row, j, acc[q], atomic);
  }
}

// Rows that several items add into start from zero (without accumulation).
__global__ void __launch_bounds__(CoreRowsPolicy::warps * 32)
    zero_rows_kernel(Operands op, const int* __restrict__ rows, Index count) {
  using P = CoreRowsPolicy;
  const Index idx = static_cast<Index>(blockIdx.x) * P::warps + (threadIdx.x >> 5);
  if (idx >= count) return;
  const Index j0 = static_cast<Index>(blockIdx.y) * (32 * P::cols_per_lane) + (threadIdx.x & 31);
#pragma unroll
  for (int q = 0; q < P::cols_per_lane; ++q)
    if (j0 + 32 * q < op.n) c_at(op, rows[idx], j0 + 32 * q) = 0.f;
}

unsigned blocks(Index n, Index per) { return static_cast<unsigned>((n + per - 1) / per); }

}  // namespace

std::string tc_window_unsupported(TypeId type, SemiringId semiring, bool allow_tf32, const SparseStorage& A,
                                  Index n) {
  if (type != TypeId::float32) return "computes float only (the operands are " + std::string(to_string(type)) + ")";
  if (semiring != SemiringId::plus_times)
    return std::string("computes plus_times only (tensor cores multiply and add), not ") + to_string(semiring);
  if (!allow_tf32) return "runs float on TF32 tensor cores; set Options::allow_tf32 = true to allow that";
  if (!A.device.is_cuda()) return "runs on CUDA devices only";
  if (A.nvals >= (Index{1} << 31) - 1) return "indexes entries with int32 (A has " + std::to_string(A.nvals) + ")";
  if (n > Index{65535} * 32) return "supports at most 2097120 columns of B";
  return {};
}

TcWindowForecast tc_window_forecast(const SparseStorage& A) {
  TcWindowForecast f;
  if (A.nvals == 0) return f;
  auto plan = cached_window_plan(A);
  auto route = cached_window_route(A, *plan, tc_window_threshold());
  const double nvals = static_cast<double>(A.nvals);
  f.share = static_cast<double>(route->tc_nvals) / nvals;
  // Each tensor-core window saves its entries' gathers and pays `threshold` gathers per
  // condensed column (the cost model of window_plan.cuh).
  f.gain = (static_cast<double>(route->tc_nvals) - route->threshold * static_cast<double>(route->tc_columns)) / nvals;
  return f;
}

std::string tc_window_run(const TcWindowProblem& p, WindowRouting routing, cudaStream_t s) {
  const SparseStorage& A = *p.A;
  auto plan = cached_window_plan(A);

  Operands op{};
  op.ro = A.row_offsets.as<Index>();
  op.ci = A.col_indices.as<ColIndex>();
  op.av = A.values.as<float>();
  op.local = plan->local_cols.as<int>();
  op.wcols = plan->window_cols.as<int>();
  op.wco = plan->window_col_offsets.as<int>();
  op.nrows = A.nrows;
  op.n = p.n;
  op.b = p.B;
  op.b_rs = p.b_row_stride;
  op.b_cs = p.b_col_stride;
  op.c = p.C;
  op.c_rs = p.c_row_stride;
  op.c_cs = p.c_col_stride;
  op.accumulate = p.accumulate;

  const Index n = p.n;
  const int warps = n <= 32 ? 1 : n <= 64 ? 2 : TcWindowPolicy::max_warps;
  const Index block_n = Index{warps} * TcWindowPolicy::warp_n;
  const unsigned col_blocks = blocks(n, block_n);
  const unsigned core_col_blocks = blocks(n, 32 * CoreRowsPolicy::cols_per_lane);
  // tc_window_all is the routing with threshold 0: every window with entries on tensor cores.
  const double threshold = routing == WindowRouting::all_tensor_cores ? 0.0 : tc_window_threshold();
  auto route = cached_window_route(A, *plan, threshold);
  if (n > 0 && A.nrows > 0) {
    if (route->zero_rows > 0 && !p.accumulate) {
      zero_rows_kernel<<<dim3(blocks(route->zero_rows, CoreRowsPolicy::warps), core_col_blocks),
                         CoreRowsPolicy::warps * 32, 0, s>>>(op, route->zero_row_list.as<int>(), route->zero_rows);
      GEBLAS_CUDA_CHECK_LAUNCH();
    }
    if (route->tc_items > 0) {
      tc_items_kernel<<<dim3(static_cast<unsigned>(route->tc_items), col_blocks), warps * 32, 0, s>>>(
          op, route->tc_item_list.as<int2>());
      GEBLAS_CUDA_CHECK_LAUNCH();
    }
    if (route->cc_items > 0) {
      cc_items_kernel<<<dim3(blocks(route->cc_items, CoreRowsPolicy::warps), core_col_blocks),
                        CoreRowsPolicy::warps * 32, 0, s>>>(op, route->cc_item_list.as<int2>(), route->cc_items);
      GEBLAS_CUDA_CHECK_LAUNCH();
    }
  }
  char reason[200];
  std::snprintf(reason, sizeof(reason),
                "%lld of %lld windows on TF32 tensor cores (%.0f%% of entries, %s)",
                static_cast<long long>(route->tc_windows), static_cast<long long>(plan->windows),
                A.nvals ? 100.0 * static_cast<double>(route->tc_nvals) / static_cast<double>(A.nvals) : 0.0,
                routing == WindowRouting::all_tensor_cores ? "all windows with entries" : "cost model");
  return reason;
}

}  // namespace geblas::detail::cuda
