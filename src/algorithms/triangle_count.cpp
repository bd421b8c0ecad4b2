// Triangle counting by the masked product C<L> = L plus.pair L on the strictly lower
// triangle L of the symmetrized pattern (Wolf, Deveci, Berry, Hammond & Rajamanickam,
// "Fast linear algebra-based triangle counting with KokkosKernels", 2017; the "Sandia
// LL" variant of LAGraph). plus_pair never reads values, so only the pattern streams.
#include "geblas/algorithms/triangle_count.hpp"

#include "algorithms/host_graph.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/operations/reduce.hpp"
#include "geblas/semiring.hpp"

namespace geblas::algo {
namespace {

template <class T>
std::int64_t count(const SparseMatrix<T>& A) {
  detail::require_square("triangle_count", A.nrows(), A.ncols());
  const auto L = detail::to_matrix(detail::symmetric_pattern(detail::host_csr(A, false), true), A.device());
  SparseMatrix<VertexId> C(L.nrows(), L.ncols(), L.device());
  mxm(C, L, L, semiring::plus_pair<VertexId>{}, {.mask = Mask::structure(L)});
  return reduce(C, monoid::plus<VertexId>{});
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
