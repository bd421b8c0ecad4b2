// binary_op.hpp's all-NaN rule for the kernels that fold from an entry's first term
// rather than from the add monoid's identity (sparse outputs, merged partial results):
// the first term goes through this before it becomes the accumulator, so an entry whose
// terms are all NaN ends as the identity on every kernel and device, as it does in the
// kernels that start from the identity.
#pragma once

#include <type_traits>

#include "geblas/config.hpp"
#include "geblas/monoid.hpp"

namespace geblas::detail {

// What a reduction from the identity makes of a first term: for max and min on floating
// point a NaN becomes the identity (fmax / fmin drop it); every other term and every other
// add is left as it is (plus would turn -0 into +0, and `any` has no neutral identity).
template <class T>
GEBLAS_HD T first_term(MonoidId add, T term) {
  if constexpr (std::is_floating_point_v<T>) {
    if (term != term) {
      if (add == MonoidId::min) return upper_bound_value<T>();
      if (add == MonoidId::max) return lower_bound_value<T>();
    }
  }
  return term;
}

// The same for a semiring known at compile time (a user-defined add keeps its term).
template <class S, class T>
GEBLAS_HD T first_term_for(T term) {
  if constexpr (requires { S::add_monoid::id; }) return first_term<T>(S::add_monoid::id, term);
  else return term;
}

}  // namespace geblas::detail
