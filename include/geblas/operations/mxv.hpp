// mxv and vxm: w<m> = accum(w, A (+).(x) u) and w<m> = accum(w, u' (+).(x) A).
// A dense u pulls (one dot product per row of A); a sparse u pushes from its entries
// (the frontier of a BFS), which with a complemented mask is GraphBLAS's push step.
// The output keeps its storage: a dense w is full (entries with no term hold the
// identity); a sparse w holds exactly the entries GraphBLAS defines.
//
// Pull or push: a dense u, or a sparse u with at least 1/16 of its entries present,
// pulls; a sparser u pushes (the first push of mxv builds A's transpose, cached with A;
// vxm pulls through that cached transpose and pushes on A itself). Options::variant
// "pull" / "push" forces one (push needs a sparse u). The mask lets pull skip the rows
// it excludes. With any_second the CPU backend keeps the term with the smallest k;
// other backends may pick another term.
#pragma once

#include "geblas/options.hpp"
#include "geblas/semiring.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas {

namespace detail {
GEBLAS_API void mxv(VectorStorage& w, const SparseStorage& A, const VectorStorage& u, SemiringId s,
                    const Options& o);
GEBLAS_API void vxm(VectorStorage& w, const VectorStorage& u, const SparseStorage& A, SemiringId s,
                    const Options& o);
}  // namespace detail

template <Scalar T, BuiltinSemiring S>
void mxv(Vector<T>& w, const SparseMatrix<T>& A, const Vector<T>& u, S, const Options& options = {}) {
  static_assert(std::is_same_v<typename S::value_type, T>, "geblas::mxv: semiring type must match");
  detail::mxv(w.storage(), A.storage(), u.storage(), S::id, options);
}

template <Scalar T, BuiltinSemiring S>
void vxm(Vector<T>& w, const Vector<T>& u, const SparseMatrix<T>& A, S, const Options& options = {}) {
  static_assert(std::is_same_v<typename S::value_type, T>, "geblas::vxm: semiring type must match");
  detail::vxm(w.storage(), u.storage(), A.storage(), S::id, options);
}

}  // namespace geblas
