// Row-length statistics of a CSR matrix on the host (the SpMM dispatchers' inputs).
#include <algorithm>
#include <cmath>

#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"

namespace geblas::detail::cpu {

void row_stats(RowStats& s, const SparseStorage& A) {
  const Index* ro = A.row_offsets.as<Index>();
  const Index m = A.nrows;
  Index max_row = 0, empty = 0;
  double sum_sq = 0;
#pragma omp parallel for reduction(max : max_row) reduction(+ : empty, sum_sq) if (parallel_elements(m))
  for (Index i = 0; i < m; ++i) {
    const Index len = ro[i + 1] - ro[i];
    max_row = std::max(max_row, len);
    empty += len == 0;
    sum_sq += static_cast<double>(len) * static_cast<double>(len);
  }
  s = RowStats{};
  s.nrows = m;
  s.nvals = A.nvals;
  s.max_row = max_row;
  s.empty_rows = empty;
  if (m > 0) {
    s.mean_row = static_cast<double>(A.nvals) / static_cast<double>(m);
    s.stddev_row = std::sqrt(std::max(0.0, sum_sq / static_cast<double>(m) - s.mean_row * s.mean_row));
  }
}

}  // namespace geblas::detail::cpu
