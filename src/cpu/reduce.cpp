// Reductions over a monoid on the host: each row of a sparse or dense matrix to a
// vector entry, and a flat array to one scalar. The scalar reduction splits the array
// into one contiguous chunk per thread and combines the partial results in chunk order,
// so a given thread count always gives the same floating-point result.
#include <cstdint>
#include <memory>

#include <omp.h>

#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/vector_bitmap.hpp"
#include "geblas/detail/nan_rule.hpp"

namespace geblas::detail::cpu {

void reduce_rows_sparse(VectorResult& t, const SparseStorage& A, MonoidId m) {
  const Index* ro = A.row_offsets.as<Index>();
  t = make_bitmap_result(A.nrows, A.type);
  visit_type(A.type, [&]<class V>() {
    const V* av = A.values.as<V>();
    V* tv = t.t.values.as<V>();
    std::uint8_t* tp = t.present.as<std::uint8_t>();
    visit_monoid<V>(m, [&]<class M>() {
#pragma omp parallel for schedule(dynamic, 512) if (parallel_rows(A.nrows))
      for (Index i = 0; i < A.nrows; ++i) {
        if (ro[i] == ro[i + 1]) continue;
        V acc = first_term(m, av[ro[i]]);
        for (Index k = ro[i] + 1; k < ro[i + 1]; ++k) acc = M::apply(acc, av[k]);
        tv[i] = acc;
        tp[i] = 1;
      }
    });
  });
}

void reduce_rows_dense(VectorStorage& t, const DenseStorage& A, MonoidId m) {
  t = make_dense_vector(A.nrows, A.type, Device::cpu());
  visit_type(A.type, [&]<class V>() {
    const auto a = dense_view<V>(A);
    V* tv = t.values.as<V>();
    visit_monoid<V>(m, [&]<class M>() {
#pragma omp parallel for schedule(static) if (parallel_elements(A.nrows * A.ncols))
      for (Index i = 0; i < A.nrows; ++i) {
        // Start from the first entry, not the identity: `any` keeps what it meets first.
        V acc = A.ncols ? first_term(m, a(i, 0)) : M::identity();
        for (Index j = 1; j < A.ncols; ++j) acc = M::apply(acc, a(i, j));
        tv[i] = acc;
      }
    });
  });
}

void reduce_values(ScalarBytes& result, const void* values, Index count, TypeId type, MonoidId m, int) {
  visit_type(type, [&]<class V>() {
    const V* x = static_cast<const V*>(values);
    visit_monoid<V>(m, [&]<class M>() {
      const int chunks = parallel_elements(count) ? omp_get_max_threads() : 1;
      // Not std::vector: vector<bool> packs bits, which threads cannot write apart.
      std::unique_ptr<V[]> partial(new V[static_cast<std::size_t>(chunks)]);
      // Each chunk starts from its first value, not the identity, so that `any` keeps
      // a value it met; chunks are non-empty whenever count >= chunks.
#pragma omp parallel for schedule(static, 1) num_threads(chunks) if (chunks > 1)
      for (int c = 0; c < chunks; ++c) {
        const Index lo = count * c / chunks, hi = count * (c + 1) / chunks;
        V acc = lo < hi ? first_term(m, x[lo]) : M::identity();
        for (Index k = lo + 1; k < hi; ++k) acc = M::apply(acc, x[k]);
        partial[static_cast<std::size_t>(c)] = acc;
      }
      V acc = count ? partial[0] : M::identity();
      for (int c = 1; c < chunks; ++c) acc = M::apply(acc, partial[static_cast<std::size_t>(c)]);
      *static_cast<V*>(result.data()) = acc;
    });
  });
}

}  // namespace geblas::detail::cpu
