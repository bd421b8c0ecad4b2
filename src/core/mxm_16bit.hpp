// Sparse x dense mxm on half / bfloat16 where it widens to float (see mxm_16bit.cpp);
// mxm.cpp sends the direct GPU case to the backend's 16-bit kernels instead.
#pragma once

#include "core/backend.hpp"

namespace geblas::detail {

// C<M> = accum(C, A (+).(x) B) with C, A, B all float16 or all bfloat16 (DomainMismatch
// otherwise), any built-in semiring but lor_land, computed in float and rounded into C.
void mxm_widened_16bit(DenseStorage& C, const SparseStorage& A, const DenseStorage& B, SemiringId s, const Options& o);

}  // namespace geblas::detail
