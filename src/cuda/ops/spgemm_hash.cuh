// Sparse x sparse by rows with hash tables (Gustavson's row-wise product, one table per
// output row), the GPU's general method for C = A (+).(x) B: spgemm_hash.cu explains it.
#pragma once

#include "cuda/ops/common.cuh"
#include "cuda/ops/runtime_ops.cuh"

namespace geblas::detail::cuda::ops {

// T = A (+).(x) B keeping only the entries `mask` allows (MaskView::none: all; products
// outside it are dropped before any arithmetic, in both passes), rows sorted. Its device
// memory beyond A, B and the mask: T and a workspace bounded as spgemm_hash.cu's opening
// comment states (the row arrays, at most HashSpgemmPolicy::global_pool_bytes of tables
// and hub_chunk_bytes of hub rows, where no single row needs more). OutOfMemory, before
// T is allocated, when T and the fill pass's workspace exceed the device's free memory.
void hash_product(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, const MaskView& mask, RtSemiring sr,
                  const Ctx& c);

}  // namespace geblas::detail::cuda::ops
