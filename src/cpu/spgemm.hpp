// The CPU sparse x sparse product for the built-in semirings (spgemm.cpp): Gustavson row
// by row, each row accumulated in a small sorted array (a few products), a dense
// accumulator, a hash table or (under a sparse mask much sparser than the product) by dot
// products, chosen per row from the upper bound of its products. User-defined semirings use the generic kernel of
// include/geblas/detail/cpu/spgemm.hpp instead.
#pragma once

#include <string_view>

#include "geblas/detail/storage.hpp"
#include "geblas/mask.hpp"
#include "geblas/semiring.hpp"
#include "geblas/trace.hpp"

namespace geblas::detail::cpu {

// T = A (+).(x) B, computed only where `mask` allows (the mask is applied again by the
// write-back; here it only skips work). `variant`: "" or "gustavson" choose per row;
// "hash", "dense", "esc" and "dot" force one accumulator for every row ("dot" needs a
// sparse, non-complemented mask); a suffix "+one_pass" or "+two_pass" forces how C is
// assembled (spgemm.cpp). Records the method, its row counts and the passes in `record`.
SparseStorage spgemm_builtin(const SparseStorage& A, const SparseStorage& B, SemiringId s, const Mask& mask,
                             std::string_view variant, DispatchRecord& record);

}  // namespace geblas::detail::cpu
