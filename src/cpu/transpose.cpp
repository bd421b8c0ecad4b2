// Transposes and layout changes on the host.
#include <algorithm>
#include <numeric>
#include <vector>

#include <omp.h>

#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"
#include "geblas/detail/views.hpp"

namespace geblas::detail::cpu {

// Counting sort of the entries by column: stable, so each row of the transpose comes
// out with sorted columns without a further sort. With several threads, each takes a
// block of rows holding an equal share of the entries and counts its columns on its own;
// entry (i, j) of block t then goes after column j's entries of blocks 0..t-1, which keeps
// the sort stable. A thread's counts cost ncols offsets, so a matrix gets no more threads
// than it has entries per column (the extra memory stays below nvals offsets).
void transpose_sparse(SparseStorage& T, const SparseStorage& A) {
  T = make_sparse(A.ncols, A.nrows, A.type, Device::cpu());
  T.nvals = A.nvals;
  T.col_indices = RawBuffer(static_cast<std::size_t>(A.nvals) * sizeof(ColIndex), Device::cpu());
  T.values = RawBuffer(static_cast<std::size_t>(A.nvals) * size_of(A.type), Device::cpu());
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  Index* to = T.row_offsets.as<Index>();
  ColIndex* tc = T.col_indices.as<ColIndex>();
  const Index ncols = A.ncols;
  const int threads =
      parallel_elements(A.nvals)
          ? static_cast<int>(std::min<Index>(omp_get_max_threads(), std::max<Index>(1, A.nvals / std::max<Index>(ncols, 1))))
          : 1;
  // next[t * ncols + j]: where block t's next entry of column j goes.
  std::vector<Index> next, first_row, range_sum;
  visit_type(A.type, [&]<class V>() {
    const V* av = A.values.as<V>();
    V* tv = T.values.as<V>();
#pragma omp parallel num_threads(threads)
    {
      // The team may be smaller than asked (inside another parallel region).
      const int team = omp_get_num_threads(), t = omp_get_thread_num();
#pragma omp single
      {
        next.assign(static_cast<std::size_t>(team) * static_cast<std::size_t>(ncols), 0);
        range_sum.assign(static_cast<std::size_t>(team) + 1, 0);
        first_row.assign(static_cast<std::size_t>(team) + 1, A.nrows);
        first_row[0] = 0;
        for (int b = 1; b < team; ++b)  // the first row starting at or after b/team of the entries
          first_row[static_cast<std::size_t>(b)] =
              std::lower_bound(ro, ro + A.nrows, A.nvals / team * b + std::min<Index>(b, A.nvals % team)) - ro;
      }
      Index* mine = next.data() + static_cast<std::size_t>(t) * static_cast<std::size_t>(ncols);
      const Index r0 = first_row[static_cast<std::size_t>(t)], r1 = first_row[static_cast<std::size_t>(t) + 1];
      for (Index k = ro[r0]; k < ro[r1]; ++k) ++mine[ci[k]];
#pragma omp barrier
      // Columns [c0, c1) are this thread's in the scan: their totals, then (after every
      // range's sum is known) their offsets and each block's start in them.
      const Index c0 = ncols / team * t + std::min<Index>(t, ncols % team);
      const Index c1 = c0 + ncols / team + (t < ncols % team ? 1 : 0);
      Index sum = 0;
      for (Index c = c0; c < c1; ++c)
        for (int b = 0; b < team; ++b) sum += next[static_cast<std::size_t>(b) * static_cast<std::size_t>(ncols) + c];
      range_sum[static_cast<std::size_t>(t) + 1] = sum;
#pragma omp barrier
#pragma omp single
      std::partial_sum(range_sum.begin(), range_sum.end(), range_sum.begin());
      Index at = range_sum[static_cast<std::size_t>(t)];
      for (Index c = c0; c < c1; ++c) {
        to[c] = at;
        for (int b = 0; b < team; ++b) {
          Index& slot = next[static_cast<std::size_t>(b) * static_cast<std::size_t>(ncols) + c];
          const Index count = slot;
          slot = at;
          at += count;
        }
      }
      if (t == team - 1) to[ncols] = at;
#pragma omp barrier
      for (Index i = r0; i < r1; ++i)
        for (Index k = ro[i]; k < ro[i + 1]; ++k) {
          const Index p = mine[ci[k]]++;
          tc[p] = static_cast<ColIndex>(i);
          tv[p] = av[k];
        }
    }
  });
}

void transpose_dense(DenseStorage& T, const DenseStorage& A) {
  T = make_dense(A.ncols, A.nrows, Layout::row_major, A.type, Device::cpu());
  visit_type(A.type, [&]<class V>() {
    const auto a = dense_view<V>(A);
    const auto t = dense_view<V>(T);
#pragma omp parallel for schedule(static)
    for (Index i = 0; i < T.nrows; ++i)
      for (Index j = 0; j < T.ncols; ++j) t(i, j) = a(j, i);
  });
}

void relayout_dense(DenseStorage& T, const DenseStorage& A, Layout layout) {
  if (&T == &A) throw InvalidValue("relayout_dense: output aliases input");
  DenseStorage out = make_dense(A.nrows, A.ncols, layout, A.type, Device::cpu());
  visit_type(A.type, [&]<class V>() {
    const auto a = dense_view<V>(A);
    const auto t = dense_view<V>(out);
#pragma omp parallel for schedule(static)
    for (Index i = 0; i < A.nrows; ++i)
      for (Index j = 0; j < A.ncols; ++j) t(i, j) = a(i, j);
  });
  // When T is the caller's C (same shape), keep its buffer identity irrelevant: replace.
  T = std::move(out);
}

}  // namespace geblas::detail::cpu
