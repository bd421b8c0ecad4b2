// Dense x sparse and dense x dense products on the CPU over any semiring. Both write
// every entry of a row-major T; an entry with no term holds the identity. Each entry
// starts and folds its terms as Fold<S> says: from the identity for max and min (the NaN
// rule of binary_op.hpp), from its first term otherwise, so that a monoid whose identity
// is not a neutral value in practice (any) still gives one of the terms.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include "geblas/detail/cpu/fold.hpp"
#include "geblas/detail/views.hpp"
#include "geblas/semiring.hpp"

namespace geblas::detail::cpu {

// T(i, :) = add_k mul(A(i, k), B(k, :)) with B in CSR: row i of A scatters through the
// rows of B into a row of T; `seen` marks the columns that already hold a term.
template <class S, class T>
void dense_sparse(const DenseView<T>& A, const CsrView<T>& B, const DenseView<T>& C) {
  const Index m = A.nrows, kdim = A.ncols, n = B.ncols;
#pragma omp parallel
  {
    std::unique_ptr<std::uint8_t[]> seen(new std::uint8_t[static_cast<std::size_t>(std::max<Index>(n, 1))]);
#pragma omp for schedule(dynamic, 16)
    for (Index i = 0; i < m; ++i) {
      T* c = C.data + i * C.ld;
      std::fill(c, c + n, S::identity());
      std::fill(seen.get(), seen.get() + n, std::uint8_t{0});
      for (Index k = 0; k < kdim; ++k) {
        const T av = semiring_reads_a<S>() ? A(i, k) : T(1);
        for (Index kb = B.row_offsets[k]; kb < B.row_offsets[k + 1]; ++kb) {
          const Index j = B.col_indices[kb];
          const T term = S::mul(av, semiring_reads_b<S>() ? B.values[kb] : T(1));
          if constexpr (Fold<S>::from_identity) {
            c[j] = Fold<S>::step(c[j], term);
          } else {
            c[j] = seen[j] ? S::add(c[j], term) : term;
            seen[j] = 1;
          }
        }
      }
    }
  }
}

// op(X) of a dense view in place: the transpose reads the same data in the other layout.
template <class T>
DenseView<T> view_of(const DenseView<T>& X, bool transposed) {
  if (!transposed) return X;
  return {X.ncols, X.nrows, X.ld, X.layout == Layout::row_major ? Layout::col_major : Layout::row_major, X.data};
}

// One entry of the sampled product: add_k mul(A(i, k), B(k, j)) over k = 0 .. A.ncols - 1
// (at least one), its terms folded in k order as Fold<S> says. Both operands are read
// with strides: contiguous when A is row-major and B column-major (B' of a row-major B,
// the attention-score case).
template <class S, class T>
T sampled_entry(const DenseView<T>& A, const DenseView<T>& B, Index i, Index j) {
  const Index kdim = A.ncols;
  const T* a = A.layout == Layout::row_major ? A.data + i * A.ld : A.data + i;
  const Index sa = A.layout == Layout::row_major ? 1 : A.ld;
  const T* b = B.layout == Layout::col_major ? B.data + j * B.ld : B.data + j;
  const Index sb = B.layout == Layout::col_major ? 1 : B.ld;
  const auto term = [&](Index k) {
    return S::mul(semiring_reads_a<S>() ? a[k * sa] : T(1), semiring_reads_b<S>() ? b[k * sb] : T(1));
  };
  T acc = Fold<S>::from_identity ? S::identity() : term(0);
  for (Index k = Fold<S>::from_identity ? 0 : 1; k < kdim; ++k) acc = Fold<S>::step(acc, term(k));
  return acc;
}

template <class S, class T>
void dense_dense(const DenseView<T>& A, const DenseView<T>& B, const DenseView<T>& C) {
  const Index m = A.nrows, kdim = A.ncols, n = B.ncols;
  // A row-major copy of B when it is column-major, so the inner loop is contiguous.
  std::unique_ptr<T[]> b_holder;
  const T* b = B.data;
  Index ldb = B.ld;
  if (B.layout == Layout::col_major) {
    b_holder.reset(new T[static_cast<std::size_t>(std::max<Index>(kdim * n, 1))]);
    for (Index k = 0; k < kdim; ++k)
      for (Index j = 0; j < n; ++j) b_holder[static_cast<std::size_t>(k * n + j)] = B(k, j);
    b = b_holder.get();
    ldb = n;
  }
#pragma omp parallel for schedule(static)
  for (Index i = 0; i < m; ++i) {
    T* c = C.data + i * C.ld;
    if (kdim == 0 || Fold<S>::from_identity) std::fill(c, c + n, S::identity());
    if (kdim == 0) continue;
    if constexpr (!Fold<S>::from_identity) {
      const T av = semiring_reads_a<S>() ? A(i, 0) : T(1);
      for (Index j = 0; j < n; ++j) c[j] = S::mul(av, semiring_reads_b<S>() ? b[j] : T(1));
    }
    for (Index k = Fold<S>::from_identity ? 0 : 1; k < kdim; ++k) {
      const T av = semiring_reads_a<S>() ? A(i, k) : T(1);
      const T* bk = b + k * ldb;
      for (Index j = 0; j < n; ++j) c[j] = Fold<S>::step(c[j], S::mul(av, semiring_reads_b<S>() ? bk[j] : T(1)));
    }
  }
}

}  // namespace geblas::detail::cpu
