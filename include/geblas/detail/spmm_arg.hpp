// The max / min SpMM that also records its argument, for the backward pass of max / min
// aggregation (geblas.torch.spmm reduce="max" / "min"): the gradient of Y(i, f) goes to
// the X(k, f) that won. Not part of the stable API.
#pragma once

#include "geblas/config.hpp"
#include "geblas/detail/storage.hpp"

namespace geblas::detail {

// Y(i, f) = max (or min, with max = false) over the stored A(i, k) of A(i, k) * X(k, f),
// and arg(i, f) = the column k that gave it. Ties go to the smallest k (the first in the
// row), with IEEE comparisons: -0 and +0 tie, a NaN term never replaces an earlier term and
// is replaced by no later one when it comes first. A row without entries gives Y = 0 and
// arg = -1 (torch_scatter's convention). A: float32 CSR on a CUDA device; X (A.ncols x F),
// Y (A.nrows x F, float32) and arg (A.nrows x F, int32) row-major on A's device. Queued on
// this thread's current stream (geblas::cuda::StreamGuard). InvalidValue / DomainMismatch /
// DimensionMismatch / DeviceMismatch name the operand at fault; NotImplemented without CUDA.
GEBLAS_API void cuda_spmm_arg_extreme(const SparseStorage& A, const DenseStorage& X, DenseStorage& Y, DenseStorage& arg,
                                      bool max);

// The backward of the above: dX = 0, then dX(arg(i, f), f) += grad(i, f) x A(i, arg(i, f))
// for every arg(i, f) in [0, dX.nrows); -1 (an empty row's) gives nothing, as does a
// column that is not an entry of row i (cuda_spmm_arg_extreme over this A gives neither).
// A null A means every value 1 (no look-up). The adds are atomic, so a float sum's
// rounding may vary between runs, as torch's scatter_add. arg (m x F, int32), grad
// (m x F) and dX (K x F, float32) row-major, and A (m x K, float32) on one CUDA device;
// on this thread's current stream. The errors are those of cuda_spmm_arg_extreme.
GEBLAS_API void cuda_spmm_arg_scatter(const DenseStorage& arg, const DenseStorage& grad, DenseStorage& dX,
                                      const SparseStorage* A = nullptr);

}  // namespace geblas::detail
