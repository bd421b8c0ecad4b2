// select on the GPU: one thread per entry evaluates the predicate (finding its row by a
// binary search in the row offsets), a prefix sum over the keep flags gives every kept
// entry its place, and the new row offsets are read off the same prefix sum.
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "cuda/ops/runtime_ops.cuh"

namespace geblas::detail::cuda::ops {
namespace {

// A select predicate as the kernels test it, its threshold read once as V.
template <class V>
struct DevicePredicate {
  SelectOpId op;
  Index k;
  V threshold;
  explicit DevicePredicate(const SelectPredicate& p)
      : op(p.op), k(p.k), threshold(*static_cast<const V*>(p.threshold.data())) {}
  __device__ bool holds(Index i, Index j, V x) const { return select_holds<V>(op, k, threshold, i, j, x); }
};

template <class V>
void select_sparse_typed(SparseStorage& T, const SparseStorage& A, const SelectPredicate& pred, const Ctx& c) {
  const Index m = A.nrows;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  const V* av = A.values.as<V>();
  const DevicePredicate<V> test(pred);
  T = kept_entries<V>(A, av, A.type, c,
                      [=] __device__(Index p) { return test.holds(row_of_entry(ro, m, p), ci[p], av[p]); });
}

template <class V>
void select_vector_typed(VectorStorage& t, const VectorStorage& u, const SelectPredicate& pred, const Ctx& c) {
  const bool dense = u.dense;
  const ColIndex* ui = u.indices.as<ColIndex>();
  const V* uv = u.values.as<V>();
  const DevicePredicate<V> test(pred);
  const KeptPlaces places =
      kept_places(u.nvals, c, [=] __device__(Index p) { return test.holds(dense ? p : ui[p], 0, uv[p]); });
  const Index* pos = places.pos();
  VectorStorage out = new_sparse_vector(u.size, places.count, u.type, c.device);
  ColIndex* oi = out.indices.as<ColIndex>();
  V* ov = out.values.as<V>();
  for_each(u.nvals, c.stream, [=] __device__(Index p) {
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
