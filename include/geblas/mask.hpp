// Masks select which output entries an operation may write, as GraphBLAS's C<M>.
// A value mask lets through the entries of M that are present and nonzero; a
// structural mask every present entry (for a DenseMatrix or dense Vector: all of them).
// complement() inverts the selection. A Mask refers to its matrix; keep the matrix
// alive for the duration of the call.
#pragma once

#include "geblas/dense_matrix.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas {

class Mask {
 public:
  enum class Kind : std::uint8_t { none, sparse, dense, vector };

  Mask() = default;
  template <Scalar U>
  Mask(const SparseMatrix<U>& m) : kind_(Kind::sparse), sparse_(&m.storage()) {}  // NOLINT
  template <Scalar U>
  Mask(const DenseMatrix<U>& m) : kind_(Kind::dense), dense_(&m.storage()) {}  // NOLINT
  template <Scalar U>
  Mask(const Vector<U>& v) : kind_(Kind::vector), vector_(&v.storage()) {}  // NOLINT

  template <class M>
  static Mask structure(const M& m) {
    Mask k(m);
    k.structural_ = true;
    return k;
  }
  Mask complement() const {
    Mask k = *this;
    k.complemented_ = !complemented_;
    return k;
  }

  bool empty() const { return kind_ == Kind::none; }
  Kind kind() const { return kind_; }
  bool structural() const { return structural_; }
  bool complemented() const { return complemented_; }
  const detail::SparseStorage* sparse() const { return sparse_; }
  const detail::DenseStorage* dense() const { return dense_; }
  const detail::VectorStorage* vector() const { return vector_; }

 private:
  Kind kind_ = Kind::none;
  bool structural_ = false;
  bool complemented_ = false;
  const detail::SparseStorage* sparse_ = nullptr;
  const detail::DenseStorage* dense_ = nullptr;
  const detail::VectorStorage* vector_ = nullptr;
};

}  // namespace geblas
