// gather_rows (row_gather.hpp). A group of lanes per row, as many as the row has words
// (up to a warp), so that a wide row (N = 256 floats: 64 16-byte words) is read by a
// warp in two coalesced loads and a narrow one (PageRank's N = 1) by one lane, with 32
// rows per warp. Grid-stride over the rows, the grid filling the device: the pack runs
// alone on the rank's stream, before its owned product.
#include "distributed/row_gather.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include "distributed/cuda_calls.hpp"

namespace geblas::dist::detail {
namespace {

// Tuning: threads per block and the most blocks per SM of the grid.
constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;

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
    for (std::size_t w = lane; w < words; w += static_cast<std::size_t>(group)) to[w] = from[w];
  }
}

template <class Word>
void launch(cudaStream_t s, void* dst, const void* src, const std::int32_t* index, std::size_t rows,
            std::size_t row_bytes, int sms) {
  const std::size_t words = row_bytes / sizeof(Word);
  int group = 1;  // the power of two >= words, at most a warp
  while (group < 32 && static_cast<std::size_t>(group) < words) group *= 2;
  const std::size_t threads = rows * static_cast<std::size_t>(group);
  const int blocks = static_cast<int>(
      std::min<std::size_t>((threads + kThreads - 1) / kThreads, static_cast<std::size_t>(sms) * kBlocksPerSm));
  gather_rows_kernel<Word>
      <<<blocks, kThreads, 0, s>>>(static_cast<Word*>(dst), static_cast<const Word*>(src), index, rows, words, group);
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
  // the widest word that divides the rows and both addresses
  if (row_bytes % 16 == 0 && aligned(dst, 16) && aligned(src, 16))
    launch<uint4>(s, dst, src, index, rows, row_bytes, sms);
  else if (row_bytes % 4 == 0 && aligned(dst, 4) && aligned(src, 4))
    launch<unsigned>(s, dst, src, index, rows, row_bytes, sms);
  else launch<unsigned char>(s, dst, src, index, rows, row_bytes, sms);
  cuda_check(cudaGetLastError(), "gather_rows launch");
}

}  // namespace geblas::dist::detail
