// select: C<M> = accum(C, A restricted to the entries where the predicate holds), e.g.
// select(L, A, selectop::tril{-1}) keeps the strictly lower triangle. A vector is an
// n x 1 column for the position predicates (i is the index, j is 0), as in GraphBLAS.
// A dense Vector output stores zero (T{}) where an entry was dropped.
#pragma once

#include "geblas/options.hpp"
#include "geblas/select_op.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas {

namespace detail {
// `thunk` is the offset k for position predicates, or points to a threshold of the
// operands' type for value predicates (then `index_thunk` is unused).
struct SelectArgs {
  SelectOpId op;
  Index index_thunk = 0;
  const void* value_thunk = nullptr;
};
GEBLAS_API void select(SparseStorage& C, const SparseStorage& A, const SelectArgs& p, const Options& o);
GEBLAS_API void select(VectorStorage& w, const VectorStorage& u, const SelectArgs& p, const Options& o);

template <class P, class T>
SelectArgs select_args(const P& p, const T* value) {
  if constexpr (requires { p.threshold; }) return {P::id, 0, value};
  else if constexpr (requires { p.k; }) return {P::id, p.k, nullptr};
  else return {P::id, 0, nullptr};
}
}  // namespace detail

template <class Obj, class Pred>
void select(Obj& C, const Obj& A, Pred p, const Options& options = {}) {
  using T = typename Obj::value_type;
  T threshold{};
  if constexpr (requires { p.threshold; }) threshold = static_cast<T>(p.threshold);
  detail::select(C.storage(), A.storage(), detail::select_args(p, &threshold), options);
}

}  // namespace geblas
