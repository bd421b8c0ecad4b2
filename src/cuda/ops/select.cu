// select on the GPU: one thread per entry evaluates the predicate (finding its row by a
// binary search in the row offsets), a prefix sum over the keep flags gives every kept
// entry its place, and the new row offsets are read off the same prefix sum.
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "cuda/ops/runtime_ops.cuh"

namespace geblas::detail::cuda::ops {
namespace {

template <class V>
void select_sparse_typed(SparseStorage& T, const SparseStorage& A, const SelectPredicate& pred, const Ctx& c) {
  const Index m = A.nrows, K = A.nvals;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  const V* av = A.values.as<V>();
  const SelectOpId op = pred.op;
  const Index k = pred.k;
  const V thr = *static_cast<const V*>(pred.threshold.data());
  RawBuffer pos_buf = temp<Index>(K + 1, c.device);
  Index* pos = pos_buf.as<Index>();
  for_each(K, c.stream, [=] __device__(Index p) {
    const Index i = row_of_entry(ro, m, p);
    pos[p] = select_holds<V>(op, k, thr, i, ci[p], av[p]) ? 1 : 0;
  });
  const Index nvals = counts_to_offsets(pos, K, c.stream);
  SparseStorage out = new_sparse(m, A.ncols, nvals, A.type, c.device);
  Index* oro = out.row_offsets.as<Index>();
  ColIndex* oci = out.col_indices.as<ColIndex>();
  V* ov = out.values.as<V>();
  for_each(m + 1, c.stream, [=] __device__(Index i) { oro[i] = pos[ro[i]]; });
  for_each(K, c.stream, [=] __device__(Index p) {
    if (pos[p + 1] != pos[p]) {
      oci[pos[p]] = ci[p];
      ov[pos[p]] = av[p];
    }
  });
  T = std::move(out);
}

template <class V>
void select_vector_typed(VectorStorage& t, const VectorStorage& u, const SelectPredicate& pred, const Ctx& c) {
  const Index K = u.nvals;
  const bool dense = u.dense;
  const ColIndex* ui = u.indices.as<ColIndex>();
  const V* uv = u.values.as<V>();
  const SelectOpId op = pred.op;
  const Index k = pred.k;
  const V thr = *static_cast<const V*>(pred.threshold.data());
  RawBuffer pos_buf = temp<Index>(K + 1, c.device);
  Index* pos = pos_buf.as<Index>();
  for_each(K, c.stream, [=] __device__(Index p) {
    const Index i = dense ? p : ui[p];
    pos[p] = select_holds<V>(op, k, thr, i, 0, uv[p]) ? 1 : 0;
  });
  const Index nvals = counts_to_offsets(pos, K, c.stream);
  VectorStorage out = make_sparse_vector(u.size, u.type, c.device);
  out.nvals = nvals;
  out.indices = RawBuffer(static_cast<std::size_t>(nvals) * sizeof(ColIndex), c.device);
  out.values = RawBuffer(static_cast<std::size_t>(nvals) * sizeof(V), c.device);
  ColIndex* oi = out.indices.as<ColIndex>();
  V* ov = out.values.as<V>();
  for_each(K, c.stream, [=] __device__(Index p) {
    if (pos[p + 1] != pos[p]) {
      oi[pos[p]] = dense ? static_cast<ColIndex>(p) : ui[p];
      ov[pos[p]] = uv[p];
    }
  });
  t = std::move(out);
}

}  // namespace

void select_sparse(SparseStorage& T, const SparseStorage& A, const SelectPredicate& p) {
  Ctx c(A.device);
  visit_type(A.type, [&]<class V>() { select_sparse_typed<V>(T, A, p, c); });
}

void select_vector(VectorStorage& t, const VectorStorage& u, const SelectPredicate& p) {
  Ctx c(u.device);
  visit_type(u.type, [&]<class V>() { select_vector_typed<V>(t, u, p, c); });
}

}  // namespace geblas::detail::cuda::ops
