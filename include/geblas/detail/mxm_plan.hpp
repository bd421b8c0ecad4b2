// The operands of one mxm after validation: transposes already applied, and the
// product T that the multiply step fills before the mask / accumulator step writes it
// into C. Shared by the built-in path (inside the library) and by user-defined
// semirings (templates in the caller's code).
#pragma once

#include <memory>

#include "geblas/detail/storage.hpp"

namespace geblas::detail {

struct UserMxmPlan {
  enum class Form : std::uint8_t { sparse_dense, sparse_sparse, dense_sparse, dense_dense };
  Form form = Form::sparse_dense;
  Device device{};
  TypeId type = TypeId::float32;

  // Operands as multiplied: point either at the caller's objects or at the transposed
  // copies held below.
  const SparseStorage* a_sparse = nullptr;
  const DenseStorage* a_dense = nullptr;
  const SparseStorage* b_sparse = nullptr;
  const DenseStorage* b_dense = nullptr;
  std::shared_ptr<const SparseStorage> a_sparse_t, b_sparse_t;  // cached transposes
  DenseStorage a_dense_t, b_dense_t;

  // The product: dense (row-major, every entry written; entries with no term hold the
  // identity) or sparse (only the entries with at least one term).
  DenseStorage t_dense;
  SparseStorage t_sparse;
};

}  // namespace geblas::detail
