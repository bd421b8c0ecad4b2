// Sparse x sparse product on the CPU by Gustavson's method: each row of C is gathered
// in a dense accumulator of ncols entries (one per thread) and compacted in column
// order. Rows are independent, so the outer loop is parallel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "geblas/detail/nan_rule.hpp"
#include "geblas/detail/storage.hpp"
#include "geblas/detail/views.hpp"
#include "geblas/semiring.hpp"

namespace geblas::detail::cpu {

// T = A (+).(x) B with only the entries that have at least one term. If `allow` is
// given, row i's entries are computed only where allow(i) marks them (a mask applied
// during the product): allow(i, flags) fills ncols flags for row i.
template <class S, class T, class RowFilter>
SparseStorage spgemm(const CsrView<T>& A, const CsrView<T>& B, RowFilter&& allow) {
  const Index m = A.nrows, n = B.ncols;
  std::vector<std::vector<ColIndex>> row_cols(static_cast<std::size_t>(m));
  std::vector<std::vector<T>> row_vals(static_cast<std::size_t>(m));
#pragma omp parallel
  {
    std::unique_ptr<T[]> acc(new T[static_cast<std::size_t>(n)]);  // not vector<T>: a bitset for bool
    std::vector<std::uint8_t> seen(static_cast<std::size_t>(n), 0);
    std::vector<std::uint8_t> permitted(static_cast<std::size_t>(n), 1);
    std::vector<ColIndex> touched;
#pragma omp for schedule(dynamic, 64)
    for (Index i = 0; i < m; ++i) {
      const bool filtered = allow(i, permitted);
      touched.clear();
      for (Index ka = A.row_offsets[i]; ka < A.row_offsets[i + 1]; ++ka) {
        const Index k = A.col_indices[ka];
        const T av = semiring_reads_a<S>() ? A.values[ka] : T(1);
        for (Index kb = B.row_offsets[k]; kb < B.row_offsets[k + 1]; ++kb) {
          const ColIndex j = B.col_indices[kb];
          if (filtered && !permitted[static_cast<std::size_t>(j)]) continue;
          const T prod = S::mul(av, semiring_reads_b<S>() ? B.values[kb] : T(1));
          if (!seen[static_cast<std::size_t>(j)]) {
            seen[static_cast<std::size_t>(j)] = 1;
            acc[static_cast<std::size_t>(j)] = first_term_for<S>(prod);
            touched.push_back(j);
          } else {
            acc[static_cast<std::size_t>(j)] = S::add(acc[static_cast<std::size_t>(j)], prod);
          }
        }
      }
      std::sort(touched.begin(), touched.end());
      auto& cols = row_cols[static_cast<std::size_t>(i)];
      auto& vals = row_vals[static_cast<std::size_t>(i)];
      cols.assign(touched.begin(), touched.end());
      vals.resize(touched.size());
      for (std::size_t t = 0; t < touched.size(); ++t) {
        vals[t] = acc[static_cast<std::size_t>(touched[t])];
        seen[static_cast<std::size_t>(touched[t])] = 0;
      }
    }
  }
  SparseStorage out = make_sparse(m, n, type_id<T>, Device::cpu());
  Index* offsets = out.row_offsets.as<Index>();
  offsets[0] = 0;
  for (Index i = 0; i < m; ++i) offsets[i + 1] = offsets[i] + static_cast<Index>(row_cols[static_cast<std::size_t>(i)].size());
  out.nvals = offsets[m];
  out.col_indices = RawBuffer(static_cast<std::size_t>(out.nvals) * sizeof(ColIndex), Device::cpu());
  out.values = RawBuffer(static_cast<std::size_t>(out.nvals) * sizeof(T), Device::cpu());
#pragma omp parallel for schedule(static)
  for (Index i = 0; i < m; ++i) {
    const auto& cols = row_cols[static_cast<std::size_t>(i)];
    const auto& vals = row_vals[static_cast<std::size_t>(i)];
    std::copy(cols.begin(), cols.end(), out.col_indices.as<ColIndex>() + offsets[i]);
    std::copy(vals.begin(), vals.end(), out.values.as<T>() + offsets[i]);
  }
  return out;
}

}  // namespace geblas::detail::cpu
