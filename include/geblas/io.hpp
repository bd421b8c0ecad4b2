// Reading and writing matrices: Matrix Market (coordinate and array; real, integer and
// pattern; general, symmetric and skew-symmetric; plain or gzip-compressed, chosen by
// the file's magic bytes) and geblas's binary format for SparseMatrix (versioned
// header, checksum; see docs/FORMATS.md). Malformed input raises ParseError with the
// file and line; an unreadable file raises IoError.
#pragma once

#include <string>

#include "geblas/dense_matrix.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas::io {

struct ReadOptions {
  // Entries given twice: an error by default; or combined with a built-in operator.
  Duplicates duplicates{};
  // Drop stored entries whose value is zero (pattern files have none).
  bool drop_zeros = false;
};

// What a Matrix Market banner and size line say, without reading the entries.
struct MatrixMarketHeader {
  std::string format;    // "coordinate" or "array"
  std::string field;     // "real", "integer", "pattern", ...
  std::string symmetry;  // "general", "symmetric", "skew-symmetric", ...
  Index nrows = 0;
  Index ncols = 0;
  Index stored_entries = 0;  // lines of entries in the file
};

namespace detail {
GEBLAS_API geblas::detail::SparseStorage read_matrix_market(const std::string& path, TypeId type,
                                                            const ReadOptions& options);
GEBLAS_API geblas::detail::DenseStorage read_matrix_market_dense(const std::string& path, TypeId type);
GEBLAS_API void write_matrix_market(const std::string& path, const geblas::detail::SparseStorage& A);
GEBLAS_API void write_matrix_market(const std::string& path, const geblas::detail::DenseStorage& A);
GEBLAS_API geblas::detail::SparseStorage read_binary(const std::string& path, TypeId type);
GEBLAS_API void write_binary(const std::string& path, const geblas::detail::SparseStorage& A);
}  // namespace detail

GEBLAS_API MatrixMarketHeader read_matrix_market_header(const std::string& path);

// A coordinate or array file as a sparse matrix (symmetric files are mirrored; values
// are converted to T, with a ParseError for a value T cannot hold, e.g. 2.5 into int32).
template <Scalar T>
SparseMatrix<T> read_matrix_market(const std::string& path, const ReadOptions& options = {},
                                   Device device = Device::cpu()) {
  SparseMatrix<T> A(detail::read_matrix_market(path, type_id<T>, options));
  if (!device.is_cpu()) return A.to(device);
  return A;  // not `cond ? A : A.to(device)`, which copies A
}

// An array-format file as a dense matrix.
template <Scalar T>
DenseMatrix<T> read_matrix_market_dense(const std::string& path, Device device = Device::cpu()) {
  DenseMatrix<T> A(detail::read_matrix_market_dense(path, type_id<T>));
  if (!device.is_cpu()) return A.to(device);
  return A;
}

// Writes a general coordinate file (pattern for bool, integer for int32/int64, real for
// floating point, with enough digits to read back the same value). A path ending in .gz
// is compressed.
template <Scalar T>
void write_matrix_market(const std::string& path, const SparseMatrix<T>& A) {
  detail::write_matrix_market(path, A.storage());
}
template <Scalar T>
void write_matrix_market(const std::string& path, const DenseMatrix<T>& A) {
  detail::write_matrix_market(path, A.storage());
}

template <Scalar T>
SparseMatrix<T> read_binary(const std::string& path, Device device = Device::cpu()) {
  SparseMatrix<T> A(detail::read_binary(path, type_id<T>));
  if (!device.is_cpu()) return A.to(device);
  return A;
}
template <Scalar T>
void write_binary(const std::string& path, const SparseMatrix<T>& A) {
  detail::write_binary(path, A.storage());
}

}  // namespace geblas::io
