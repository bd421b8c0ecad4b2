// Error classes and names of the Info codes.
#include "geblas/error.hpp"
#include "geblas/types.hpp"

namespace geblas {

const char* to_string(Info info) {
  switch (info) {
    case Info::uninitialized_object: return "uninitialized object";
    case Info::null_pointer: return "null pointer";
    case Info::invalid_value: return "invalid value";
    case Info::invalid_index: return "invalid index";
    case Info::domain_mismatch: return "domain mismatch";
    case Info::dimension_mismatch: return "dimension mismatch";
    case Info::output_not_empty: return "output not empty";
    case Info::not_implemented: return "not implemented";
    case Info::device_mismatch: return "device mismatch";
    case Info::out_of_memory: return "out of memory";
    case Info::insufficient_space: return "insufficient space";
    case Info::invalid_object: return "invalid object";
    case Info::index_out_of_bounds: return "index out of bounds";
    case Info::empty_object: return "empty object";
    case Info::parse_error: return "parse error";
    case Info::io_error: return "i/o error";
    case Info::cuda_error: return "CUDA error";
    case Info::panic: return "panic";
  }
  return "unknown";
}

Error::Error(Info info, const std::string& what)
    : std::runtime_error("geblas: " + std::string(to_string(info)) + ": " + what), info_(info) {}

OutOfMemory::OutOfMemory(const std::string& what, std::size_t bytes_requested)
    : Error(Info::out_of_memory, what), bytes_(bytes_requested) {}

namespace {
std::string located(const std::string& file, long long line, const std::string& reason) {
  std::string out = file;
  if (line > 0) {
    out += ':';
    out += std::to_string(line);
  }
  out += ": ";
  out += reason;
  return out;
}
}  // namespace

ParseError::ParseError(const std::string& file, long long line, const std::string& reason)
    : Error(Info::parse_error, located(file, line, reason)),
      file_(file), line_(line), reason_(reason) {}

CudaError::CudaError(const std::string& what, int cuda_code)
    : Error(Info::cuda_error, what), code_(cuda_code) {}

}  // namespace geblas

namespace geblas::detail {

void throw_16bit_not_computed(TypeId t) {
  throw NotImplemented("this operation computes on float32 and float64, not on " + std::string(to_string(t)) +
                       " (16-bit values are stored for sparse x dense mxm; geblas::convert them to float32 "
                       "for other operations)");
}

}  // namespace geblas::detail
