// Sparse x dense product on the CPU, C = A (+).(x) B over any semiring: the row-parallel
// kernel behind the built-in semirings (instantiated in libgeblas.so) and behind user-
// defined ones (instantiated in the caller's code). B and C are row-major, so the inner
// loop runs over N contiguous entries of a row of B and of C and vectorises.
#pragma once

#include <algorithm>
#include <memory>

#include "geblas/detail/views.hpp"
#include "geblas/semiring.hpp"

namespace geblas::detail::cpu {

// C(i, :) = add_k mul(A(i, k), B(k, :)); a row of A with no entries gives identity.
// When `accumulate` is set, rows with entries are combined into C with S::add instead
// (C = C (+) T; rows without entries keep C), which fuses the common accum = add case.
template <class S, class T>
void spmm_rows(const CsrView<T>& A, const DenseView<T>& B, const DenseView<T>& C, bool accumulate) {
  const Index n = B.ncols;
  const Index m = A.nrows;
#pragma omp parallel
  {
    // A plain array rather than std::vector, which is a bitset for bool.
    std::unique_ptr<T[]> acc(new T[static_cast<std::size_t>(n)]);
#pragma omp for schedule(dynamic, 64)
    for (Index i = 0; i < m; ++i) {
      const Index begin = A.row_offsets[i], end = A.row_offsets[i + 1];
      T* c = C.data + i * C.ld;
      if (begin == end) {
        if (!accumulate) std::fill(c, c + n, S::identity());
        continue;
      }
      T* a = acc.get();
      std::fill(a, a + n, S::identity());
      for (Index k = begin; k < end; ++k) {
        const T av = semiring_reads_a<S>() ? A.values[k] : T(1);
        const T* b = B.data + static_cast<Index>(A.col_indices[k]) * B.ld;
        for (Index j = 0; j < n; ++j) a[j] = S::add(a[j], S::mul(av, b[j]));
      }
      if (accumulate) {
        for (Index j = 0; j < n; ++j) c[j] = S::add(c[j], a[j]);
      } else {
        std::copy(a, a + n, c);
      }
    }
  }
}

}  // namespace geblas::detail::cpu
