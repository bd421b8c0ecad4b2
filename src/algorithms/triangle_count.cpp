// Triangle counting: one backend entry on A's device (core/graph_kernels.hpp,
// TriangleCountRun) folds both directions of A into a degree- or id-oriented adjacency
// and counts during sorted-row intersections (the forward algorithm of Schank & Wagner,
// ordered as in the GAP Benchmark Suite). No product is materialised and nothing is
// cached with A: the set-up is O(nnz) passes, so a one-shot call costs a repeated one.
#include "geblas/algorithms/triangle_count.hpp"

#include "algorithms/checks.hpp"
#include "core/graph_ops.hpp"

namespace geblas::algo {
namespace {

template <class T>
std::int64_t count(const SparseMatrix<T>& A) {
  detail::require_square("triangle_count", A.nrows(), A.ncols());
  return geblas::detail::count_triangles(A.storage()).triangles;
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
