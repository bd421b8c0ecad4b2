// The CPU sparse x sparse product for the built-in semirings (spgemm.cpp): Gustavson row
// by row, each row accumulated in a dense accumulator, a hash table or (under a sparse
// mask much sparser than the product) by dot products, chosen per row from the upper
// bound of its products. User-defined semirings use the generic kernel of
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
// "hash", "dense" and "dot" force one accumulator for every row ("dot" needs a sparse,
// non-complemented mask). Records the method and its row counts in `record`.
SparseStorage spgemm_builtin(const SparseStorage& A, const SparseStorage& B, SemiringId s, const Mask& mask,
                             std::string_view variant, DispatchRecord& record);

}  // namespace geblas::detail::cpu
