// Element-wise operations. ewise_add works on the union of the two patterns (an entry
// present in one operand only is copied), ewise_mult on the intersection. On dense
// operands both apply op to every entry. Vectors may mix dense and sparse storage; a
// dense output stores zero (T{}) where the result has no entry (and replace clears
// to zero). Options::transpose_a / transpose_b transpose matrix operands.
#pragma once

#include "geblas/dense_matrix.hpp"
#include "geblas/options.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas {

namespace detail {
enum class EwiseKind : std::uint8_t { add, mult };
GEBLAS_API void ewise(SparseStorage& C, const SparseStorage& A, const SparseStorage& B, BinaryOpId op,
                      EwiseKind kind, const Options& o);
GEBLAS_API void ewise(DenseStorage& C, const DenseStorage& A, const DenseStorage& B, BinaryOpId op,
                      EwiseKind kind, const Options& o);
GEBLAS_API void ewise(VectorStorage& w, const VectorStorage& u, const VectorStorage& v, BinaryOpId op,
                      EwiseKind kind, const Options& o);
}  // namespace detail

#define GEBLAS_EWISE(NAME, KIND, OBJ)                                                          \
  template <Scalar T, BuiltinBinaryOp Op>                                                     \
  void NAME(OBJ<T>& C, const OBJ<T>& A, const OBJ<T>& B, Op, const Options& options = {}) {   \
    static_assert(std::is_same_v<typename Op::value_type, T>, "geblas::" #NAME ": operator type must match"); \
    detail::ewise(C.storage(), A.storage(), B.storage(), Op::id, detail::EwiseKind::KIND, options); \
  }
GEBLAS_EWISE(ewise_add, add, SparseMatrix)
GEBLAS_EWISE(ewise_add, add, DenseMatrix)
GEBLAS_EWISE(ewise_add, add, Vector)
GEBLAS_EWISE(ewise_mult, mult, SparseMatrix)
GEBLAS_EWISE(ewise_mult, mult, DenseMatrix)
GEBLAS_EWISE(ewise_mult, mult, Vector)
#undef GEBLAS_EWISE

}  // namespace geblas
