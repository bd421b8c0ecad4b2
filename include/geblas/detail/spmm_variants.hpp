// For tests and benchmarks of the CUDA SpMM: the names of the kernel variants compiled
// into libgeblas.so (to force each one through Options::variant; empty without CUDA)
// and the stream geblas works on.
#pragma once

#include <string>
#include <vector>

#include "geblas/config.hpp"

namespace geblas::detail {

GEBLAS_API std::vector<std::string> cuda_spmm_variant_names();

// The cudaStream_t (as void*) on which geblas queues this thread's work for CUDA device
// `ordinal` (geblas::cuda::current_stream: a StreamGuard's stream, else geblas's own), so
// that a benchmark can time geblas with CUDA events on that stream and run other
// libraries on it. Null without CUDA.
GEBLAS_API void* cuda_stream_handle(int ordinal);

}  // namespace geblas::detail
