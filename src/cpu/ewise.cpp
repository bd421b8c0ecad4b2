// Element-wise add (union of patterns) and mult (intersection) on the host: sparse
// matrices by merging sorted rows (counted, then filled), dense matrices entry by
// entry, vectors as bitmaps.
#include <cstdint>

#include "cpu/csr_builder.hpp"
#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/vector_bitmap.hpp"

namespace geblas::detail::cpu {

void ewise_sparse(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, BinaryOpId op, EwiseKind kind) {
  const Index* ar = A.row_offsets.as<Index>();
  const ColIndex* ac = A.col_indices.as<ColIndex>();
  const Index* br = B.row_offsets.as<Index>();
  const ColIndex* bc = B.col_indices.as<ColIndex>();
  const bool is_add = kind == EwiseKind::add;
  visit_type(A.type, [&]<class V>() {
    const V* av = A.values.as<V>();
    const V* bv = B.values.as<V>();
    visit_binary_op<V>(op, [&]<class Op>() {
      // Walks the merge of row i; emit(j, value) for each output entry.
      auto merge = [&](Index i, auto&& emit) {
        Index p = ar[i], q = br[i];
        const Index pe = ar[i + 1], qe = br[i + 1];
        while (p < pe || q < qe) {
          const ColIndex ja = p < pe ? ac[p] : ColIndex(A.ncols);
          const ColIndex jb = q < qe ? bc[q] : ColIndex(A.ncols);
          if (ja == jb) {
            emit(ja, Op::apply(av[p], bv[q]));
            ++p;
            ++q;
          } else if (ja < jb) {
            if (is_add) emit(ja, av[p]);
            ++p;
          } else {
            if (is_add) emit(jb, bv[q]);
            ++q;
          }
        }
      };
      T = build_csr_rows<V>(
          A.nrows, A.ncols, A.type,
          [&](Index i) {
            Index c = 0;
            merge(i, [&](ColIndex, V) { ++c; });
            return c;
          },
          [&](Index i, ColIndex* cols, V* vals) {
            Index c = 0;
            merge(i, [&](ColIndex j, V x) {
              cols[c] = j;
              vals[c++] = x;
            });
          });
    });
  });
}

void ewise_dense(DenseStorage& T, const DenseStorage& A, const DenseStorage& B, BinaryOpId op) {
  visit_type(A.type, [&]<class V>() {
    const auto a = dense_view<V>(A);
    const auto b = dense_view<V>(B);
    const auto t = dense_view<V>(T);
    visit_binary_op<V>(op, [&]<class Op>() {
#pragma omp parallel for schedule(static) if (parallel_elements(T.nrows * T.ncols))
      for (Index i = 0; i < T.nrows; ++i)
        for (Index j = 0; j < T.ncols; ++j) t(i, j) = Op::apply(a(i, j), b(i, j));
    });
  });
}

void ewise_vector(VectorResult& t, const VectorStorage& u, const VectorStorage& v, BinaryOpId op, EwiseKind kind) {
  const Index n = u.size;
  const bool is_add = kind == EwiseKind::add;
  visit_type(u.type, [&]<class V>() {
    const BitmapRead<V> ub(u), vb(v);
    if (u.dense && v.dense) {
      t = VectorResult{make_dense_vector(n, u.type, Device::cpu()), RawBuffer{}};
    } else {
      t = make_bitmap_result(n, u.type);
    }
    V* tv = t.t.values.as<V>();
    std::uint8_t* tp = t.present.bytes() ? t.present.as<std::uint8_t>() : nullptr;
    visit_binary_op<V>(op, [&]<class Op>() {
#pragma omp parallel for schedule(static) if (parallel_elements(n))
      for (Index i = 0; i < n; ++i) {
        const bool in_u = ub.has(i), in_v = vb.has(i);
        bool out = true;
        if (in_u && in_v) tv[i] = Op::apply(ub.value(i), vb.value(i));
        else if (is_add && in_u) tv[i] = ub.value(i);
        else if (is_add && in_v) tv[i] = vb.value(i);
        else out = false;
        if (tp) tp[i] = out;
      }
    });
  });
}

}  // namespace geblas::detail::cpu
