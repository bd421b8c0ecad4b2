// The tensor-core row-window SpMM (variants tc_window and tc_window_all): the float
// plus_times kernels in TF32, the variants' checks, forecast and entry (the half and
// bfloat16 kernels are in tc_window_16bit.cu). A block takes one 16-row window (or one 256-column segment of a
// wide one) and up to 128 columns of C: it stages the segment's entries once as a dense
// 16 x 256 TF32 tile in shared memory (all threads, coalesced), gathers the matching
// rows of B straight into mma fragments (several k-steps of gathers in flight) and runs
// mma.sync.m16n8k8 with fp32 accumulation. On row-major, 16-byte aligned B and C the
// columns of a warp's four n8 tiles are interleaved (tile q holds columns 4i + q), so
// that a lane's fragment values for the four tiles are one 16-byte load of B and its
// results one 16-byte store of C: run 2 (H100) showed the scalar gathers running at
// about a fifth of the CUDA-core path's gather rate. Windows the cost model keeps off
// tensor cores run on the CUDA-core warp loop of row_split and row_pieces
// (warp_row.cuh) over a list of rows and 128-entry pieces of long rows. A row is
// computed by one kind of core only; the pieces of a split row and the segments of a
// wide window are summed with float atomics (so their order may vary between runs).
#include <algorithm>
#include <cstdio>
#include <string>

#include "cuda/check.cuh"
#include "cuda/context.cuh"
#include "cuda/spmm/tc_window.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/warp_row.cuh"
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
  // k-steps whose gathers of B are issued before the first of their mma: 32 scalar
  // loads per lane on the scalar path (run 2), 16 loads of 16 bytes on the vector path
  // (not yet measured: the same bytes in flight as twice the scalar path's).
  static constexpr int kg_scalar = 4;
  static constexpr int kg_vector = 8;
};

struct CoreRowsPolicy {
  static constexpr int warps = 8;   // work items (rows or pieces) per block, as row_split
  static constexpr int unroll = 4;  // loads of B in flight per entry slot, as row_split
  static constexpr int zero_cols = 128;  // columns of C a warp zeroes per block
};

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
// is one window, or one segment of the condensed columns of a window with many. Vec:
// B and C row-major with 16-byte aligned rows, N a multiple of 4 (interleaved tiles).
template <bool Vec>
__global__ void __launch_bounds__(TcWindowPolicy::max_warps * 32)
    tc_items_kernel(Operands op, const int2* __restrict__ items) {
  using P = TcWindowPolicy;
  constexpr int seg = WindowPolicy::segment_columns;
  constexpr int stride = seg + P::pad;
  constexpr int KG = Vec ? P::kg_vector : P::kg_scalar;
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

  // Vec: lane (g, t) reads B(c, n0 + 4g .. n0 + 4g + 3), element q being its fragment
  // value of tile q (tile q, fragment column g = column n0 + 4g + q of C).
  const Index jv = n0 + 4 * g;
  const bool v_in = jv < op.n;  // N % 4 == 0: the 4 columns are all inside or all outside
  for (int kg = 0; kg < ksteps; kg += KG) {
    unsigned b[KG][4][2];
#pragma unroll
    for (int s = 0; s < KG; ++s) {
      const int kk = (kg + s) * 8;
      const bool live = kg + s < ksteps;
      const int c0 = live ? seg_cols[kk + t] : -1;
      const int c1 = live ? seg_cols[kk + t + 4] : -1;
      if constexpr (Vec) {
        const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
        const float4 x0 = (v_in && c0 >= 0) ? __ldg(reinterpret_cast<const float4*>(op.b + c0 * op.b_rs + jv)) : z;
        const float4 x1 = (v_in && c1 >= 0) ? __ldg(reinterpret_cast<const float4*>(op.b + c1 * op.b_rs + jv)) : z;
        b[s][0][0] = to_tf32(x0.x), b[s][1][0] = to_tf32(x0.y), b[s][2][0] = to_tf32(x0.z), b[s][3][0] = to_tf32(x0.w);
        b[s][0][1] = to_tf32(x1.x), b[s][1][1] = to_tf32(x1.y), b[s][2][1] = to_tf32(x1.z), b[s][3][1] = to_tf32(x1.w);
      } else {
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          const Index j = n0 + nt * 8 + g;
          const bool in = j < op.n;
          b[s][nt][0] = (in && c0 >= 0) ? to_tf32(load_b(op, c0, j)) : 0u;
          b[s][nt][1] = (in && c1 >= 0) ? to_tf32(load_b(op, c1, j)) : 0u;
        }
      }
    }
#pragma unroll
    for (int s = 0; s < KG; ++s) {
      if (kg + s >= ksteps) break;  // warp-uniform
      const int kk = (kg + s) * 8;
      const unsigned a0 = tile[g * stride + kk + t], a1 = tile[(g + 8) * stride + kk + t];
      const unsigned a2 = tile[g * stride + kk + t + 4], a3 = tile[(g + 8) * stride + kk + t + 4];
#pragma unroll
      for (int nt = 0; nt < 4; ++nt)
        // warp-uniform; on the vector path every tile spans the warp's 32 columns
        if (Vec || n0 + nt * 8 < op.n) mma_tf32(acc[nt], a0, a1, a2, a3, b[s][nt][0], b[s][nt][1]);
    }
  }

#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const Index row = row0 + g + 8 * half;
    if (row >= op.nrows) continue;
    if constexpr (Vec) {
      // acc[q][2 half + i] is row `row`, fragment column 2t + i of tile q: column
      // n0 + 4 (2t + i) + q of C, so i selects a group of 4 consecutive columns.
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const Index j = n0 + 8 * t + 4 * i;
        if (j >= op.n) continue;
        float* out = &c_at(op, row, j);
        float4 v = make_float4(acc[0][2 * half + i], acc[1][2 * half + i], acc[2][2 * half + i], acc[3][2 * half + i]);
        if (atomic) {
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
      for (int nt = 0; nt < 4; ++nt)
#pragma unroll
        for (int q = 0; q < 2; ++q) {
          const Index j = n0 + nt * 8 + 2 * t + q;
          if (j < op.n) store(op, row, j, acc[nt][2 * half + q], atomic);
        }
    }
  }
}

// grid: (CUDA-core items / warps, column tiles); one warp per item, an item being a row
// or a 128-entry piece of a long row, computed by row_split's warp loop.
template <class Ops, int V, bool RowMajor>
__global__ void __launch_bounds__(CoreRowsPolicy::warps * 32)
    cc_items_kernel(spmm::Operands<float, RowMajor> op, Ops ops, int log_w, const int2* __restrict__ items,
                    Index count) {
  constexpr int piece = WindowPolicy::piece_entries;
  const Index idx = static_cast<Index>(blockIdx.x) * CoreRowsPolicy::warps + (threadIdx.x >> 5);
  if (idx >= count) return;  // the whole warp leaves together
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int2 item = items[idx];
  const Index row = item.x;
  const Index row_begin = op.ro[row], row_end = op.ro[row + 1];
  const bool split = row_end - row_begin > piece;
  const Index begin = row_begin + static_cast<Index>(item.y) * piece;
  const Index end = min(row_end, begin + piece);
  const Index tile_width = static_cast<Index>(V) << log_w;
  for (Index tile = blockIdx.y; tile * tile_width < op.n; tile += gridDim.y) {
    const Index j = tile * tile_width + static_cast<Index>(lane & ((1 << log_w) - 1)) * V;
    const bool active = j < op.n;
    float acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = ops.identity();
    spmm::warp_row<CoreRowsPolicy::unroll>(op, ops, begin, end, j, active, log_w, acc);
    if (!active || (lane >> log_w) != 0) continue;
    if (split) {  // the row was zeroed first, or holds the C being accumulated into
      float* out = op.c_at(row, j);
#pragma unroll
      for (int v = 0; v < V; ++v) atomicAdd(out + v, acc[v]);  // V > 1 only when row-major
    } else {
      spmm::write_row(op, ops, row, j, begin == end, acc);
    }
  }
}

// Rows that several items add into start from zero (without accumulation).
__global__ void __launch_bounds__(CoreRowsPolicy::warps * 32)
    zero_rows_kernel(Operands op, const int* __restrict__ rows, Index count) {
  using P = CoreRowsPolicy;
  const Index idx = static_cast<Index>(blockIdx.x) * P::warps + (threadIdx.x >> 5);
  if (idx >= count) return;
  const Index j0 = static_cast<Index>(blockIdx.y) * P::zero_cols + (threadIdx.x & 31);
#pragma unroll
  for (int q = 0; q < P::zero_cols / 32; ++q)
    if (j0 + 32 * q < op.n) c_at(op, rows[idx], j0 + 32 * q) = 0.f;
}

unsigned blocks(Index n, Index per) { return static_cast<unsigned>((n + per - 1) / per); }

}  // namespace

std::string tc_window_unsupported(TypeId type, SemiringId semiring, bool allow_tf32, const SparseStorage& A,
                                  Index n) {
  const bool b16 = is_16bit_float(type);
  if (type != TypeId::float32 && !b16)
    return "computes float32, float16 and bfloat16 only (the operands are " + std::string(to_string(type)) + ")";
  if (semiring != SemiringId::plus_times)
    return std::string("computes plus_times only (tensor cores multiply and add), not ") + to_string(semiring);
  if (!b16 && !allow_tf32) return "runs float on TF32 tensor cores; set Options::allow_tf32 = true to allow that";
  if (!A.device.is_cuda()) return "runs on CUDA devices only";
  if (A.nvals >= (Index{1} << 31) - 1) return "indexes entries with int32 (A has " + std::to_string(A.nvals) + ")";
  if (n > Index{65535} * 32) return "supports at most 2097120 columns of B";
  return {};
}

namespace {

double routing_threshold(const spmm::SpmmProblem& p, WindowRouting routing) {
  // tc_window_all is the routing with threshold 0: every window with entries on tensor cores.
  return routing == WindowRouting::all_tensor_cores ? 0.0 : tc_window_threshold(p.type, p.n);
}

}  // namespace

TcWindowForecast tc_window_forecast(const SparseStorage& A, TypeId type, Index n) {
  TcWindowForecast f;
  if (A.nvals == 0) return f;
  f.threshold = tc_window_threshold(type, n);
  const int k = tc_k_step(type);
  auto plan = cached_window_plan(A);
  auto route = cached_window_route(A, *plan, f.threshold, k);
  auto all = cached_window_route(A, *plan, 0.0, k);
  const double nvals = static_cast<double>(A.nvals);
  f.share = static_cast<double>(route->tc_nvals) / nvals;
  // Each tensor-core window saves its entries' gathers and pays `threshold` gathers per
  // condensed column (the cost model of window_plan.cuh).
  f.gain = (static_cast<double>(route->tc_nvals) - f.threshold * static_cast<double>(route->tc_columns)) / nvals;
  f.gain_all = (static_cast<double>(all->tc_nvals) - f.threshold * static_cast<double>(all->tc_columns)) / nvals;
  f.mixed = route->tc_items > 0 && route->cc_items > 0;
  const double routed_score = f.gain - (detail::tc_window_min_gain(f.mixed) - detail::tc_window_min_gain(false));
  const double best = std::max(routed_score, f.gain_all);
  if (best >= detail::tc_window_min_gain(false))
    f.choice = f.gain_all >= routed_score ? &spmm::tc_window_all_variant() : &spmm::tc_window_variant();
  return f;
}

std::size_t tc_window_workspace(const spmm::SpmmProblem& p, WindowRouting routing) {
  if (!is_16bit_float(p.type) || p.n == 0 || !p.matrix || p.matrix->nrows == 0) return 0;
  const SparseStorage& A = *p.matrix;
  auto plan = cached_window_plan(A);
  auto route = cached_window_route(A, *plan, routing_threshold(p, routing), tc_k_step(p.type));
  return sizeof(float) * static_cast<std::size_t>(route->zero_rows) * static_cast<std::size_t>(p.n);
}

void tc_window_run(const spmm::SpmmProblem& p, WindowRouting routing, void* workspace, cudaStream_t s) {
  const SparseStorage& A = *p.matrix;
  if (p.n == 0 || A.nrows == 0) return;
  auto plan = cached_window_plan(A);
  auto route = cached_window_route(A, *plan, routing_threshold(p, routing), tc_k_step(p.type));
  if (is_16bit_float(p.type)) {
    tc_window_run_16bit(p, *plan, *route, workspace, s);
    return;
  }

  Operands op{};
  op.ro = A.row_offsets.as<Index>();
  op.ci = A.col_indices.as<ColIndex>();
  op.av = A.values.as<float>();
  op.local = plan->local_cols.as<int>();
  op.wcols = plan->window_cols.as<int>();
  op.wco = plan->window_col_offsets.as<int>();
  op.nrows = A.nrows;
  op.n = p.n;
  op.b = static_cast<const float*>(p.B);
  op.b_rs = p.b_row_stride;
  op.b_cs = p.b_col_stride;
  op.c = static_cast<float*>(p.C);
  op.c_rs = p.c_row_stride;
  op.c_cs = p.c_col_stride;
  op.accumulate = p.accumulate;

  const Index n = p.n;
  if (route->zero_rows > 0 && !p.accumulate) {
    zero_rows_kernel<<<dim3(blocks(route->zero_rows, CoreRowsPolicy::warps), blocks(n, CoreRowsPolicy::zero_cols)),
                       CoreRowsPolicy::warps * 32, 0, s>>>(op, route->zero_row_list.as<int>(), route->zero_rows);
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
  if (route->tc_items > 0) {
    const int warps = n <= 32 ? 1 : n <= 64 ? 2 : TcWindowPolicy::max_warps;
    const dim3 grid(static_cast<unsigned>(route->tc_items), blocks(n, Index{warps} * TcWindowPolicy::warp_n));
    if (spmm::vector_aligned(p, 4)) tc_items_kernel<true><<<grid, warps * 32, 0, s>>>(op, route->tc_item_list.as<int2>());
    else tc_items_kernel<false><<<grid, warps * 32, 0, s>>>(op, route->tc_item_list.as<int2>());
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
  if (route->cc_items > 0) {
    const int2* items = route->cc_item_list.as<int2>();
    const Index count = route->cc_items;
    auto launch = [&]<class Ops, int V, bool RowMajor>(Ops ops) {
      const int log_w = spmm::log2_of(spmm::slot_lanes(n, V));
      const Index tile_width = static_cast<Index>(V) << log_w;
      const Index tiles = (n + tile_width - 1) / tile_width;
      const dim3 grid(blocks(count, CoreRowsPolicy::warps), static_cast<unsigned>(tiles < 65535 ? tiles : 65535));
      cc_items_kernel<Ops, V, RowMajor><<<grid, CoreRowsPolicy::warps * 32, 0, s>>>(
          spmm::operands<float, RowMajor>(p), ops, log_w, items, count);
      GEBLAS_CUDA_CHECK_LAUNCH();
    };
    // The row-major float plus_times fast path of ops.cuh (16-byte loads when aligned),
    // else its generic path for any layout.
    using Fast = spmm::StaticOps<semiring::plus_times<float>>;
    if (p.b_row_major() && p.c_row_major()) {
      if (spmm::vector_aligned(p, 4)) launch.template operator()<Fast, 4, true>(Fast{});
      else launch.template operator()<Fast, 1, true>(Fast{});
    } else {
      using Generic = spmm::RuntimeOps<float>;
      launch.template operator()<Generic, 1, false>(spmm::runtime_ops<float>(SemiringId::plus_times));
    }
  }
}

}  // namespace geblas::detail::cuda
