// Element-wise operations on the GPU. Sparse matrices merge each row of A with the row
// of B (union for ewise_add, intersection for ewise_mult) in a count pass and a fill
// pass around a prefix sum; dense matrices and vectors are one pass over the entries
// (sparse vectors are scattered to dense value + presence arrays first). The operator is
// chosen at run time (runtime_ops.cuh).
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "cuda/ops/runtime_ops.cuh"

namespace geblas::detail::cuda::ops {
namespace {

// The rows of A op B (sparse_from_rows): row i of A merged with row i of B in column order.
template <class V>
struct EwiseRows {
  Index n;
  CsrView<V> a, b;
  BinaryOpId op;
  bool add;  // union (ewise_add); else intersection (ewise_mult)

  template <class Emit>
  __device__ void operator()(Index i, Emit&& emit) const {
    Index pa = a.row_offsets[i], pb = b.row_offsets[i];
    const Index ea = a.row_offsets[i + 1], eb = b.row_offsets[i + 1];
    while (pa < ea || pb < eb) {
      const Index ja = pa < ea ? a.col_indices[pa] : n;
      const Index jb = pb < eb ? b.col_indices[pb] : n;
      if (ja == jb) {
        emit(ja, binop_apply<V>(op, a.values[pa], b.values[pb]));
        ++pa;
        ++pb;
      } else if (ja < jb) {
        if (add) emit(ja, a.values[pa]);
        ++pa;
      } else {
        if (add) emit(jb, b.values[pb]);
        ++pb;
      }
    }
  }
};

template <class V>
void ewise_sparse_typed(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, BinaryOpId op, bool add,
                        const Ctx& c) {
  T = sparse_from_rows<V>(A.nrows, A.ncols, A.type, c, EwiseRows<V>{A.ncols, csr_view<V>(A), csr_view<V>(B), op, add});
}

template <class V>
void ewise_dense_typed(DenseStorage& T, const DenseStorage& A, const DenseStorage& B, BinaryOpId op, cudaStream_t s) {
  const DenseView<V> a = dense_view<V>(A), b = dense_view<V>(B), t = dense_view<V>(T);
  const Index n = T.ncols;
  for_each(T.nrows * n, s, [=] __device__(Index idx) {
    const Index i = idx / n, j = idx % n;
    t(i, j) = binop_apply<V>(op, a(i, j), b(i, j));
  });
}

template <class V>
void ewise_vector_typed(void* out, std::uint8_t* out_present, const DenseVec& u, const DenseVec& v, Index n,
                        BinaryOpId op, bool add, cudaStream_t s) {
  const V* uv = static_cast<const V*>(u.values);
  const V* vv = static_cast<const V*>(v.values);
  const std::uint8_t* up = u.present;
  const std::uint8_t* vp = v.present;
  V* o = static_cast<V*>(out);
  for_each(n, s, [=] __device__(Index i) {
    const bool in_u = !up || up[i], in_v = !vp || vp[i];
    bool present = false;
    if (in_u && in_v) { o[i] = binop_apply<V>(op, uv[i], vv[i]); present = true; }
    else if (add && in_u) { o[i] = uv[i]; present = true; }
    else if (add && in_v) { o[i] = vv[i]; present = true; }
    if (out_present) out_present[i] = present;
  });
}

}  // namespace

void ewise_sparse(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, BinaryOpId op, EwiseKind kind) {
  Ctx c(A.device);
  visit_type(A.type, [&]<class V>() { ewise_sparse_typed<V>(T, A, B, op, kind == EwiseKind::add, c); });
}

void ewise_dense(DenseStorage& T, const DenseStorage& A, const DenseStorage& B, BinaryOpId op) {
  Ctx c(A.device);
  visit_type(A.type, [&]<class V>() { ewise_dense_typed<V>(T, A, B, op, c.stream); });
}

void ewise_vector(VectorResult& t, const VectorStorage& u, const VectorStorage& v, BinaryOpId op, EwiseKind kind) {
  Ctx c(u.device);
  const Index n = u.size;
  DenseVec ud = densify(u, c), vd = densify(v, c);
  const bool all_present = u.dense && v.dense;
  VectorResult r = dense_result(n, u.type, !all_present, c);
  visit_type(u.type, [&]<class V>() {
    ewise_vector_typed<V>(r.t.values.data(), all_present ? nullptr : r.present.as<std::uint8_t>(), ud, vd, n, op,
                          kind == EwiseKind::add, c.stream);
  });
  t = std::move(r);
}

}  // namespace geblas::detail::cuda::ops
