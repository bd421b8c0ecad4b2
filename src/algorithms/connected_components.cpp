// Connected components: the labelling runs as one backend entry on A's device
// (core/graph_kernels.hpp), a concurrent union-find over A's stored entries in the
// manner of ECL-CC (Jaiganesh & Burtscher, HPDC 2018) that links a few sampled
// neighbours of every vertex first and then skips or filters the giant component's
// remaining edges (Afforest), on either backend. A min-label propagation (FastSV, Zhang, Azad & Hu 2020) needs a
// round trip per round to test convergence; the union-find hooking needs none, reads
// A's entries at most once in either direction (no symmetrised copy), and leaves each
// vertex the smallest id of its component. Only the component count comes back to the
// host.
#include "geblas/algorithms/connected_components.hpp"

#include "algorithms/checks.hpp"
#include "core/graph_ops.hpp"

namespace geblas::algo {
namespace {

template <class T>
ComponentsResult components(const SparseMatrix<T>& A, const ComponentsOptions& o) {
  detail::require_square("connected_components", A.nrows(), A.ncols());
  const Device dev = A.device();
  ComponentsResult res;
  res.labels = Vector<VertexId>(geblas::detail::make_dense_vector(A.nrows(), type_id<VertexId>, dev));
  const geblas::detail::ComponentsStats run = geblas::detail::component_labels(A.storage(), res.labels.storage());
  res.count = run.count;
  res.rounds = run.rounds;
  // One pass: the progress measure is the number of vertices the pass relabelled.
  if (o.on_iteration) o.on_iteration(run.rounds, static_cast<double>(A.nrows() - run.count));
  return res;
}

}  // namespace

#define GEBLAS_ALGO_CC_DEF(TYPE)                                                                     \
  ComponentsResult connected_components(const SparseMatrix<TYPE>& A, const ComponentsOptions& o) { \
    return components(A, o);                                                                        \
  }
GEBLAS_ALGO_CC_DEF(bool)
GEBLAS_ALGO_CC_DEF(std::int32_t)
GEBLAS_ALGO_CC_DEF(std::int64_t)
GEBLAS_ALGO_CC_DEF(float)
GEBLAS_ALGO_CC_DEF(double)
#undef GEBLAS_ALGO_CC_DEF

}  // namespace geblas::algo
