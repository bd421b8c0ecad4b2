// The SpMM dispatcher's choice of a variant from cheap facts about the problem (shape,
// N, A's cached row statistics), and the CUDA backend's mxm_sparse_dense entry.
#pragma once

#include <string>

#include "core/backend.hpp"
#include "cuda/spmm/problem.hpp"

namespace geblas::detail::cuda::spmm {

// The variant the dispatcher picks for `p` (p.stats set), with the facts that chose it.
const SpmmVariant& choose_variant(const SpmmProblem& p, std::string& reason);

// Backend::mxm_sparse_dense for CUDA devices.
void mxm_sparse_dense(const SpmmArgs& args);

}  // namespace geblas::detail::cuda::spmm
