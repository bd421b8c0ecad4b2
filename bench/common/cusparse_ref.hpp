// cuSPARSE baselines the benches compare with, behind a header without CUDA includes so
// that the benches compile with or without the CUDA backend: one CSR matrix uploaded
// once (32-bit offsets and columns, cuSPARSE's generic API wanting one index type), and
// the median time (CUDA events, after a warm-up) of SpMV, SpMM at width N (best of the
// CSR algorithms, ALG3's preprocessing outside the timing) and csr2csc (the transpose a
// pull-style algorithm has to build). Also the device's copy bandwidth, the memory floor
// of bench_spmm, and cusparseSpGEMM (CusparseSpgemm: sparse x sparse, the baseline of
// bench_spgemm --device cuda), and cusparseSDDMM (CusparseSddmm: the sampled product,
// the baseline of bench_sddmm). Every CUDA / cuSPARSE call is checked (std::runtime_error).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "geblas/sparse_matrix.hpp"

namespace geblas::bench {

// True when the benches were built with cuSPARSE and a CUDA device is present.
bool cusparse_available();

struct Timed {
  double ms = -1;   // median of the timed calls
  std::string alg;  // the cuSPARSE algorithm that gave it (best of those tried)
};

class CusparseCsr {
 public:
  explicit CusparseCsr(const SparseMatrix<float>& host_csr);  // host CSR; values as given
  ~CusparseCsr();
  CusparseCsr(const CusparseCsr&) = delete;
  CusparseCsr& operator=(const CusparseCsr&) = delete;

  // y = A x (or A' x: the CSR built by csr2csc). `y`, when given, receives the product.
  Timed spmv(const std::vector<float>& x, int reps, bool transposed = false, std::vector<float>* y = nullptr);
  // C = A B with B random n x N row-major; the best of ALG_DEFAULT, CSR_ALG2, CSR_ALG3.
  Timed spmm(Index N, int reps);
  // cusparseCsr2cscEx2 of A with values (buffer allocated outside the timing).
  Timed csr2csc(int reps);

 private:
  struct Impl;
  std::unique_ptr<Impl> p_;
};

// Device-to-device cudaMemcpy of `bytes`, counted as read + write: 2 * bytes / median
// time, in GB/s (1e9 bytes). The "memory floor" denominators of bench_spmm.
double device_copy_bandwidth_gbs(std::size_t bytes = std::size_t{1} << 30, int reps = 10);

// Median milliseconds of `call` between two CUDA events recorded on `stream` (a
// cudaStream_t as void*), one call per sample, after one warm-up call; `setup`, when
// given, runs before each call outside the timing (e.g. a fresh output). The same clock
// for geblas and for cuSPARSE, so that their ratio compares like with like.
double event_median_ms(void* stream, int runs, const std::function<void()>& call,
                       const std::function<void()>& setup = {});

// C = A * B by cusparseSpGEMM (CSR, 32-bit indices, float, plus_times: alpha 1, beta 0),
// A and B uploaded once from host CSR. Each algorithm is timed two ways:
//   in_call_ms: the whole sequence a user pays for one product: the SpGEMM descriptor
//     and C's descriptor, workEstimation (size query, cudaMalloc of buffer 1, the work),
//     for ALG2 / ALG3 estimateMemory (buffer 3, malloc'd and freed), compute (buffer 2:
//     queried for DEFAULT, from estimateMemory for ALG2 / ALG3), cudaMalloc of C's three
//     arrays, copy, and the frees of the buffers and descriptors (C itself is kept, as a
//     user keeps it; it is freed before the next sample, outside the timing);
//   preallocated_ms: the same calls with every buffer and C's arrays allocated once
//     beforehand (the sizes of the warm-up call): workEstimation, estimateMemory,
//     compute and copy only.
// An algorithm cuSPARSE or CUDA refuses (CUSPARSE_STATUS_INSUFFICIENT_RESOURCES on large
// outputs, out of memory) is not an exception: its status says what failed.
class CusparseSpgemm {
 public:
  struct Timing {
    std::string alg;                               // "DEFAULT", "ALG2", "ALG3"
    std::string status = "ok";                     // else the failing call's status, e.g. INSUFFICIENT_RESOURCES
    std::string error;                             // the failing call and its message ("" when ok)
    double in_call_ms = -1, preallocated_ms = -1;  // < 0: not measured
  };

  // `stream`: a cudaStream_t as void* (0: the legacy default stream); cuSPARSE runs on it.
  CusparseSpgemm(const SparseMatrix<float>& A, const SparseMatrix<float>& B, void* stream);
  ~CusparseSpgemm();
  CusparseSpgemm(const CusparseSpgemm&) = delete;
  CusparseSpgemm& operator=(const CusparseSpgemm&) = delete;

  // The algorithms time() takes, in the order the bench prints them.
  static std::vector<std::string> algorithms();
  // Median of `runs` one-call samples each way, after one warm-up call each way.
  Timing time(const std::string& alg, int runs);
  // The product of the last time() (its warm-up call), copied to the host, each row
  // sorted by column (the check compares entry by entry); nullptr when that call failed
  // before it had one.
  const SparseMatrix<float>* result() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> p_;
};

// S<P> = X * Y' by cusparseSDDMM (CSR with P's pattern, 32-bit indices, float,
// CUSPARSE_SDDMM_ALG_DEFAULT, alpha 1, beta 0): X (m x k) and Y (n x k) row-major, read as
// op(B) = Y' (CUSPARSE_OPERATION_TRANSPOSE). Everything is uploaded and described once,
// the work buffer (cusparseSDDMM_bufferSize) allocated once and cusparseSDDMM_preprocess
// run once in the constructor; time() is the median of cusparseSDDMM calls alone, into
// that buffer, on `stream` (a cudaStream_t as void*).
class CusparseSddmm {
 public:
  CusparseSddmm(const SparseMatrix<float>& pattern, const std::vector<float>& X, const std::vector<float>& Y, Index k,
                void* stream);
  ~CusparseSddmm();
  CusparseSddmm(const CusparseSddmm&) = delete;
  CusparseSddmm& operator=(const CusparseSddmm&) = delete;

  // Median milliseconds of `runs` calls (CUDA events), after one warm-up call.
  double time(int runs);
  // The values of the last call, in P's CSR order.
  std::vector<float> values() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> p_;
};

}  // namespace geblas::bench
