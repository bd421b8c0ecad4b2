// The validation step of mxm for run-time semirings (core/mxm.cpp's, without allocating
// the product when the kernel writes C directly).
#pragma once

#include "geblas/detail/mxm_plan.hpp"
#include "geblas/options.hpp"

namespace geblas::detail {

UserMxmPlan plan_jit_mxm(const DenseStorage& C, const SparseStorage& A, const DenseStorage& B, TypeId t,
                         const Options& o, bool allocate_product);

}  // namespace geblas::detail
