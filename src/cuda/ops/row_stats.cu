// Row-length statistics of a CSR matrix on its device: one pass over the row offsets
// with block reductions, so that only three numbers come back to the host (the SpMM
// dispatchers read them for every new matrix, including the ones the graph algorithms
// derive on the device).
#include <algorithm>
#include <cmath>

#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"

namespace geblas::detail::cuda::ops {
namespace {

struct Totals {
  unsigned long long max_row;
  unsigned long long empty_rows;
  double sum_sq;
};

__global__ void row_stats_kernel(Index m, const Index* ro, Totals* out) {
  unsigned long long mx = 0, empty = 0;
  double sq = 0;
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += Index(gridDim.x) * blockDim.x) {
    const auto len = static_cast<unsigned long long>(ro[i + 1] - ro[i]);
    mx = len > mx ? len : mx;
    empty += len == 0;
    sq += static_cast<double>(len) * static_cast<double>(len);
  }
  for (int off = 16; off > 0; off /= 2) {
    const unsigned long long o = __shfl_down_sync(0xffffffffu, mx, off);
    mx = o > mx ? o : mx;
    empty += __shfl_down_sync(0xffffffffu, empty, off);
    sq += __shfl_down_sync(0xffffffffu, sq, off);
  }
  if (threadIdx.x % 32 == 0) {
    atomicMax(&out->max_row, mx);
    atomicAdd(&out->empty_rows, empty);
    atomicAdd(&out->sum_sq, sq);
  }
}

}  // namespace

void row_stats(RowStats& s, const SparseStorage& A) {
  s = RowStats{};
  s.nrows = A.nrows;
  s.nvals = A.nvals;
  if (A.nrows == 0) return;
  Ctx c(A.device);
  RawBuffer totals = temp<Totals>(1, c.device);
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(totals.data(), 0, sizeof(Totals), c.stream));
  // A few blocks per SM are plenty for a pass over nrows + 1 offsets.
  const unsigned grid = blocks_for(A.nrows, LaunchPolicy::threads) < 1024 ? blocks_for(A.nrows) : 1024;
  row_stats_kernel<<<grid, LaunchPolicy::threads, 0, c.stream>>>(A.nrows, A.row_offsets.as<Index>(),
                                                                 totals.as<Totals>());
  GEBLAS_CUDA_CHECK_LAUNCH();
  Totals t{};
  read_to_host(&t, totals.data(), sizeof(Totals), c.stream);
  s.max_row = static_cast<Index>(t.max_row);
  s.empty_rows = static_cast<Index>(t.empty_rows);
  s.mean_row = static_cast<double>(A.nvals) / static_cast<double>(A.nrows);
  s.stddev_row = std::sqrt(std::max(0.0, t.sum_sq / static_cast<double>(A.nrows) - s.mean_row * s.mean_row));
}

}  // namespace geblas::detail::cuda::ops
