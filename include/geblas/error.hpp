// The exception hierarchy. Every failure geblas reports is a geblas::Error carrying an
// Info code modelled on GraphBLAS's GrB_Info: API errors (the caller passed something
// wrong) and execution errors (the call was valid but could not complete).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "geblas/config.hpp"

namespace geblas {

enum class Info {
  // API errors
  uninitialized_object,
  null_pointer,
  invalid_value,
  invalid_index,
  domain_mismatch,
  dimension_mismatch,
  output_not_empty,
  not_implemented,
  device_mismatch,
  // execution errors
  out_of_memory,
  insufficient_space,
  invalid_object,
  index_out_of_bounds,
  empty_object,
  parse_error,
  io_error,
  cuda_error,
  panic,
};

GEBLAS_API const char* to_string(Info info);

class GEBLAS_API Error : public std::runtime_error {
 public:
  Error(Info info, const std::string& what);
  Info info() const noexcept { return info_; }

 private:
  Info info_;
};

// One subclass per family a caller may want to catch on its own.
class GEBLAS_API InvalidValue : public Error {
 public:
  explicit InvalidValue(const std::string& what) : Error(Info::invalid_value, what) {}
};
class GEBLAS_API InvalidIndex : public Error {
 public:
  explicit InvalidIndex(const std::string& what) : Error(Info::invalid_index, what) {}
};
class GEBLAS_API IndexOutOfBounds : public Error {
 public:
  explicit IndexOutOfBounds(const std::string& what) : Error(Info::index_out_of_bounds, what) {}
};
class GEBLAS_API DimensionMismatch : public Error {
 public:
  explicit DimensionMismatch(const std::string& what) : Error(Info::dimension_mismatch, what) {}
};
class GEBLAS_API DomainMismatch : public Error {
 public:
  explicit DomainMismatch(const std::string& what) : Error(Info::domain_mismatch, what) {}
};
class GEBLAS_API DeviceMismatch : public Error {
 public:
  explicit DeviceMismatch(const std::string& what) : Error(Info::device_mismatch, what) {}
};
class GEBLAS_API NotImplemented : public Error {
 public:
  explicit NotImplemented(const std::string& what) : Error(Info::not_implemented, what) {}
};
class GEBLAS_API InvalidObject : public Error {
 public:
  explicit InvalidObject(const std::string& what) : Error(Info::invalid_object, what) {}
};
class GEBLAS_API OutOfMemory : public Error {
 public:
  OutOfMemory(const std::string& what, std::size_t bytes_requested);
  std::size_t bytes_requested() const noexcept { return bytes_; }

 private:
  std::size_t bytes_;
};
class GEBLAS_API IoError : public Error {
 public:
  explicit IoError(const std::string& what) : Error(Info::io_error, what) {}
};
// A malformed input file: what is wrong, in which file, on which line (1-based; 0 when
// the error is not tied to a line, e.g. a corrupted binary file).
class GEBLAS_API ParseError : public Error {
 public:
  ParseError(const std::string& file, long long line, const std::string& reason);
  const std::string& file() const noexcept { return file_; }
  long long line() const noexcept { return line_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_;
  long long line_;
  std::string reason_;
};
class GEBLAS_API CudaError : public Error {
 public:
  CudaError(const std::string& what, int cuda_code);
  int cuda_code() const noexcept { return code_; }

 private:
  int code_;
};

}  // namespace geblas
