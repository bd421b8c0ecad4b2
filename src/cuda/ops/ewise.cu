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

// Row i of A op B in column order, as emit(j, value).
template <class V, class Emit>
__device__ void ewise_row(Index i, Index n, const Index* aro, const ColIndex* aci, const V* av, const Index* bro,
                          const ColIndex* bci, const V* bv, BinaryOpId op, bool add, Emit&& emit) {
  Index pa = aro[i], pb = bro[i];
  const Index ea = aro[i + 1], eb = bro[i + 1];
  while (pa < ea || pb < eb) {
    const Index ja = pa < ea ? aci[pa] : n;
    const Index jb = pb < eb ? bci[pb] : n;
    if (ja == jb) {
      emit(ja, binop_apply<V>(op, av[pa], bv[pb]));
      ++pa;
      ++pb;
    } else if (ja < jb) {
      if (add) emit(ja, av[pa]);
      ++pa;
    } else {
      if (add) emit(jb, bv[pb]);
      ++pb;
    }
  }
}

template <class V>
void ewise_sparse_typed(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, BinaryOpId op, bool add,
                        const Ctx& c) {
  const Index m = A.nrows, n = A.ncols;
  const Index* aro = A.row_offsets.as<Index>();
  const ColIndex* aci = A.col_indices.as<ColIndex>();
  const V* av = A.values.as<V>();
  const Index* bro = B.row_offsets.as<Index>();
  const ColIndex* bci = B.col_indices.as<ColIndex>();
  const V* bv = B.values.as<V>();
  RawBuffer counts_buf = temp<Index>(m + 1, c.device);
  Index* counts = counts_buf.as<Index>();
  for_each(m, c.stream, [=] __device__(Index i) {
    Index k = 0;
    ewise_row<V>(i, n, aro, aci, av, bro, bci, bv, op, add, [&](Index, V) { ++k; });
    counts[i] = k;
  });
  const Index nvals = counts_to_offsets(counts, m, c.stream);
  SparseStorage out = new_sparse(m, n, nvals, A.type, c.device);
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(out.row_offsets.data(), counts, static_cast<std::size_t>(m + 1) * sizeof(Index),
                                    cudaMemcpyDeviceToDevice, c.stream));
  ColIndex* oci = out.col_indices.as<ColIndex>();
  V* ov = out.values.as<V>();
  for_each(m, c.stream, [=] __device__(Index i) {
    Index p = counts[i];
    ewise_row<V>(i, n, aro, aci, av, bro, bci, bv, op, add, [&](Index j, V x) {
      oci[p] = static_cast<ColIndex>(j);
      ov[p] = x;
      ++p;
    });
  });
  T = std::move(out);
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
  VectorResult r;
  r.t.size = n;
  r.t.nvals = n;
  r.t.dense = true;
  r.t.type = u.type;
  r.t.device = c.device;
  r.t.values = temp_bytes(n, size_of(u.type), c.device);
  const bool all_present = u.dense && v.dense;
  if (!all_present) r.present = temp<std::uint8_t>(n, c.device);
  visit_type(u.type, [&]<class V>() {
    ewise_vector_typed<V>(r.t.values.data(), all_present ? nullptr : r.present.as<std::uint8_t>(), ud, vd, n, op,
                          kind == EwiseKind::add, c.stream);
  });
  t = std::move(r);
}

}  // namespace geblas::detail::cuda::ops
