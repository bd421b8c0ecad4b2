// Walking every entry of a CSR matrix with the row it belongs to, balanced by entries
// rather than rows: each thread takes a run of consecutive entries, finds the first
// one's row by binary search and steps forward from there (searching again only past an
// empty stretch). A hub row is then spread over many threads and a road graph's short
// rows cost no idle lanes, which a thread- or warp-per-row loop cannot both give.
#pragma once

#include "cuda/ops/common.cuh"

namespace geblas::detail::cuda::graph {

struct EntryWalkPolicy {
  // Entries per thread: enough to amortise the binary search (about log2(n) reads of
  // the offsets, which sit in L2), few enough that a warp's loads stay within a few
  // cache lines. Chosen by that reasoning, not yet measured on the H100.
  static constexpr int entries_per_thread = 4;
};

template <class F>
__global__ void for_each_entry_kernel(const Index* ro, Index nrows, Index nvals, F f) {
  constexpr int per = EntryWalkPolicy::entries_per_thread;
  const Index runs = (nvals + per - 1) / per;
  for (Index r = Index(blockIdx.x) * blockDim.x + threadIdx.x; r < runs; r += Index(gridDim.x) * blockDim.x) {
    const Index begin = r * per, end = begin + per < nvals ? begin + per : nvals;
    Index i = ops::row_of_entry(ro, nrows, begin);
    Index row_end = ro[i + 1];
    for (Index k = begin; k < end; ++k) {
      if (k >= row_end) {
        i = ops::row_of_entry(ro, nrows, k, i + 1);
        row_end = ro[i + 1];
      }
      f(i, k);
    }
  }
}

// f(i, k) for every entry k of the CSR matrix with row offsets ro, k in row i.
template <class F>
void for_each_entry(const Index* ro, Index nrows, Index nvals, cudaStream_t s, F f) {
  if (nvals <= 0) return;
  const Index runs = (nvals + EntryWalkPolicy::entries_per_thread - 1) / EntryWalkPolicy::entries_per_thread;
  for_each_entry_kernel<<<ops::blocks_for(runs), ops::LaunchPolicy::threads, 0, s>>>(ro, nrows, nvals, f);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

}  // namespace geblas::detail::cuda::graph
