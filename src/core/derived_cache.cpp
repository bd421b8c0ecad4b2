// The cached transpose and row statistics of a sparse matrix.
#include "core/derived_cache.hpp"

#include <cmath>
#include <vector>

#include "core/backend.hpp"
#include "geblas/detail/host_buffer.hpp"

namespace geblas::detail {

std::shared_ptr<const SparseStorage> cached_transpose(const SparseStorage& A) {
  return derived<SparseStorage>(A, "transpose", [&] {
    SparseStorage T;
    required(backend_for(A.device).transpose_sparse, "transpose", A.device)(T, A);
    return T;
  });
}

std::shared_ptr<const RowStats> cached_row_stats(const SparseStorage& A) {
  return derived<RowStats>(A, "row_stats", [&] {
    // Row offsets are small next to the entries, so reading them on the host is cheap
    // even for a matrix on the GPU, and it is done once per matrix.
    const std::vector<Index> ro = vector_from<Index>(A.row_offsets, static_cast<std::size_t>(A.nrows + 1));
    RowStats s;
    s.nrows = A.nrows;
    s.nvals = A.nvals;
    double sum_sq = 0;
    for (Index i = 0; i < A.nrows; ++i) {
      const Index len = ro[static_cast<std::size_t>(i + 1)] - ro[static_cast<std::size_t>(i)];
      s.max_row = std::max(s.max_row, len);
      s.empty_rows += len == 0;
      sum_sq += static_cast<double>(len) * static_cast<double>(len);
    }
    if (A.nrows > 0) {
      s.mean_row = static_cast<double>(A.nvals) / static_cast<double>(A.nrows);
      s.stddev_row = std::sqrt(std::max(0.0, sum_sq / static_cast<double>(A.nrows) - s.mean_row * s.mean_row));
    }
    return s;
  });
}

}  // namespace geblas::detail
