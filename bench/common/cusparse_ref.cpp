// cuSPARSE baselines (see the header). Built against cuSPARSE only with
// GEBLAS_BENCH_CUSPARSE; otherwise every entry reports "unavailable" or throws.
#include "cusparse_ref.hpp"

#include <stdexcept>

#if defined(GEBLAS_BENCH_CUSPARSE)
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <random>

#define BENCH_CUDA(call)                                                                                 \
  do {                                                                                                   \
    const cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_)); \
  } while (0)
#define BENCH_CUSPARSE(call)                                                            \
  do {                                                                                  \
    const cusparseStatus_t s_ = (call);                                                 \
    if (s_ != CUSPARSE_STATUS_SUCCESS)                                                  \
      throw std::runtime_error(std::string(#call) + ": " + cusparseGetErrorString(s_)); \
  } while (0)

namespace geblas::bench {
namespace {

template <class T>
T* upload(const std::vector<T>& v) {
  T* d = nullptr;
  BENCH_CUDA(cudaMalloc(&d, std::max<std::size_t>(1, v.size()) * sizeof(T)));
  if (!v.empty()) BENCH_CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
T* device_alloc(std::size_t count) {
  T* d = nullptr;
  BENCH_CUDA(cudaMalloc(&d, std::max<std::size_t>(1, count) * sizeof(T)));
  return d;
}

// Median milliseconds of `call` (one warm-up call first), each call between two events.
template <class F>
double median_ms(int reps, F&& call) {
  cudaEvent_t e0, e1;
  BENCH_CUDA(cudaEventCreate(&e0));
  BENCH_CUDA(cudaEventCreate(&e1));
  call();
  BENCH_CUDA(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < std::max(1, reps); ++r) {
    BENCH_CUDA(cudaEventRecord(e0));
    call();
    BENCH_CUDA(cudaEventRecord(e1));
    BENCH_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

bool cusparse_available() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return devices > 0;
}

struct CusparseCsr::Impl {
  std::int64_t m = 0, n = 0, nnz = 0;
  int *off = nullptr, *col = nullptr;
  float* val = nullptr;
  int *toff = nullptr, *tcol = nullptr;  // A' (CSC of A), built by csr2csc on first need
  float* tval = nullptr;
  cusparseHandle_t h = nullptr;

  ~Impl() {
    if (h) cusparseDestroy(h);
    for (void* p : {static_cast<void*>(off), static_cast<void*>(col), static_cast<void*>(val), static_cast<void*>(toff),
                    static_cast<void*>(tcol), static_cast<void*>(tval)})
      if (p) cudaFree(p);
  }

  // One csr2csc of A into (toff, tcol, tval); returns the buffer for reuse.
  void* transpose_buffer(std::size_t& bytes) {
    if (!toff) {
      toff = device_alloc<int>(static_cast<std::size_t>(n + 1));
      tcol = device_alloc<int>(static_cast<std::size_t>(nnz));
      tval = device_alloc<float>(static_cast<std::size_t>(nnz));
    }
    BENCH_CUSPARSE(cusparseCsr2cscEx2_bufferSize(h, static_cast<int>(m), static_cast<int>(n), static_cast<int>(nnz),
                                                 val, off, col, tval, toff, tcol, CUDA_R_32F, CUSPARSE_ACTION_NUMERIC,
                                                 CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes));
    return device_alloc<char>(bytes);
  }
  void run_csr2csc(void* buffer) {
    BENCH_CUSPARSE(cusparseCsr2cscEx2(h, static_cast<int>(m), static_cast<int>(n), static_cast<int>(nnz), val, off, col,
                                      tval, toff, tcol, CUDA_R_32F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                      CUSPARSE_CSR2CSC_ALG1, buffer));
  }
};

CusparseCsr::CusparseCsr(const SparseMatrix<float>& A) : p_(std::make_unique<Impl>()) {
  if (A.device().is_cuda()) throw std::runtime_error("CusparseCsr wants a host CSR matrix");
  p_->m = A.nrows();
  p_->n = A.ncols();
  p_->nnz = A.nvals();
  if (p_->nnz >= (std::int64_t{1} << 31)) throw std::runtime_error("CusparseCsr: more than 2^31 entries");
  const auto ro = A.row_offsets();
  p_->off = upload(std::vector<int>(ro.begin(), ro.end()));
  p_->col = upload(A.col_indices());
  p_->val = upload(A.values());
  BENCH_CUSPARSE(cusparseCreate(&p_->h));
}

CusparseCsr::~CusparseCsr() = default;

Timed CusparseCsr::spmv(const std::vector<float>& x, int reps, bool transposed, std::vector<float>* y) {
  Impl& p = *p_;
  const std::int64_t rows = transposed ? p.n : p.m, cols = transposed ? p.m : p.n;
  if (static_cast<std::int64_t>(x.size()) != cols) throw std::runtime_error("CusparseCsr::spmv: x has the wrong size");
  if (transposed && !p.toff) {
    std::size_t bytes = 0;
    void* buffer = p.transpose_buffer(bytes);
    p.run_csr2csc(buffer);
    BENCH_CUDA(cudaDeviceSynchronize());
    cudaFree(buffer);
  }
  float* dx = upload(x);
  float* dy = device_alloc<float>(static_cast<std::size_t>(rows));
  cusparseSpMatDescr_t A = nullptr;
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  BENCH_CUSPARSE(cusparseCreateCsr(&A, rows, cols, p.nnz, transposed ? p.toff : p.off, transposed ? p.tcol : p.col,
                                   transposed ? p.tval : p.val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  BENCH_CUSPARSE(cusparseCreateDnVec(&vx, cols, dx, CUDA_R_32F));
  BENCH_CUSPARSE(cusparseCreateDnVec(&vy, rows, dy, CUDA_R_32F));
  const float alpha = 1, beta = 0;
  Timed best;
  for (auto alg : {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG2}) {
    std::size_t bytes = 0;
    BENCH_CUSPARSE(cusparseSpMV_bufferSize(p.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_32F,
                                           alg, &bytes));
    void* buffer = device_alloc<char>(bytes);
    const double ms = median_ms(reps, [&] {
      BENCH_CUSPARSE(
          cusparseSpMV(p.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_32F, alg, buffer));
    });
    cudaFree(buffer);
    if (best.ms < 0 || ms < best.ms) best = {ms, alg == CUSPARSE_SPMV_ALG_DEFAULT ? "spmv_default" : "spmv_csr_alg2"};
  }
  if (y) {
    y->resize(static_cast<std::size_t>(rows));
    BENCH_CUDA(cudaMemcpy(y->data(), dy, y->size() * sizeof(float), cudaMemcpyDeviceToHost));
  }
  cusparseDestroySpMat(A);
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  cudaFree(dx);
  cudaFree(dy);
  return best;
}

Timed CusparseCsr::spmm(Index N, int reps) {
  Impl& p = *p_;
  std::vector<float> b(static_cast<std::size_t>(p.n * N));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (float& x : b) x = u(rng);
  float* dB = upload(b);
  float* dC = device_alloc<float>(static_cast<std::size_t>(p.m * N));
  cusparseSpMatDescr_t A = nullptr;
  cusparseDnMatDescr_t B = nullptr, C = nullptr;
  BENCH_CUSPARSE(cusparseCreateCsr(&A, p.m, p.n, p.nnz, p.off, p.col, p.val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  BENCH_CUSPARSE(cusparseCreateDnMat(&B, p.n, N, N, dB, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  BENCH_CUSPARSE(cusparseCreateDnMat(&C, p.m, N, N, dC, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  const float alpha = 1, beta = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  Timed best;
  for (auto alg : {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3}) {
    std::size_t bytes = 0;
    // An algorithm cuSPARSE refuses for this shape is skipped: the best of the others stands.
    if (cusparseSpMM_bufferSize(p.h, op, op, &alpha, A, B, &beta, C, CUDA_R_32F, alg, &bytes) !=
        CUSPARSE_STATUS_SUCCESS)
      continue;
    void* buffer = device_alloc<char>(bytes);
    if (alg == CUSPARSE_SPMM_CSR_ALG3 && cusparseSpMM_preprocess(p.h, op, op, &alpha, A, B, &beta, C, CUDA_R_32F, alg,
                                                                 buffer) != CUSPARSE_STATUS_SUCCESS) {
      cudaFree(buffer);
      continue;
    }
    const double ms = median_ms(
        reps, [&] { BENCH_CUSPARSE(cusparseSpMM(p.h, op, op, &alpha, A, B, &beta, C, CUDA_R_32F, alg, buffer)); });
    cudaFree(buffer);
    const char* name = alg == CUSPARSE_SPMM_ALG_DEFAULT ? "spmm_default"
                       : alg == CUSPARSE_SPMM_CSR_ALG2  ? "spmm_csr_alg2"
                                                        : "spmm_csr_alg3";
    if (best.ms < 0 || ms < best.ms) best = {ms, name};
  }
  cusparseDestroySpMat(A);
  cusparseDestroyDnMat(B);
  cusparseDestroyDnMat(C);
  cudaFree(dB);
  cudaFree(dC);
  if (best.ms < 0) throw std::runtime_error("cuSPARSE refused every SpMM algorithm");
  return best;
}

Timed CusparseCsr::csr2csc(int reps) {
  std::size_t bytes = 0;
  void* buffer = p_->transpose_buffer(bytes);
  const double ms = median_ms(reps, [&] { p_->run_csr2csc(buffer); });
  cudaFree(buffer);
  return {ms, "csr2csc_ex2_alg1"};
}

double device_copy_bandwidth_gbs(std::size_t bytes, int reps) {
  char* a = device_alloc<char>(bytes);
  char* b = device_alloc<char>(bytes);
  BENCH_CUDA(cudaMemset(a, 1, bytes));
  const double ms = median_ms(reps, [&] { BENCH_CUDA(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice)); });
  cudaFree(a);
  cudaFree(b);
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

}  // namespace geblas::bench

#else

namespace geblas::bench {
struct CusparseCsr::Impl {};
bool cusparse_available() { return false; }
CusparseCsr::CusparseCsr(const SparseMatrix<float>&) { throw std::runtime_error("built without cuSPARSE"); }
CusparseCsr::~CusparseCsr() = default;
Timed CusparseCsr::spmv(const std::vector<float>&, int, bool, std::vector<float>*) {
  throw std::runtime_error("built without cuSPARSE");
}
Timed CusparseCsr::spmm(Index, int) { throw std::runtime_error("built without cuSPARSE"); }
Timed CusparseCsr::csr2csc(int) { throw std::runtime_error("built without cuSPARSE"); }
double device_copy_bandwidth_gbs(std::size_t, int) { throw std::runtime_error("built without cuSPARSE"); }
}  // namespace geblas::bench

#endif
