// The packing of a row exchange on a GPU: the rows a peer needs, gathered from the
// rank's rows of B into one contiguous send buffer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace geblas::dist::detail {

// Queues on `stream` (a cudaStream_t of the current device, as void*): for i < rows, row
// index[i] of `src` (rows of row_bytes bytes) is copied to row i of `dst`; all three are
// memory of the current device. CudaError on a failed launch.
void gather_rows(void* stream, void* dst, const void* src, const std::int32_t* index, std::size_t rows,
                 std::size_t row_bytes);

}  // namespace geblas::dist::detail
