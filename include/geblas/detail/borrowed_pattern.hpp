// A sparse matrix's pattern with other values, for the length of one call: the one-call
// operations that take per-entry values beside a matrix (the edge softmax on values in
// A's CSR order, the 16-bit paths that widen the values first) run the matrix kernels on
// it without copying the pattern.
#pragma once

#include "geblas/detail/storage.hpp"

namespace geblas::detail {

// S's row offsets and column indices, borrowed, holding `values` (S.nvals values of
// `type`, owned by the caller). Valid while S and the values are.
GEBLAS_API SparseStorage borrowed_pattern(const SparseStorage& S, void* values, TypeId type);

}  // namespace geblas::detail
