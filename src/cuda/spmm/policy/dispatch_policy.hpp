// Which CUDA-core SpMM variant runs a problem: the rules and the constants they were
// fitted with, in one place, keyed by the problem (N, A's row statistics, B's rows) and by
// what the GPU is (its L2 size), never by a device's name. The tensor-core route is
// decided before these rules (tc_window_forecast, with the cost model of tc_cost_model.hpp).
#pragma once

#include <cstddef>

#include "core/row_stats.hpp"
#include "cuda/spmm/variants.hpp"

namespace geblas::detail::cuda::spmm {

// The properties of a GPU the rules read, queried once per device.
struct GpuTraits {
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  int cc_major = 0, cc_minor = 0;
};
const GpuTraits& gpu_traits(int device);

// The variant for `p` (A's statistics `s`), with a short reason in `why`. Every variant
// it returns takes every fp32 / fp64 problem; for 16-bit ones the caller checks
// can_implement and falls back to small_graph_rules.
const SpmmVariant& pick_variant(const SpmmProblem& p, const RowStats& s, const GpuTraits& g, const char*& why);

// The rules for graphs below the nnz_split family's range; their variants take every
// problem the CUDA backend computes, 16-bit included.
const SpmmVariant& small_graph_rules(const SpmmProblem& p, const RowStats& s, const char*& why);

}  // namespace geblas::detail::cuda::spmm
