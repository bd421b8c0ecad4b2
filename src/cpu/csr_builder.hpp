// Building a CSR result on the host in two parallel passes: count each row's length,
// prefix-sum into row offsets, then fill each row in place. Kernels whose output
// pattern is a per-row function of their inputs (ewise, select, extract, assign) share
// it, so that no kernel keeps a vector per row.
#pragma once

#include "core/backend.hpp"
#include "cpu/parallel.hpp"

namespace geblas::detail::cpu {

// count(i) -> Index: the length of row i. fill(i, cols, vals): writes row i's sorted
// columns and values (exactly count(i) of them) at the given pointers.
template <class V, class Count, class Fill>
SparseStorage build_csr_rows(Index nrows, Index ncols, TypeId type, Count&& count, Fill&& fill) {
  SparseStorage out = make_sparse(nrows, ncols, type, Device::cpu());
  Index* ro = out.row_offsets.as<Index>();
#pragma omp parallel for schedule(dynamic, 256) if (parallel_rows(nrows))
  for (Index i = 0; i < nrows; ++i) ro[i + 1] = count(i);
  ro[0] = 0;
  for (Index i = 0; i < nrows; ++i) ro[i + 1] += ro[i];
  out.nvals = ro[nrows];
  out.col_indices = RawBuffer(static_cast<std::size_t>(out.nvals) * sizeof(ColIndex), Device::cpu());
  out.values = RawBuffer(static_cast<std::size_t>(out.nvals) * sizeof(V), Device::cpu());
  ColIndex* ci = out.col_indices.as<ColIndex>();
  V* vals = out.values.as<V>();
#pragma omp parallel for schedule(dynamic, 256) if (parallel_rows(nrows))
  for (Index i = 0; i < nrows; ++i) fill(i, ci + ro[i], vals + ro[i]);
  return out;
}

}  // namespace geblas::detail::cpu
