// gather_rows (row_gather.hpp). A group of lanes per row, as many as the row has words
// (up to a warp), so that a wide row (N = 256 floats: 64 16-byte words) is read by a
// warp in two coalesced loads and a narrow one (PageRank's N = 1) by one lane, with 32
// rows per warp. Grid-stride over the rows; the caller sizes the grid (the pack of a
// product runs beside the rank's owned product, on a part of each SM).
#include "distributed/row_gather.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include "distributed/cuda_calls.hpp"

namespace geblas::dist::detail {
namespace {

constexpr int kThreads = 256;  // threads per block

template <class Word>
__global__ void gather_rows_kernel(Word* __restrict__ dst, const Word* __restrict__ src,
                                   const std::int32_t* __restrict__ index, std::size_t rows, std::size_t words,
                                   int group) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t groups = static_cast<std::size_t>(gridDim.x) * blockDim.x / static_cast<std::size_t>(group);
  const std::size_t lane = thread % static_cast<std::size_t>(group);
  for (std::size_t i = thread / static_cast<std::size_t>(group); i < rows; i += groups) {
    const Word* from = src + static_cast<std::size_t>(index[i]) * words;
    Word* to = dst + i * words;
#pragma unroll 4
    for (std::size_t w = lane; w < words; w += static_cast<std::size_t>(group)) to[w] = from[w];
  }
}

template <class Word>
void launch(cudaStream_t s, void* dst, const void* src, const std::int32_t* index, std::size_t rows,
            std::size_t row_bytes, int sms, int blocks_per_sm) {
  const std::size_t words = row_bytes / sizeof(Word);
  int group = 1;  // the power of two >= words, at most a warp
  while (group < 32 && static_cast<std::size_t>(group) < words) group *= 2;
  const std::size_t threads = rows * static_cast<std::size_t>(group);
  const int blocks = static_cast<int>(
      std::min<std::size_t>((threads + kThreads - 1) / kThreads, static_cast<std::size_t>(sms) * static_cast<std::size_t>(blocks_per_sm)));
  gather_rows_kernel<Word>
      <<<blocks, kThreads, 0, s>>>(static_cast<Word*>(dst), static_cast<const Word*>(src), index, rows, words, group);
}

bool aligned(const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

}  // namespace

void gather_rows(void* stream, void* dst, const void* src, const std::int32_t* index, std::size_t rows,
                 std::size_t row_bytes, int blocks_per_sm) {
  if (rows == 0 || row_bytes == 0) return;
  blocks_per_sm = std::max(blocks_per_sm, 1);
  const auto s = static_cast<cudaStream_t>(stream);
  int device = 0, sms = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  // the widest word that divides the rows and both addresses
  if (row_bytes % 16 == 0 && aligned(dst, 16) && aligned(src, 16))
    launch<uint4>(s, dst, src, index, rows, row_bytes, sms, blocks_per_sm);
  else if (row_bytes % 4 == 0 && aligned(dst, 4) && aligned(src, 4))
    launch<unsigned>(s, dst, src, index, rows, row_bytes, sms, blocks_per_sm);
  else launch<unsigned char>(s, dst, src, index, rows, row_bytes, sms, blocks_per_sm);
  cuda_check(cudaGetLastError(), "gather_rows launch");
}

}  // namespace geblas::dist::detail
