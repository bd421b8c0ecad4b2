// Predicates for select(): keep the entries A(i, j) for which the predicate holds
// (GraphBLAS's index-unary operators). Position predicates take an offset k: tril{k}
// keeps j <= i + k; value predicates compare with a threshold of the matrix's type.
#pragma once

#include <cstdint>

#include "geblas/types.hpp"

namespace geblas {

enum class SelectOpId : std::uint8_t {
  tril, triu, diag, offdiag,                     // position relative to diagonal k
  row_le, row_gt, col_le, col_gt,                // i <= k, i > k, j <= k, j > k
  value_eq, value_ne, value_lt, value_le, value_gt, value_ge, nonzero,
};

namespace selectop {

struct tril { Index k = 0; static constexpr SelectOpId id = SelectOpId::tril; };
struct triu { Index k = 0; static constexpr SelectOpId id = SelectOpId::triu; };
struct diag { Index k = 0; static constexpr SelectOpId id = SelectOpId::diag; };
struct offdiag { Index k = 0; static constexpr SelectOpId id = SelectOpId::offdiag; };
struct row_le { Index k = 0; static constexpr SelectOpId id = SelectOpId::row_le; };
struct row_gt { Index k = 0; static constexpr SelectOpId id = SelectOpId::row_gt; };
struct col_le { Index k = 0; static constexpr SelectOpId id = SelectOpId::col_le; };
struct col_gt { Index k = 0; static constexpr SelectOpId id = SelectOpId::col_gt; };
template <class T> struct value_eq { T threshold{}; static constexpr SelectOpId id = SelectOpId::value_eq; };
template <class T> struct value_ne { T threshold{}; static constexpr SelectOpId id = SelectOpId::value_ne; };
template <class T> struct value_lt { T threshold{}; static constexpr SelectOpId id = SelectOpId::value_lt; };
template <class T> struct value_le { T threshold{}; static constexpr SelectOpId id = SelectOpId::value_le; };
template <class T> struct value_gt { T threshold{}; static constexpr SelectOpId id = SelectOpId::value_gt; };
template <class T> struct value_ge { T threshold{}; static constexpr SelectOpId id = SelectOpId::value_ge; };
struct nonzero { static constexpr SelectOpId id = SelectOpId::nonzero; };

}  // namespace selectop

}  // namespace geblas
