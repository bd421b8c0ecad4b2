// cuSPARSE baselines the benches compare with, behind a header without CUDA includes so
// that the benches compile with or without the CUDA backend: one CSR matrix uploaded
// once (32-bit offsets and columns, cuSPARSE's generic API wanting one index type), and
// the median time (CUDA events, after a warm-up) of SpMV, SpMM at width N (best of the
// CSR algorithms, ALG3's preprocessing outside the timing) and csr2csc (the transpose a
// pull-style algorithm has to build). Also the device's copy bandwidth, the memory floor
// of bench_spmm. Every CUDA / cuSPARSE call is checked (std::runtime_error).
#pragma once

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

}  // namespace geblas::bench
