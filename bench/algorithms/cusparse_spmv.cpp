// cuSPARSE SpMV baseline: 32-bit offsets and columns (cuSPARSE's generic SpMV wants one
// index type), buffer allocated once, one warm-up, then `repeat` runs each between two
// CUDA events; the median is reported. Every CUDA and cuSPARSE call is checked.
#include "cusparse_spmv.hpp"

#if defined(GEBLAS_BENCH_CUSPARSE)
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#define BENCH_CUDA(call)                                                                             \
  do {                                                                                               \
    const cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_)); \
  } while (0)
#define BENCH_CUSPARSE(call)                                                                           \
  do {                                                                                                 \
    const cusparseStatus_t s_ = (call);                                                                \
    if (s_ != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(#call) + ": " + cusparseGetErrorString(s_)); \
  } while (0)

namespace geblas::bench {

SpmvTiming cusparse_spmv(std::int64_t nrows, std::int64_t ncols, const std::vector<std::int64_t>& offsets,
                         const std::vector<std::int32_t>& cols, const std::vector<float>& vals,
                         const std::vector<float>& x, int repeat) {
  SpmvTiming out;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    return out;
  }
  std::vector<std::int32_t> off32(offsets.begin(), offsets.end());
  const auto nnz = static_cast<std::int64_t>(cols.size());
  int *d_off = nullptr, *d_cols = nullptr;
  float *d_vals = nullptr, *d_x = nullptr, *d_y = nullptr;
  BENCH_CUDA(cudaMalloc(&d_off, off32.size() * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_cols, std::max<std::size_t>(1, cols.size()) * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_vals, std::max<std::size_t>(1, vals.size()) * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_x, x.size() * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_y, static_cast<std::size_t>(nrows) * sizeof(float)));
  BENCH_CUDA(cudaMemcpy(d_off, off32.data(), off32.size() * sizeof(int), cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(d_cols, cols.data(), cols.size() * sizeof(int), cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(d_vals, vals.data(), vals.size() * sizeof(float), cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  cusparseHandle_t h = nullptr;
  BENCH_CUSPARSE(cusparseCreate(&h));
  cusparseSpMatDescr_t A = nullptr;
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  BENCH_CUSPARSE(cusparseCreateCsr(&A, nrows, ncols, nnz, d_off, d_cols, d_vals, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  BENCH_CUSPARSE(cusparseCreateDnVec(&vx, ncols, d_x, CUDA_R_32F));
  BENCH_CUSPARSE(cusparseCreateDnVec(&vy, nrows, d_y, CUDA_R_32F));
  const float alpha = 1, beta = 0;
  std::size_t bytes = 0;
  BENCH_CUSPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_32F,
                                         CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  void* buffer = nullptr;
  BENCH_CUDA(cudaMalloc(&buffer, std::max<std::size_t>(bytes, 1)));
  auto spmv = [&] {
    BENCH_CUSPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_32F,
                                CUSPARSE_SPMV_ALG_DEFAULT, buffer));
  };
  spmv();
  BENCH_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  BENCH_CUDA(cudaEventCreate(&start));
  BENCH_CUDA(cudaEventCreate(&stop));
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    BENCH_CUDA(cudaEventRecord(start));
    spmv();
    BENCH_CUDA(cudaEventRecord(stop));
    BENCH_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  BENCH_CUDA(cudaGetLastError());
  std::sort(times.begin(), times.end());
  out.median_ms = times[times.size() / 2];
  out.y.resize(static_cast<std::size_t>(nrows));
  BENCH_CUDA(cudaMemcpy(out.y.data(), d_y, out.y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  out.available = true;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cusparseDestroySpMat(A);
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  cusparseDestroy(h);
  cudaFree(buffer);
  cudaFree(d_off);
  cudaFree(d_cols);
  cudaFree(d_vals);
  cudaFree(d_x);
  cudaFree(d_y);
  return out;
}

}  // namespace geblas::bench

#else

namespace geblas::bench {
SpmvTiming cusparse_spmv(std::int64_t, std::int64_t, const std::vector<std::int64_t>&, const std::vector<std::int32_t>&,
                         const std::vector<float>&, const std::vector<float>&, int) {
  return {};
}
}  // namespace geblas::bench

#endif
