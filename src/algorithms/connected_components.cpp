// Connected components by min-label propagation with pointer jumping: every vertex
// starts with its own id as label; a round takes the smallest label among the
// neighbours (mxv over min_second on the symmetrized pattern S), keeps the smaller of
// that and its own, then shortcuts label <- label[label] as Shiloach-Vishkin and FastSV
// (Zhang, Azad & Hu, 2020) do, which halves the distance to the root on paths. Labels
// only decrease and always name a vertex of the same component, so at the fixed point
// every vertex holds its component's smallest id.
#include "geblas/algorithms/connected_components.hpp"

#include <utility>

#include "algorithms/host_graph.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/extract.hpp"
#include "geblas/operations/mxv.hpp"
#include "geblas/semiring.hpp"

namespace geblas::algo {
namespace {

using V = VertexId;

template <class T>
ComponentsResult components(const SparseMatrix<T>& A, const ComponentsOptions& o) {
  detail::require_square("connected_components", A.nrows(), A.ncols());
  const Index n = A.nrows();
  const Device dev = A.device();
  const auto S = detail::to_matrix(detail::symmetric_pattern(detail::host_csr(A, false), false), dev);
  std::vector<V> host(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) host[static_cast<std::size_t>(i)] = i;
  ComponentsResult res;
  res.labels = Vector<V>::from_dense(host, dev);
  Vector<V> neighbour_min = Vector<V>::dense(n, V{0}, dev), lowered = Vector<V>::dense(n, V{0}, dev);
  for (int round = 1; n > 0; ++round) {
    mxv(neighbour_min, S, res.labels, semiring::min_second<V>{});  // isolated: identity +max
    ewise_mult(lowered, res.labels, neighbour_min, binop::min<V>{});  // both dense
    const std::vector<V> parent = lowered.to_std_vector();
    Vector<V> jumped = Vector<V>::dense(n, V{0}, dev);
    extract(jumped, lowered, IndexList(std::vector<Index>(parent.begin(), parent.end())));
    std::vector<V> now = jumped.to_std_vector();
    Index changed = 0;
    for (std::size_t i = 0; i < now.size(); ++i) changed += now[i] != host[i];
    res.labels = std::move(jumped);
    host = std::move(now);
    res.rounds = round;
    if (o.on_iteration) o.on_iteration(round, static_cast<double>(changed));
    if (changed == 0) break;
  }
  for (Index i = 0; i < n; ++i) res.count += host[static_cast<std::size_t>(i)] == i;
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
