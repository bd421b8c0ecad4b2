// cuSPARSE baselines (see the header). Built against cuSPARSE only with
// GEBLAS_BENCH_CUSPARSE; otherwise every entry reports "unavailable" or throws.
#include "cusparse_ref.hpp"

#include <stdexcept>

#if defined(GEBLAS_BENCH_CUSPARSE)
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>

namespace geblas::bench {
namespace {
// What BENCH_CUDA / BENCH_CUSPARSE throw: the call and its message, and the bare status
// name (INSUFFICIENT_RESOURCES, cudaErrorMemoryAllocation) that a bench table can print.
class CallError : public std::runtime_error {
 public:
  CallError(const std::string& what, std::string status) : std::runtime_error(what), status_(std::move(status)) {}
  const std::string& status() const { return status_; }

 private:
  std::string status_;
};

std::string status_name(cusparseStatus_t s) {
  const std::string name = cusparseGetErrorName(s);
  const std::string prefix = "CUSPARSE_STATUS_";
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}
}  // namespace
}  // namespace geblas::bench

#define BENCH_CUDA(call)                                                                                              \
  do {                                                                                                                \
    const cudaError_t e_ = (call);                                                                                    \
    if (e_ != cudaSuccess) throw CallError(std::string(#call) + ": " + cudaGetErrorString(e_), cudaGetErrorName(e_)); \
  } while (0)
#define BENCH_CUSPARSE(call)                                                                    \
  do {                                                                                          \
    const cusparseStatus_t s_ = (call);                                                         \
    if (s_ != CUSPARSE_STATUS_SUCCESS)                                                          \
      throw CallError(std::string(#call) + ": " + cusparseGetErrorString(s_), status_name(s_)); \
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

double event_median_ms(void* stream, int runs, const std::function<void()>& call, const std::function<void()>& setup) {
  const auto s = static_cast<cudaStream_t>(stream);
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  BENCH_CUDA(cudaEventCreate(&e0));
  std::vector<double> t;
  try {
    BENCH_CUDA(cudaEventCreate(&e1));
    for (int r = -1; r < std::max(1, runs); ++r) {  // r == -1: the warm-up
      if (setup) setup();
      // each sample starts on an idle GPU, so that it times one call, not a queue
      BENCH_CUDA(cudaStreamSynchronize(s));
      BENCH_CUDA(cudaEventRecord(e0, s));
      call();
      BENCH_CUDA(cudaEventRecord(e1, s));
      BENCH_CUDA(cudaEventSynchronize(e1));
      float ms = 0;
      BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 0) t.push_back(ms);
    }
  } catch (...) {
    cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    throw;
  }
  BENCH_CUDA(cudaEventDestroy(e0));
  BENCH_CUDA(cudaEventDestroy(e1));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// ---- cusparseSpGEMM -----------------------------------------------------------------

namespace {

struct SpgemmAlg {
  const char* name;
  cusparseSpGEMMAlg_t alg;
};
// The algorithms CusparseSpgemm times (issue 41's three), in the order they are printed.
constexpr SpgemmAlg kSpgemmAlgs[] = {
    {"DEFAULT", CUSPARSE_SPGEMM_DEFAULT}, {"ALG2", CUSPARSE_SPGEMM_ALG2}, {"ALG3", CUSPARSE_SPGEMM_ALG3}};

// ALG3's chunk_fraction (the share of the intermediate products computed per chunk, in
// (0, 1]): 0.2, the value of NVIDIA's spgemm_mem sample; not tuned here (smaller: less
// memory, more passes). ALG2 ignores it.
constexpr float kAlg3ChunkFraction = 0.2f;

// A device allocation (at least one byte, so that a zero-size buffer is still a valid
// pointer); reset() is the checked free of a timed sequence, the destructor the quiet
// free of an error path.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    BENCH_CUDA(cudaMalloc(&p_, std::max<std::size_t>(1, bytes)));
  }
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), bytes_(o.bytes_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (p_) cudaFree(p_);
      p_ = std::exchange(o.p_, nullptr);
      bytes_ = o.bytes_;
    }
    return *this;
  }
  void reset() {
    if (p_) BENCH_CUDA(cudaFree(std::exchange(p_, nullptr)));
  }
  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// The SpGEMM descriptor, and an m x n CSR descriptor for C with no arrays yet (compute
// sizes C; copy fills the arrays set after it): the same life cycle as DeviceBuffer.
class SpgemmDescr {
 public:
  SpgemmDescr() { BENCH_CUSPARSE(cusparseSpGEMM_createDescr(&d_)); }
  ~SpgemmDescr() {
    if (d_) cusparseSpGEMM_destroyDescr(d_);
  }
  SpgemmDescr(const SpgemmDescr&) = delete;
  SpgemmDescr& operator=(const SpgemmDescr&) = delete;
  void reset() {
    if (d_) BENCH_CUSPARSE(cusparseSpGEMM_destroyDescr(std::exchange(d_, nullptr)));
  }
  cusparseSpGEMMDescr_t get() const { return d_; }

 private:
  cusparseSpGEMMDescr_t d_ = nullptr;
};

class OutputDescr {
 public:
  OutputDescr(std::int64_t m, std::int64_t n) {
    BENCH_CUSPARSE(cusparseCreateCsr(&d_, m, n, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  }
  ~OutputDescr() {
    if (d_) cusparseDestroySpMat(d_);
  }
  OutputDescr(const OutputDescr&) = delete;
  OutputDescr& operator=(const OutputDescr&) = delete;
  void reset() {
    if (d_) BENCH_CUSPARSE(cusparseDestroySpMat(std::exchange(d_, nullptr)));
  }
  cusparseSpMatDescr_t get() const { return d_; }

 private:
  cusparseSpMatDescr_t d_ = nullptr;
};

}  // namespace

struct CusparseSpgemm::Impl {
  // C's three arrays (32-bit offsets and columns, as A's and B's).
  struct Product {
    DeviceBuffer off, col, val;
    std::int64_t nnz = 0;
  };
  // The buffer sizes of one product (its warm-up call's), and the buffers of those sizes
  // that "preallocated" reuses.
  struct Sizes {
    std::size_t b1 = 0, b3 = 0, b2 = 0;
    std::int64_t nnz = 0;
  };
  struct Buffers {
    explicit Buffers(const Sizes& s, std::int64_t m) : b1(s.b1), b3(s.b3), b2(s.b2) {
      C.nnz = s.nnz;
      C.off = DeviceBuffer(static_cast<std::size_t>(m + 1) * sizeof(int));
      C.col = DeviceBuffer(static_cast<std::size_t>(s.nnz) * sizeof(int));
      C.val = DeviceBuffer(static_cast<std::size_t>(s.nnz) * sizeof(float));
    }
    DeviceBuffer b1, b3, b2;
    Product C;
  };

  cudaStream_t stream = nullptr;
  cusparseHandle_t h = nullptr;
  std::int64_t m = 0, n = 0;
  DeviceBuffer aoff, acol, aval, boff, bcol, bval;
  cusparseSpMatDescr_t A = nullptr, B = nullptr;
  std::unique_ptr<SparseMatrix<float>> last;  // result()
  static constexpr float alpha = 1, beta = 0;
  static constexpr cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;

  ~Impl() {
    if (A) cusparseDestroySpMat(A);
    if (B) cusparseDestroySpMat(B);
    if (h) cusparseDestroy(h);
  }

  // Uploads host CSR M (32-bit offsets) and describes it.
  cusparseSpMatDescr_t upload_csr(const SparseMatrix<float>& M, DeviceBuffer& off, DeviceBuffer& col,
                                  DeviceBuffer& val) {
    if (M.device().is_cuda()) throw std::runtime_error("CusparseSpgemm wants host CSR matrices");
    if (M.nvals() >= (std::int64_t{1} << 31)) throw std::runtime_error("CusparseSpgemm: more than 2^31 entries");
    const auto ro = M.row_offsets();
    const std::vector<int> off32(ro.begin(), ro.end());
    const auto ci = M.col_indices();
    const auto v = M.values();
    off = DeviceBuffer(off32.size() * sizeof(int));
    col = DeviceBuffer(ci.size() * sizeof(ColIndex));
    val = DeviceBuffer(v.size() * sizeof(float));
    BENCH_CUDA(cudaMemcpy(off.get(), off32.data(), off32.size() * sizeof(int), cudaMemcpyHostToDevice));
    if (!ci.empty()) {
      BENCH_CUDA(cudaMemcpy(col.get(), ci.data(), ci.size() * sizeof(ColIndex), cudaMemcpyHostToDevice));
      BENCH_CUDA(cudaMemcpy(val.get(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
    cusparseSpMatDescr_t d = nullptr;
    BENCH_CUSPARSE(cusparseCreateCsr(&d, M.nrows(), M.ncols(), M.nvals(), off.get(), col.get(), val.get(),
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    return d;
  }

  void work_estimation(cusparseSpGEMMAlg_t alg, cusparseSpMatDescr_t C, cusparseSpGEMMDescr_t d, std::size_t* bytes,
                       void* buffer) {
    BENCH_CUSPARSE(cusparseSpGEMM_workEstimation(h, op, op, &alpha, A, B, &beta, C, CUDA_R_32F, alg, d, bytes, buffer));
  }
  void estimate_memory(cusparseSpGEMMAlg_t alg, cusparseSpMatDescr_t C, cusparseSpGEMMDescr_t d, std::size_t* bytes3,
                       void* buffer3, std::size_t* bytes2) {
    BENCH_CUSPARSE(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, A, B, &beta, C, CUDA_R_32F, alg, d,
                                                 kAlg3ChunkFraction, bytes3, buffer3, bytes2));
  }
  void compute(cusparseSpGEMMAlg_t alg, cusparseSpMatDescr_t C, cusparseSpGEMMDescr_t d, std::size_t* bytes,
               void* buffer) {
    BENCH_CUSPARSE(cusparseSpGEMM_compute(h, op, op, &alpha, A, B, &beta, C, CUDA_R_32F, alg, d, bytes, buffer));
  }
  void copy(cusparseSpGEMMAlg_t alg, cusparseSpMatDescr_t C, cusparseSpGEMMDescr_t d, Product& out) {
    BENCH_CUSPARSE(cusparseCsrSetPointers(C, out.off.get(), out.col.get(), out.val.get()));
    BENCH_CUSPARSE(cusparseSpGEMM_copy(h, op, op, &alpha, A, B, &beta, C, CUDA_R_32F, alg, d));
  }
  std::int64_t output_nnz(cusparseSpMatDescr_t C) {
    std::int64_t rows = 0, cols = 0, nnz = 0;
    BENCH_CUSPARSE(cusparseSpMatGetSize(C, &rows, &cols, &nnz));
    return nnz;
  }

  // The whole sequence of one product (see the header): C's arrays end in `out`; with
  // `sizes`, the buffer sizes it used are recorded there for the preallocated timing.
  void in_call(cusparseSpGEMMAlg_t alg, Product& out, Sizes* sizes) {
    OutputDescr C(m, n);
    SpgemmDescr d;
    std::size_t s1 = 0, s2 = 0, s3 = 0;
    work_estimation(alg, C.get(), d.get(), &s1, nullptr);
    DeviceBuffer b1(s1);
    work_estimation(alg, C.get(), d.get(), &s1, b1.get());
    DeviceBuffer b2;
    if (alg == CUSPARSE_SPGEMM_DEFAULT) {
      compute(alg, C.get(), d.get(), &s2, nullptr);
    } else {
      estimate_memory(alg, C.get(), d.get(), &s3, nullptr, nullptr);
      DeviceBuffer b3(s3);
      estimate_memory(alg, C.get(), d.get(), &s3, b3.get(), &s2);
      b3.reset();  // not needed by compute: the documented sequence frees it here
    }
    b2 = DeviceBuffer(s2);
    compute(alg, C.get(), d.get(), &s2, b2.get());
    out.nnz = output_nnz(C.get());
    out.off = DeviceBuffer(static_cast<std::size_t>(m + 1) * sizeof(int));
    out.col = DeviceBuffer(static_cast<std::size_t>(out.nnz) * sizeof(int));
    out.val = DeviceBuffer(static_cast<std::size_t>(out.nnz) * sizeof(float));
    copy(alg, C.get(), d.get(), out);
    b1.reset();
    b2.reset();
    d.reset();
    C.reset();
    if (sizes) *sizes = {s1, s3, s2, out.nnz};
  }

  // The same calls into the buffers `in_call` sized (the size queries stay: they are
  // part of the documented sequence and cost no allocation).
  void preallocated(cusparseSpGEMMAlg_t alg, Buffers& pre, cusparseSpMatDescr_t C, cusparseSpGEMMDescr_t d) {
    const auto fits = [](std::size_t need, const DeviceBuffer& have, const char* what) {
      if (need > have.bytes())
        throw CallError(std::string("CusparseSpgemm: ") + what + " grew between calls", "BUFFER_GREW");
    };
    std::size_t s1 = 0, s2 = 0, s3 = 0;
    work_estimation(alg, C, d, &s1, nullptr);
    fits(s1, pre.b1, "buffer 1");
    work_estimation(alg, C, d, &s1, pre.b1.get());
    if (alg == CUSPARSE_SPGEMM_DEFAULT) {
      compute(alg, C, d, &s2, nullptr);
    } else {
      estimate_memory(alg, C, d, &s3, nullptr, nullptr);
      fits(s3, pre.b3, "buffer 3");
      estimate_memory(alg, C, d, &s3, pre.b3.get(), &s2);
    }
    fits(s2, pre.b2, "buffer 2");
    compute(alg, C, d, &s2, pre.b2.get());
    if (output_nnz(C) != pre.C.nnz) throw CallError("CusparseSpgemm: nnz(C) changed between calls", "NNZ_CHANGED");
    copy(alg, C, d, pre.C);
  }

  // C copied to the host, each row sorted by column.
  std::unique_ptr<SparseMatrix<float>> download(const Product& C) {
    std::vector<int> off(static_cast<std::size_t>(m + 1));
    std::vector<ColIndex> col(static_cast<std::size_t>(C.nnz));
    std::vector<float> val(static_cast<std::size_t>(C.nnz));
    BENCH_CUDA(cudaStreamSynchronize(stream));
    BENCH_CUDA(cudaMemcpy(off.data(), C.off.get(), off.size() * sizeof(int), cudaMemcpyDeviceToHost));
    if (C.nnz > 0) {
      BENCH_CUDA(cudaMemcpy(col.data(), C.col.get(), col.size() * sizeof(ColIndex), cudaMemcpyDeviceToHost));
      BENCH_CUDA(cudaMemcpy(val.data(), C.val.get(), val.size() * sizeof(float), cudaMemcpyDeviceToHost));
    }
    std::vector<Index> offsets(off.begin(), off.end());
    std::vector<ColIndex> cols(col.size());
    std::vector<float> vals(val.size());
    std::vector<std::size_t> order;
    for (std::int64_t i = 0; i < m; ++i) {
      const auto b = static_cast<std::size_t>(off[i]), e = static_cast<std::size_t>(off[i + 1]);
      order.resize(e - b);
      std::iota(order.begin(), order.end(), b);
      std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return col[x] < col[y]; });
      for (std::size_t q = 0; q < order.size(); ++q) {
        cols[b + q] = col[order[q]];
        vals[b + q] = val[order[q]];
      }
    }
    return std::make_unique<SparseMatrix<float>>(SparseMatrix<float>::from_csr(m, n, offsets, cols, vals));
  }
};

CusparseSpgemm::CusparseSpgemm(const SparseMatrix<float>& A, const SparseMatrix<float>& B, void* stream)
    : p_(std::make_unique<Impl>()) {
  if (A.ncols() != B.nrows()) throw std::runtime_error("CusparseSpgemm: A's columns differ from B's rows");
  p_->stream = static_cast<cudaStream_t>(stream);
  p_->m = A.nrows();
  p_->n = B.ncols();
  p_->A = p_->upload_csr(A, p_->aoff, p_->acol, p_->aval);
  p_->B = p_->upload_csr(B, p_->boff, p_->bcol, p_->bval);
  BENCH_CUSPARSE(cusparseCreate(&p_->h));
  BENCH_CUSPARSE(cusparseSetStream(p_->h, p_->stream));
  // a pageable upload may still be in flight when cudaMemcpy returns, and `stream` (geblas's
  // is non-blocking) is not ordered after the legacy stream that carries it
  BENCH_CUDA(cudaDeviceSynchronize());
}

CusparseSpgemm::~CusparseSpgemm() = default;

std::vector<std::string> CusparseSpgemm::algorithms() {
  std::vector<std::string> names;
  for (const auto& a : kSpgemmAlgs) names.emplace_back(a.name);
  return names;
}

CusparseSpgemm::Timing CusparseSpgemm::time(const std::string& name, int runs) {
  Impl& p = *p_;
  const auto it =
      std::find_if(std::begin(kSpgemmAlgs), std::end(kSpgemmAlgs), [&](const SpgemmAlg& a) { return name == a.name; });
  if (it == std::end(kSpgemmAlgs)) throw std::runtime_error("CusparseSpgemm: unknown algorithm " + name);
  const cusparseSpGEMMAlg_t alg = it->alg;
  Timing t;
  t.alg = name;
  p.last.reset();
  try {
    // the warm-up of both ways: its product is result(), its sizes the preallocated buffers
    Impl::Product C;
    Impl::Sizes sizes;
    p.in_call(alg, C, &sizes);
    p.last = p.download(C);
    t.in_call_ms = event_median_ms(
        p.stream, runs, [&] { p.in_call(alg, C, nullptr); }, [&] { C = Impl::Product{}; });
    C = Impl::Product{};
    Impl::Buffers pre(sizes, p.m);  // after the in-call samples, which need the memory themselves
    std::unique_ptr<OutputDescr> Cd;
    std::unique_ptr<SpgemmDescr> d;
    t.preallocated_ms = event_median_ms(
        p.stream, runs, [&] { p.preallocated(alg, pre, Cd->get(), d->get()); },
        [&] {
          d.reset();
          Cd.reset();
          Cd = std::make_unique<OutputDescr>(p.m, p.n);
          d = std::make_unique<SpgemmDescr>();
        });
  } catch (const CallError& e) {
    cudaGetLastError();  // a refused allocation leaves its error behind; the next call must not see it
    t.status = e.status();
    t.error = e.what();
  }
  return t;
}

const SparseMatrix<float>* CusparseSpgemm::result() const { return p_->last.get(); }

struct CusparseSddmm::Impl {
  cudaStream_t stream = nullptr;
  cusparseHandle_t h = nullptr;
  DeviceBuffer off, col, val, x, y, work;
  cusparseSpMatDescr_t S = nullptr;
  cusparseDnMatDescr_t X = nullptr, Y = nullptr;
  std::int64_t nnz = 0;
  static constexpr float alpha = 1, beta = 0;

  ~Impl() {
    if (S) cusparseDestroySpMat(S);
    if (X) cusparseDestroyDnMat(X);
    if (Y) cusparseDestroyDnMat(Y);
    if (h) cusparseDestroy(h);
  }
  void call() {
    BENCH_CUSPARSE(cusparseSDDMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE, &alpha, X, Y, &beta,
                                 S, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, work.get()));
  }
};

CusparseSddmm::CusparseSddmm(const SparseMatrix<float>& P, const std::vector<float>& X, const std::vector<float>& Y,
                             Index k, void* stream)
    : p_(std::make_unique<Impl>()) {
  if (P.device().is_cuda()) throw std::runtime_error("CusparseSddmm wants a host CSR pattern");
  if (P.nvals() >= (std::int64_t{1} << 31)) throw std::runtime_error("CusparseSddmm: more than 2^31 entries");
  if (static_cast<Index>(X.size()) != P.nrows() * k || static_cast<Index>(Y.size()) != P.ncols() * k)
    throw std::runtime_error("CusparseSddmm: X must be nrows x k and Y ncols x k");
  Impl& q = *p_;
  q.stream = static_cast<cudaStream_t>(stream);
  q.nnz = P.nvals();
  const auto ro = P.row_offsets();
  const std::vector<int> off32(ro.begin(), ro.end());
  const auto ci = P.col_indices();
  q.off = DeviceBuffer(off32.size() * sizeof(int));
  q.col = DeviceBuffer(ci.size() * sizeof(ColIndex));
  q.val = DeviceBuffer(ci.size() * sizeof(float));
  q.x = DeviceBuffer(X.size() * sizeof(float));
  q.y = DeviceBuffer(Y.size() * sizeof(float));
  BENCH_CUDA(cudaMemcpy(q.off.get(), off32.data(), off32.size() * sizeof(int), cudaMemcpyHostToDevice));
  if (!ci.empty()) BENCH_CUDA(cudaMemcpy(q.col.get(), ci.data(), ci.size() * sizeof(ColIndex), cudaMemcpyHostToDevice));
  if (!X.empty()) BENCH_CUDA(cudaMemcpy(q.x.get(), X.data(), X.size() * sizeof(float), cudaMemcpyHostToDevice));
  if (!Y.empty()) BENCH_CUDA(cudaMemcpy(q.y.get(), Y.data(), Y.size() * sizeof(float), cudaMemcpyHostToDevice));
  BENCH_CUSPARSE(cusparseCreateCsr(&q.S, P.nrows(), P.ncols(), P.nvals(), q.off.get(), q.col.get(), q.val.get(),
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  BENCH_CUSPARSE(cusparseCreateDnMat(&q.X, P.nrows(), k, k, q.x.get(), CUDA_R_32F, CUSPARSE_ORDER_ROW));
  BENCH_CUSPARSE(cusparseCreateDnMat(&q.Y, P.ncols(), k, k, q.y.get(), CUDA_R_32F, CUSPARSE_ORDER_ROW));
  BENCH_CUSPARSE(cusparseCreate(&q.h));
  BENCH_CUSPARSE(cusparseSetStream(q.h, q.stream));
  std::size_t bytes = 0;
  BENCH_CUSPARSE(cusparseSDDMM_bufferSize(q.h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE,
                                          &Impl::alpha, q.X, q.Y, &Impl::beta, q.S, CUDA_R_32F,
                                          CUSPARSE_SDDMM_ALG_DEFAULT, &bytes));
  q.work = DeviceBuffer(bytes);
  BENCH_CUDA(cudaDeviceSynchronize());  // the uploads ran on the legacy stream
  BENCH_CUSPARSE(cusparseSDDMM_preprocess(q.h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE,
                                          &Impl::alpha, q.X, q.Y, &Impl::beta, q.S, CUDA_R_32F,
                                          CUSPARSE_SDDMM_ALG_DEFAULT, q.work.get()));
  BENCH_CUDA(cudaStreamSynchronize(q.stream));
}

CusparseSddmm::~CusparseSddmm() = default;

double CusparseSddmm::time(int runs) {
  return event_median_ms(p_->stream, runs, [&] { p_->call(); });
}

std::vector<float> CusparseSddmm::values() const {
  std::vector<float> v(static_cast<std::size_t>(p_->nnz));
  BENCH_CUDA(cudaStreamSynchronize(p_->stream));
  if (!v.empty()) BENCH_CUDA(cudaMemcpy(v.data(), p_->val.get(), v.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return v;
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
double event_median_ms(void*, int, const std::function<void()>&, const std::function<void()>&) {
  throw std::runtime_error("built without CUDA");
}
struct CusparseSpgemm::Impl {};
CusparseSpgemm::CusparseSpgemm(const SparseMatrix<float>&, const SparseMatrix<float>&, void*) {
  throw std::runtime_error("built without cuSPARSE");
}
CusparseSpgemm::~CusparseSpgemm() = default;
std::vector<std::string> CusparseSpgemm::algorithms() { return {}; }  // nothing to time without cuSPARSE
CusparseSpgemm::Timing CusparseSpgemm::time(const std::string&, int) {
  throw std::runtime_error("built without cuSPARSE");
}
const SparseMatrix<float>* CusparseSpgemm::result() const { return nullptr; }
struct CusparseSddmm::Impl {};
CusparseSddmm::CusparseSddmm(const SparseMatrix<float>&, const std::vector<float>&, const std::vector<float>&, Index,
                             void*) {
  throw std::runtime_error("built without cuSPARSE");
}
CusparseSddmm::~CusparseSddmm() = default;
double CusparseSddmm::time(int) { throw std::runtime_error("built without cuSPARSE"); }
std::vector<float> CusparseSddmm::values() const { return {}; }
}  // namespace geblas::bench

#endif
