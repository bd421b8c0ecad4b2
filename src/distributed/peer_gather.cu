// gather_rows (peer_gather.hpp). One warp per row, the rows strided over a grid of at
// most a few blocks per SM: the reads cross NVLink and are bound by it, so a small grid
// keeps enough of them in flight while leaving most of each SM to the product that
// runs beside the gather (dist::mxm's owned columns) on another stream.
#include "distributed/peer_gather.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include "distributed/cuda_calls.hpp"

namespace geblas::dist::detail {
namespace {

// Tuning: threads per block and blocks per SM of the gather's grid.
constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 2;

template <class Word>
__global__ void gather_rows_kernel(Word* __restrict__ dst, const Word* __restrict__ src,
                                   const std::int32_t* __restrict__ index, std::size_t rows, std::size_t words) {
  const int lane = threadIdx.x % 32;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * (blockDim.x / 32);
  for (std::size_t i = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; i < rows; i += warps) {
    const Word* from = src + static_cast<std::size_t>(index[i]) * words;
    Word* to = dst + i * words;
    for (std::size_t w = lane; w < words; w += 32) to[w] = from[w];
  }
}

template <class Word>
void launch(cudaStream_t s, void* dst, const void* src, const std::int32_t* index, std::size_t rows,
            std::size_t row_bytes, int blocks) {
  gather_rows_kernel<Word><<<blocks, kThreads, 0, s>>>(static_cast<Word*>(dst), static_cast<const Word*>(src), index,
                                                        rows, row_bytes / sizeof(Word));
}

bool aligned(const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

}  // namespace

void gather_rows(void* stream, void* dst, const void* src, const std::int32_t* index, std::size_t rows,
                 std::size_t row_bytes) {
  if (rows == 0 || row_bytes == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  int device = 0, sms = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  const std::size_t warps_needed = rows, warps_per_block = kThreads / 32;
  const int blocks = static_cast<int>(
      std::min<std::size_t>((warps_needed + warps_per_block - 1) / warps_per_block, static_cast<std::size_t>(sms) * kBlocksPerSm));
  // the widest word that divides the rows and both addresses
  if (row_bytes % 16 == 0 && aligned(dst, 16) && aligned(src, 16)) launch<uint4>(s, dst, src, index, rows, row_bytes, blocks);
  else if (row_bytes % 4 == 0 && aligned(dst, 4) && aligned(src, 4)) launch<unsigned>(s, dst, src, index, rows, row_bytes, blocks);
  else launch<unsigned char>(s, dst, src, index, rows, row_bytes, blocks);
  cuda_check(cudaGetLastError(), "gather_rows launch");
}

}  // namespace geblas::dist::detail
