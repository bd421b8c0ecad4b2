// The CUDA backend's entries, declared from the backend table's list (core/backend.hpp):
// memory in src/cuda/backend.cu, sparse x dense in src/cuda/spmm/ (with its own
// dispatcher), every other operation in the file of its family in src/cuda/ops/.
#pragma once

#include "core/backend.hpp"
#include "core/with_semiring.hpp"

namespace geblas::detail::cuda::ops {

GEBLAS_BACKEND_ENTRIES(GEBLAS_DECLARE_BACKEND_ENTRY)

// The backend's table of the entries above.
const Backend& table();

}  // namespace geblas::detail::cuda::ops
