// The max / min SpMM with its argument (geblas/detail/spmm_arg.hpp) for the backward of
// max / min aggregation. The previous way recorded the argument by packing (float key,
// column) into int64 and running an int64 max_min SpMM: on ego-Twitter at F = 512 that
// took 6.9 ms where the float32 max_times SpMM takes 0.93 ms (H100, 2026-11-25,
// docs/notes/python-torch-spmm.md), since 64-bit values and the packing cost about 4x.
// Here each lane keeps its best value and its column in registers and writes both once.
//
// A warp per row of A; the row's entries are read 32 at a time with one coalesced load and
// broadcast by shuffles, and each lane owns V consecutive columns of a 32 x V column tile
// (16-byte loads of X when V = 4). Entries are visited in column order and a term replaces
// the best only when strictly better, so the smallest column wins a tie.
#include <cstdint>
#include <string>

#include "cuda/check.cuh"
#include "cuda/context.cuh"
#include "geblas/detail/spmm_arg.hpp"
#include "geblas/error.hpp"

namespace geblas::detail {
namespace cuda::spmm {
namespace {

// 4 rows (warps) per block as the user-semiring kernel, V = 4 where X's rows allow
// 16-byte loads. A warp has `loads_in_flight` rows of X on the way before it compares the
// first: a warp walks its row alone, and with one load at a time a hub row of R-MAT
// scale 20 (tens of thousands of entries) kept the whole product waiting on its latency
// (max with its argument 13.5 ms forward + backward at F = 32, against 0.57 ms for max
// alone; H200, 2026-11-28).
struct ArgExtremePolicy {
  static constexpr int rows_per_block = 4;
  static constexpr int loads_in_flight = 8;
  static constexpr unsigned max_grid_y = 65535;
};

template <int V>
struct Pack;
template <>
struct Pack<1> {
  __device__ static void load(const float* p, float* x) { x[0] = __ldg(p); }
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
};

template <bool Max, int V>
__global__ void arg_extreme_kernel(const Index* __restrict__ ro, const ColIndex* __restrict__ ci,
                                   const float* __restrict__ av, Index m, Index n, const float* __restrict__ X,
                                   Index ldx, float* __restrict__ Y, Index ldy, int* __restrict__ arg, Index lda) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const Index row = static_cast<Index>(blockIdx.x) * ArgExtremePolicy::rows_per_block + (threadIdx.x >> 5);
  if (row >= m) return;  // whole warps leave together: a row per warp
  const Index begin = ro[row], end = ro[row + 1];
  for (Index j0 = static_cast<Index>(blockIdx.y) * 32 * V; j0 < n; j0 += static_cast<Index>(gridDim.y) * 32 * V) {
    const Index j = j0 + static_cast<Index>(lane) * V;
    const bool live = j < n;  // V > 1 only when V divides n: all V columns are live together
    float best[V];
    int who[V];
#pragma unroll
    for (int v = 0; v < V; ++v) {
      best[v] = 0.0f;
      who[v] = -1;
    }
    for (Index tile = begin; tile < end; tile += 32) {
      const int count = end - tile < 32 ? static_cast<int>(end - tile) : 32;
      int my_col = 0;
      float my_val = 1.0f;
      if (lane < count) {
        my_col = ci[tile + lane];
        my_val = av[tile + lane];
      }
      constexpr int U = ArgExtremePolicy::loads_in_flight;
      for (int e0 = 0; e0 < count; e0 += U) {
        int k[U];
        float a[U], x[U][V];
#pragma unroll
        for (int q = 0; q < U; ++q) {  // every lane shuffles; lanes past count are not used
          k[q] = __shfl_sync(0xffffffffu, my_col, (e0 + q) & 31);
          a[q] = __shfl_sync(0xffffffffu, my_val, (e0 + q) & 31);
          if (live && e0 + q < count) Pack<V>::load(X + static_cast<Index>(k[q]) * ldx + j, x[q]);
        }
        // in entry order, so that the first of equal terms (the smallest column) wins
#pragma unroll
        for (int q = 0; q < U; ++q) {
          if (!live || e0 + q >= count) break;
#pragma unroll
          for (int v = 0; v < V; ++v) {
            const float t = a[q] * x[q][v];
            if (who[v] < 0 || (Max ? t > best[v] : t < best[v])) {
              best[v] = t;
              who[v] = k[q];
            }
          }
        }
      }
    }
    if (live) {
#pragma unroll
      for (int v = 0; v < V; ++v) {
        Y[row * ldy + j + v] = best[v];  // 0 for an empty row (who = -1)
        arg[row * lda + j + v] = who[v];
      }
    }
  }
}

template <bool Max, int V>
void launch(const SparseStorage& A, const DenseStorage& X, DenseStorage& Y, DenseStorage& arg, cudaStream_t s) {
  const Index m = A.nrows, n = Y.ncols;
  const Index blocks = (m + ArgExtremePolicy::rows_per_block - 1) / ArgExtremePolicy::rows_per_block;
  const Index tiles = (n + 32 * V - 1) / (32 * V);
  const dim3 grid(static_cast<unsigned>(blocks),
                  static_cast<unsigned>(tiles < ArgExtremePolicy::max_grid_y ? tiles : ArgExtremePolicy::max_grid_y));
  arg_extreme_kernel<Max, V><<<grid, 32 * ArgExtremePolicy::rows_per_block, 0, s>>>(
      A.row_offsets.as<Index>(), A.col_indices.as<ColIndex>(), A.values.as<float>(), m, n, X.data.as<float>(), X.ld,
      Y.data.as<float>(), Y.ld, arg.data.as<int>(), arg.ld);
  GEBLAS_CUDA_CHECK_LAUNCH();
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
  // 16-byte loads of X need 4 | F, a 16-byte aligned base and row stride; Y and arg are
  // written a value at a time.
  const bool vec = X.ncols % 4 == 0 && X.ld % 4 == 0 && reinterpret_cast<std::uintptr_t>(X.data.data()) % 16 == 0;
  if (max) {
    if (vec) cuda::spmm::launch<true, 4>(A, X, Y, arg, s);
    else cuda::spmm::launch<true, 1>(A, X, Y, arg, s);
  } else {
    if (vec) cuda::spmm::launch<false, 4>(A, X, Y, arg, s);
    else cuda::spmm::launch<false, 1>(A, X, Y, arg, s);
  }
}

}  // namespace geblas::detail
