// The degree orientation of a symmetric pattern on the GPU (triangle counting's "sorted
// by degree" step, as in Schank & Wagner's forward algorithm): each edge is kept once,
// in the row of its lower-ranked end, ranks ordered by (degree, id). A flag per entry,
// a prefix sum over the flags (CUB, through ops::counts_to_offsets), and a compaction;
// the new row offsets are the prefix sums at the old ones.
#include "cuda/graph/entries.cuh"
#include "cuda/graph/graph.hpp"

namespace geblas::detail::cuda::graph {
namespace {

using ops::Ctx;

template <class V>
void compact(SparseStorage& L, const SparseStorage& S, const Index* pos, const Ctx& c) {
  const ColIndex* sci = S.col_indices.as<ColIndex>();
  const V* sv = S.values.as<V>();
  ColIndex* lci = L.col_indices.as<ColIndex>();
  V* lv = L.values.as<V>();
  ops::for_each(S.nvals, c.stream, [=] __device__(Index k) {
    if (pos[k + 1] != pos[k]) {
      lci[pos[k]] = sci[k];
      lv[pos[k]] = sv[k];
    }
  });
}

}  // namespace

void orient_by_degree(SparseStorage& L, const SparseStorage& S) {
  const Ctx c(S.device);
  const Index n = S.nrows, K = S.nvals;
  const Index* sro = S.row_offsets.as<Index>();
  const ColIndex* sci = S.col_indices.as<ColIndex>();
  RawBuffer pos_buf = ops::temp<Index>(K + 1, c.device);
  Index* pos = pos_buf.as<Index>();
  for_each_entry(sro, n, K, c.stream, [=] __device__(Index i, Index k) {
    const Index j = sci[k];
    const Index di = sro[i + 1] - sro[i], dj = sro[j + 1] - sro[j];
    pos[k] = (di < dj || (di == dj && i < j)) ? 1 : 0;
  });
  const Index nvals = ops::counts_to_offsets(pos, K, c.stream);
  SparseStorage out = ops::new_sparse(n, S.ncols, nvals, S.type, c.device);
  Index* lro = out.row_offsets.as<Index>();
  ops::for_each(n + 1, c.stream, [=] __device__(Index i) { lro[i] = pos[sro[i]]; });
  visit_type(S.type, [&]<class V>() { compact<V>(out, S, pos, c); });
  L = std::move(out);
}

}  // namespace geblas::detail::cuda::graph
