// Transposes and layout changes on the host.
#include <algorithm>
#include <numeric>
#include <vector>

#include "cpu/kernels.hpp"
#include "geblas/detail/views.hpp"

namespace geblas::detail::cpu {

// Counting sort of the entries by column: stable, so each row of the transpose comes
// out with sorted columns without a further sort.
void transpose_sparse(SparseStorage& T, const SparseStorage& A) {
  T = make_sparse(A.ncols, A.nrows, A.type, Device::cpu());
  T.nvals = A.nvals;
  T.col_indices = RawBuffer(static_cast<std::size_t>(A.nvals) * sizeof(ColIndex), Device::cpu());
  T.values = RawBuffer(static_cast<std::size_t>(A.nvals) * size_of(A.type), Device::cpu());
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  Index* to = T.row_offsets.as<Index>();
  std::fill(to, to + A.ncols + 1, Index{0});
  for (Index k = 0; k < A.nvals; ++k) ++to[ci[k] + 1];
  std::partial_sum(to, to + A.ncols + 1, to);
  std::vector<Index> next(to, to + A.ncols);
  ColIndex* tc = T.col_indices.as<ColIndex>();
  visit_type(A.type, [&]<class V>() {
    const V* av = A.values.as<V>();
    V* tv = T.values.as<V>();
    for (Index i = 0; i < A.nrows; ++i)
      for (Index k = ro[i]; k < ro[i + 1]; ++k) {
        const Index p = next[static_cast<std::size_t>(ci[k])]++;
        tc[p] = static_cast<ColIndex>(i);
        tv[p] = av[k];
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
