// Triangle counting by a masked product on an acyclic orientation L of the undirected
// graph (Wolf, Deveci, Berry, Hammond & Rajamanickam, "Fast linear algebra-based
// triangle counting with KokkosKernels", 2017), with the degree ordering of Schank &
// Wagner's forward algorithm: L keeps each edge once, pointing to its end of higher
// (degree, id), so no vertex keeps more than about sqrt(2|E|) out-edges.
//
// count = sum of C<L> = L plus.pair L': C(i, j) = |L(i, :) and L(j, :)| for each edge
// (i, j) of L. A triangle a < b < c (in the ranking) has edges a->b, a->c, b->c and is
// counted exactly once, at (a, b) with common out-neighbour c; (a, c) and (b, c) would
// need an out-neighbour ranked above c adjacent to both, which is another triangle.
// The form with L' rather than L is for the GPU's masked product, a sorted merge of
// row i of A with row j of B' per mask entry: with B = L' both rows are out-rows of L,
// short by the ordering, where L plus.pair L would merge against in-rows, as long as a
// hub's degree.
//
// Set-up, on A's device with geblas operations, cached in A's derived cache until A
// changes: the pattern S of A + A' without diagonal (patterns of A and of the cached A',
// their union, the off-diagonal select), then its orientation.
#include "geblas/algorithms/triangle_count.hpp"

#include "algorithms/checks.hpp"
#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "geblas/algorithms/common.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/operations/reduce.hpp"
#include "geblas/operations/select.hpp"
#include "geblas/semiring.hpp"

namespace geblas::algo {
namespace {

using V = VertexId;
using geblas::detail::SparseStorage;

// The key of the oriented pattern in A's derived cache.
constexpr const char* oriented_key = "algo:triangle_count:oriented";

template <class T>
std::int64_t count(const SparseMatrix<T>& A) {
  detail::require_square("triangle_count", A.nrows(), A.ncols());
  const Index n = A.nrows();
  const Device dev = A.device();
  const auto& be = geblas::detail::backend_for(dev);
  auto scale = geblas::detail::required(be.graph ? be.graph->scale_sparse : nullptr, "scale_sparse", dev);
  auto orient = geblas::detail::required(be.graph ? be.graph->orient_by_degree : nullptr, "orient_by_degree", dev);
  const auto L = geblas::detail::derived<SparseMatrix<V>>(A.storage(), oriented_key, [&] {
    // A' from A's cache, where BFS and PageRank find it too.
    const auto At = geblas::detail::cached_transpose(A.storage());
    auto pattern = [&](const SparseStorage& X) {
      SparseStorage P;
      scale(P, X, type_id<V>, nullptr, nullptr, /*pattern_only=*/true, /*unit_diagonal=*/false);
      return SparseMatrix<V>(std::move(P));
    };
    SparseMatrix<V> both(n, n, dev), S(n, n, dev);
    ewise_add(both, pattern(A.storage()), pattern(*At), binop::pair<V>{});
    select(S, both, selectop::offdiag{});
    SparseStorage oriented;
    orient(oriented, S.storage());
    return SparseMatrix<V>(std::move(oriented));
  });
  SparseMatrix<V> C(n, n, dev);
  mxm(C, *L, *L, semiring::plus_pair<V>{}, {.mask = Mask::structure(*L), .transpose_b = true});
  return reduce(C, monoid::plus<V>{});
}

}  // namespace

#define GEBLAS_ALGO_TC_DEF(TYPE) \
  std::int64_t triangle_count(const SparseMatrix<TYPE>& A) { return count(A); }
GEBLAS_ALGO_TC_DEF(bool)
GEBLAS_ALGO_TC_DEF(std::int32_t)
GEBLAS_ALGO_TC_DEF(std::int64_t)
GEBLAS_ALGO_TC_DEF(float)
GEBLAS_ALGO_TC_DEF(double)
#undef GEBLAS_ALGO_TC_DEF

}  // namespace geblas::algo
