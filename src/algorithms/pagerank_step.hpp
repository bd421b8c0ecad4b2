// The slot through which a backend offers PageRank's iteration fused into one pass, so
// that plain PageRank on the GPU costs about one SpMV per iteration. The CUDA backend
// fills it when libgeblas.so is loaded (src/cuda/ops/mxv.cu); where it stays empty
// (built without CUDA), the iteration runs as separate operations.
#pragma once

#include "geblas/detail/storage.hpp"

namespace geblas::algo::detail {

// On dense arrays of P.nrows values of P's type (float or double) on P's device (a
// CUDA device): x_new = P x + c; returns sum_i |x_new(i) - x(i)| on the host. P square.
using PageRankStep = double (*)(const geblas::detail::SparseStorage& P, const void* x, void* x_new, double c);

// The slot (defined in pagerank.cpp).
PageRankStep& cuda_pagerank_step();

}  // namespace geblas::algo::detail
