// SparseMatrix<T>: a CSR matrix with sorted, duplicate-free columns in each row and
// 64-bit row offsets, stored on one device. Build it from (row, col, value) tuples,
// from validated CSR arrays, or from Eigen (geblas/eigen.hpp); move it between devices
// with to().
#pragma once

#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "geblas/binary_op.hpp"
#include "geblas/detail/host_buffer.hpp"
#include "geblas/detail/storage.hpp"
#include "geblas/error.hpp"

namespace geblas {

template <class T>
struct Tuple {
  Index row;
  Index col;
  T value;
  friend bool operator==(const Tuple&, const Tuple&) = default;
};

// What to do when from_tuples() meets (i, j) twice: by default it is an error
// (GrB_Matrix_build with no dup operator); otherwise the values are combined with a
// built-in binary operator, in input order: dup(dup(v1, v2), v3).
struct Duplicates {
  std::optional<BinaryOpId> op;
  Duplicates() = default;
  template <BuiltinBinaryOp Op>
  Duplicates(Op) : op(Op::id) {}  // NOLINT: implicit on purpose, `from_tuples(..., binop::plus<T>{})`
  static Duplicates error() { return {}; }
};

namespace detail {
// Sorts and combines tuples into CSR on the host, then moves the result to `device`.
// Checks every index against the dimensions (InvalidIndex names the offending tuple).
GEBLAS_API SparseStorage build_csr(Index nrows, Index ncols, const Index* rows, const Index* cols,
                                   const void* values, Index count, TypeId type, Duplicates dup,
                                   Device device);
// Validates CSR arrays (offsets monotone and ending at nvals, columns in range, sorted
// and unique in each row) and wraps them. Throws InvalidObject / InvalidIndex.
GEBLAS_API SparseStorage adopt_csr(Index nrows, Index ncols, RawBuffer row_offsets,
                                   RawBuffer col_indices, RawBuffer values, TypeId type,
                                   Device device);
}  // namespace detail

template <Scalar T>
class SparseMatrix {
 public:
  using value_type = T;

  // An empty 0 x 0 matrix on the host.
  SparseMatrix() : s_(detail::make_sparse(0, 0, type_id<T>, Device::cpu())) {}
  // An nrows x ncols matrix with no entries.
  SparseMatrix(Index nrows, Index ncols, Device device = Device::cpu())
      : s_(detail::make_sparse(nrows, ncols, type_id<T>, device)) {}

  // A moved-from matrix is the empty 0 x 0 host matrix of the default constructor, so every
  // operation on it works as on any empty one or reports a dimension mismatch. Building
  // that state allocates its one row offset and an empty cache; noexcept keeps moves cheap in containers, and
  // running out of memory for those few bytes ends the program.
  SparseMatrix(const SparseMatrix&) = default;
  SparseMatrix& operator=(const SparseMatrix&) = default;
  SparseMatrix(SparseMatrix&& other) noexcept : s_(std::exchange(other.s_, empty_storage())) {}
  SparseMatrix& operator=(SparseMatrix&& other) noexcept {
    s_ = std::exchange(other.s_, empty_storage());
    return *this;
  }

  static SparseMatrix from_tuples(Index nrows, Index ncols, std::span<const Index> rows,
                                  std::span<const Index> cols, std::span<const T> values,
                                  Duplicates dup = {}, Device device = Device::cpu()) {
    if (rows.size() != cols.size() || rows.size() != values.size())
      throw DimensionMismatch("SparseMatrix::from_tuples: rows, cols and values differ in length (" +
                              std::to_string(rows.size()) + ", " + std::to_string(cols.size()) +
                              ", " + std::to_string(values.size()) + ")");
    return SparseMatrix(detail::build_csr(nrows, ncols, rows.data(), cols.data(), values.data(),
                                          static_cast<Index>(rows.size()), type_id<T>, dup, device));
  }

  static SparseMatrix from_tuples(Index nrows, Index ncols, const std::vector<Tuple<T>>& tuples,
                                  Duplicates dup = {}, Device device = Device::cpu()) {
    std::vector<Index> r(tuples.size()), c(tuples.size());
    detail::RawBuffer v(tuples.size() * sizeof(T), Device::cpu());
    for (std::size_t k = 0; k < tuples.size(); ++k) {
      r[k] = tuples[k].row;
      c[k] = tuples[k].col;
      v.as<T>()[k] = tuples[k].value;
    }
    return SparseMatrix(detail::build_csr(nrows, ncols, r.data(), c.data(), v.data(),
                                          static_cast<Index>(tuples.size()), type_id<T>, dup, device));
  }

  static SparseMatrix from_csr(Index nrows, Index ncols, const std::vector<Index>& row_offsets,
                               const std::vector<ColIndex>& col_indices, const std::vector<T>& values,
                               Device device = Device::cpu()) {
    if (col_indices.size() != values.size())
      throw DimensionMismatch("SparseMatrix::from_csr: " + std::to_string(col_indices.size()) +
                              " column indices but " + std::to_string(values.size()) + " values");
    auto s = detail::adopt_csr(nrows, ncols, detail::host_buffer_from(row_offsets),
                               detail::host_buffer_from(col_indices), detail::host_buffer_from(values),
                               type_id<T>, Device::cpu());
    return SparseMatrix(device.is_cpu() ? std::move(s) : detail::to_device(s, device));
  }

  Index nrows() const { return s_.nrows; }
  Index ncols() const { return s_.ncols; }
  Index nvals() const { return s_.nvals; }
  Device device() const { return s_.device; }

  // A copy on `device` (a plain copy when it is already there).
  SparseMatrix to(Device device) const { return SparseMatrix(detail::to_device(s_, device)); }

  // All entries in row-major order, copied to the host.
  std::vector<Tuple<T>> extract_tuples() const {
    auto offsets = detail::vector_from<Index>(s_.row_offsets, static_cast<std::size_t>(s_.nrows + 1));
    auto cols = detail::vector_from<ColIndex>(s_.col_indices, static_cast<std::size_t>(s_.nvals));
    auto vals = detail::vector_from<T>(s_.values, static_cast<std::size_t>(s_.nvals));
    std::vector<Tuple<T>> out;
    out.reserve(static_cast<std::size_t>(s_.nvals));
    for (Index i = 0; i < s_.nrows; ++i)
      for (Index k = offsets[i]; k < offsets[i + 1]; ++k) out.push_back({i, cols[k], vals[k]});
    return out;
  }

  // The CSR arrays, copied to the host.
  std::vector<Index> row_offsets() const {
    return detail::vector_from<Index>(s_.row_offsets, static_cast<std::size_t>(s_.nrows + 1));
  }
  std::vector<ColIndex> col_indices() const {
    return detail::vector_from<ColIndex>(s_.col_indices, static_cast<std::size_t>(s_.nvals));
  }
  std::vector<T> values() const {
    return detail::vector_from<T>(s_.values, static_cast<std::size_t>(s_.nvals));
  }

  // Raw device pointers, for interoperating with other libraries (valid until the
  // matrix changes). row_offsets: nrows + 1 entries; col_indices, values: nvals.
  const Index* row_offsets_data() const { return s_.row_offsets.template as<Index>(); }
  const ColIndex* col_indices_data() const { return s_.col_indices.template as<ColIndex>(); }
  const T* values_data() const { return s_.values.template as<T>(); }

  explicit SparseMatrix(detail::SparseStorage s) : s_(std::move(s)) {}
  detail::SparseStorage& storage() { return s_; }
  const detail::SparseStorage& storage() const { return s_; }

 private:
  static detail::SparseStorage empty_storage() { return detail::make_sparse(0, 0, type_id<T>, Device::cpu()); }

  detail::SparseStorage s_;
};

}  // namespace geblas
