// Reading and writing matrices: Matrix Market (coordinate and array; real, integer and
// pattern; general, symmetric and skew-symmetric; plain or gzip-compressed, chosen by
// the file's magic bytes) and geblas's binary format for SparseMatrix (versioned
// header, checksum; see docs/FORMATS.md). Malformed input raises ParseError with the
// file and line; an unreadable file raises IoError.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "geblas/dense_matrix.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas::io {

// A file written safely: the bytes go to a temporary file in the target's folder, which
// replaces the target (atomic rename, after flush and fsync) only when commit()
// succeeds. Destroyed without commit() (an exception, a failed write), the temporary
// file is removed and the target is left as it was. A symbolic link is written through
// (the file it names is replaced, the link stays); a target that is not a regular file
// (a device, a FIFO, /dev/stdout) is written in place and never replaced. The path "-"
// writes to standard output (commit() flushes it and reports any error). Every failure
// is an IoError naming the path. The library's writers below all go through it; see
// <geblas/io_process.hpp> for removing temporary files on signals.
class GEBLAS_API OutputFile {
 public:
  // Creates the temporary file now, so that an unwritable or missing folder fails here,
  // before any work. Throws IoError (folder missing or not writable, path is a folder).
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Throws IoError on a failed write (the temporary file is removed).
  void write(const void* data, std::size_t n);
  // For fprintf-style writing; errors are caught by commit().
  std::FILE* stream() { return file_; }
  // Flush, check for errors, fsync, rename over the target. Throws IoError.
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string name() const;
  [[noreturn]] void fail(const std::string& what, int err);
  std::string path_, temp_path_;
  std::FILE* file_ = nullptr;
};

// True when both paths name the same file (std::filesystem::equivalent when both exist,
// else the same normalised path). "-" is never the same as anything.
GEBLAS_API bool same_file(const std::string& a, const std::string& b);

// Checks, before any work is done, that `output` can be written: it is not one of the
// `inputs` (InvalidValue), not a folder, and its folder exists and takes new files
// (IoError). "-" (standard output) always passes.
GEBLAS_API void check_output_path(const std::string& output, const std::vector<std::string>& inputs = {});

struct ReadOptions {
  // Entries given twice: an error by default (naming both lines); or combined with a
  // built-in operator in file order, e.g. binop::plus<T>{}, binop::max, binop::min,
  // binop::first (keep the first), binop::second (keep the last).
  Duplicates duplicates{};
  // Drop stored entries whose value is zero (pattern files have none).
  bool drop_zeros = false;
  // Largest row or column count accepted from a text file (Matrix Market, edge lists).
  // CSR row offsets cost 8 bytes per row however few entries there are, so a tiny file
  // declaring 2e8 rows would take gigabytes; 0 means the automatic limit
  // max(2^24, 16 x entries), beyond which the read is a ParseError saying so.
  Index max_dimension = 0;
  // Edge lists only: the id of the first vertex (0 or 1), and whether each line is an
  // edge both ways (a self-loop is stored once).
  int base = 0;
  bool undirected = false;
};

// The graph file formats read_graph knows. automatic: by content (the binary magic, a
// Matrix Market banner), then by name (.mtx, .geb, .csv, .txt/.edges/.el/.tsv/.snap,
// with .gz stripped), then by the first lines (two or three integer fields: an edge
// list, comma-separated: CSV).
enum class Format { automatic, matrix_market, binary, edge_list, csv };
GEBLAS_API const char* to_string(Format f);

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
// Rows [begin, end) of a Matrix Market file (end = -1: to the last row), as a matrix of
// end - begin rows with the file's columns, row i holding row begin + i: every line is
// parsed and checked as read_matrix_market does (errors name the file's line and its
// 1-based row), but only the range's entries are kept, so that each rank of a
// distributed matrix reads its part without the whole matrix in memory. With
// `row_counts`, the entries of every row of the file (after mirroring) are counted into
// it (nrows values), e.g. for an nnz-balanced split. InvalidValue: a range outside the
// file's rows.
GEBLAS_API geblas::detail::SparseStorage read_matrix_market_rows(const std::string& path, TypeId type,
                                                                 const ReadOptions& options, Index begin, Index end,
                                                                 std::vector<Index>* row_counts = nullptr);
GEBLAS_API void write_matrix_market(const std::string& path, const geblas::detail::SparseStorage& A);
GEBLAS_API void write_matrix_market(const std::string& path, const geblas::detail::DenseStorage& A);
GEBLAS_API geblas::detail::SparseStorage read_binary(const std::string& path, TypeId type);
// Rows [begin, end) of a binary file (end = -1: to the last row), as read_matrix_market_rows
// gives them: only those rows' offsets, columns and values are kept in memory. The header,
// the file's size, the range's offsets and the part's CSR structure and values are
// checked as read_binary checks them. The checksum covers the whole file: with
// `verify_checksum` the file is read once in chunks to check it (a pass over the file's
// bytes, not held); without, only the range's bytes are read (seeks), and damage the
// structure checks cannot see (a flipped bit in a value) goes unnoticed. With
// `row_counts`, the entries of every row of the file are counted into it (nrows values:
// the offsets are read whole). InvalidValue: a range outside the file's rows.
GEBLAS_API geblas::detail::SparseStorage read_binary_rows(const std::string& path, TypeId type, Index begin, Index end,
                                                          std::vector<Index>* row_counts = nullptr,
                                                          bool verify_checksum = true);
GEBLAS_API geblas::detail::SparseStorage read_edge_list(const std::string& path, TypeId type, const ReadOptions& options,
                                                        char delimiter);
GEBLAS_API geblas::detail::SparseStorage read_graph(const std::string& path, TypeId type, const ReadOptions& options,
                                                    Format format);
GEBLAS_API void write_binary(const std::string& path, const geblas::detail::SparseStorage& A);
}  // namespace detail

GEBLAS_API MatrixMarketHeader read_matrix_market_header(const std::string& path);

// What a binary file's header says (checked as read_binary checks it, with the file's size).
struct BinaryHeader {
  TypeId type = TypeId::float32;  // the stored value type
  Index nrows = 0;
  Index ncols = 0;
  Index nvals = 0;
};
GEBLAS_API BinaryHeader read_binary_header(const std::string& path);

// The format read_graph would pick for `path` (never Format::automatic). Throws
// ParseError naming every format tried and why each did not fit, IoError if unreadable.
GEBLAS_API Format detect_format(const std::string& path);

// An edge list: one edge per line, "source target [weight]" separated by blanks
// (`delimiter` 0, SNAP style) or by commas (`delimiter` ',', CSV: blanks around fields
// and double quotes around a field are dropped). Lines starting with '#' or '%' and blank
// lines are skipped; the first other line is a header, and skipped, only when it cannot
// be data: every field holds a letter and none is a number ("1.5 2" and "x1 2" are data,
// and fail as such). Every line has a weight or none (then every value is 1). The matrix is n x n
// with n the largest id + 1 - options.base. plain or gzip (by content). Errors are
// ParseError with file, line and reason.
template <Scalar T>
SparseMatrix<T> read_edge_list(const std::string& path, const ReadOptions& options = {}, char delimiter = 0,
                               Device device = Device::cpu()) {
  SparseMatrix<T> A(detail::read_edge_list(path, type_id<T>, options, delimiter));
  if (!device.is_cpu()) return A.to(device);
  return A;
}

// Any graph file geblas reads, by `format` or detected (detect_format). The input is
// opened once: detection peeks at its first bytes, which the reader then consumes, so a
// pipe, FIFO or socket reads as a file with the same bytes does (up to
// io::max_stream_bytes(), <geblas/io_process.hpp>). "-" reads standard input (errors
// name it "<stdin>").
template <Scalar T>
SparseMatrix<T> read_graph(const std::string& path, const ReadOptions& options = {},
                           Format format = Format::automatic, Device device = Device::cpu()) {
  SparseMatrix<T> A(detail::read_graph(path, type_id<T>, options, format));
  if (!device.is_cpu()) return A.to(device);
  return A;
}

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
// is compressed; "-" writes plain text to standard output. Written through OutputFile:
// a failure leaves any previous file at `path` intact.
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
// Written through OutputFile like write_matrix_market ("-" is standard output).
template <Scalar T>
void write_binary(const std::string& path, const SparseMatrix<T>& A) {
  detail::write_binary(path, A.storage());
}

}  // namespace geblas::io
