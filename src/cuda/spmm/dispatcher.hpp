// The SpMM dispatcher's choice of a variant from cheap facts about the problem (shape,
// N, A's cached row statistics), and the CUDA backend's mxm_sparse_dense entry.
#pragma once

#include <memory>
#include <string>

#include "core/backend.hpp"
#include "cuda/spmm/problem.hpp"

namespace geblas::detail::cuda::spmm {

// The problem C = A (+).(x) B as the variants see it, for the built-in semirings and the
// run-time ones alike (semiring, accumulate and allow_tf32 left to the caller). `stats`
// keeps A's cached row statistics alive while p.stats points at them.
SpmmProblem problem_of(const SparseStorage& A, const DenseStorage& B, DenseStorage& C,
                       std::shared_ptr<const RowStats>& stats);

// The variant the dispatcher picks for `p` (p.stats set), with the facts that chose it.
const SpmmVariant& choose_variant(const SpmmProblem& p, std::string& reason);

// Backend::mxm_sparse_dense for CUDA devices.
void mxm_sparse_dense(const SpmmArgs& args);

}  // namespace geblas::detail::cuda::spmm
