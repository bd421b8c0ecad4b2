// Dense x sparse and dense x dense products on the CPU over any semiring. Both write
// every entry of a row-major T; an entry with no term holds the identity.
#pragma once

#include <algorithm>

#include "geblas/detail/views.hpp"
#include "geblas/semiring.hpp"

namespace geblas::detail::cpu {

// T(i, :) = add_k mul(A(i, k), B(k, :)) with B in CSR: row i of A scatters through the
// rows of B into a row of T.
template <class S, class T>
void dense_sparse(const DenseView<T>& A, const CsrView<T>& B, const DenseView<T>& C) {
  const Index m = A.nrows, kdim = A.ncols, n = B.ncols;
#pragma omp parallel for schedule(dynamic, 16)
  for (Index i = 0; i < m; ++i) {
    T* c = C.data + i * C.ld;
    std::fill(c, c + n, S::identity());
    for (Index k = 0; k < kdim; ++k) {
      const T av = semiring_reads_a<S>() ? A(i, k) : T(1);
      for (Index kb = B.row_offsets[k]; kb < B.row_offsets[k + 1]; ++kb) {
        const Index j = B.col_indices[kb];
        c[j] = S::add(c[j], S::mul(av, semiring_reads_b<S>() ? B.values[kb] : T(1)));
      }
    }
  }
}

template <class S, class T>
void dense_dense(const DenseView<T>& A, const DenseView<T>& B, const DenseView<T>& C) {
  const Index m = A.nrows, kdim = A.ncols, n = B.ncols;
#pragma omp parallel for schedule(static)
  for (Index i = 0; i < m; ++i) {
    T* c = C.data + i * C.ld;
    std::fill(c, c + n, S::identity());
    for (Index k = 0; k < kdim; ++k) {
      const T av = semiring_reads_a<S>() ? A(i, k) : T(1);
      for (Index j = 0; j < n; ++j) c[j] = S::add(c[j], S::mul(av, semiring_reads_b<S>() ? B(k, j) : T(1)));
    }
  }
}

}  // namespace geblas::detail::cpu
