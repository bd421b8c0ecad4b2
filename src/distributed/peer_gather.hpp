// The receiver's side of a row exchange between GPUs that can read each other's memory
// (one process, peer access): the receiving GPU gathers the rows it needs straight from
// the owner's B, so the owner packs nothing and no copy engine is involved.
#pragma once

#include <cstddef>
#include <cstdint>

namespace geblas::dist::detail {

// Queues on `stream` (a cudaStream_t of the device that owns `dst`): for i < rows, row
// index[i] of `src` (rows of row_bytes bytes, memory of any GPU this device can read) is
// copied to row i of `dst`. `index` is memory of dst's device. CudaError on a failed launch.
void gather_rows(void* stream, void* dst, const void* src, const std::int32_t* index, std::size_t rows,
                 std::size_t row_bytes);

}  // namespace geblas::dist::detail
