// Sparse x sparse by rows with hash tables (Gustavson's row-wise product, one table per
// output row), the GPU's general method for C = A (+).(x) B: spgemm_hash.cu explains it.
#pragma once

#include "cuda/ops/common.cuh"
#include "cuda/ops/runtime_ops.cuh"

namespace geblas::detail::cuda::ops {

// T = A (+).(x) B keeping only the entries `mask` allows (MaskView::none: all), rows
// sorted. Its workspace beyond A, B and T: four Index arrays of A's rows, and for the rows
// whose tables do not fit in shared memory at most HashSpgemmPolicy::global_pool_bytes of
// tables (or one table, where a single row needs more) and two copies of those rows.
void hash_product(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, const MaskView& mask, RtSemiring sr,
                  const Ctx& c);

}  // namespace geblas::detail::cuda::ops
