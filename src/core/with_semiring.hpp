// The one way a backend turns a runtime SemiringId into the semiring type its kernel
// templates take: only the (semiring, type) pairs libgeblas.so supports are compiled.
#pragma once

#include <string>

#include "geblas/error.hpp"
#include "geblas/semiring.hpp"
#include "geblas/types.hpp"

namespace geblas::detail {

// Calls f.template operator()<S>() with semiring::<name><T> for the built-in `s`. The
// core checks supports_semiring before any backend runs (check_semiring), so an
// unsupported pair here is a caller's bug: it throws DomainMismatch naming both rather
// than skipping the product and leaving the output unwritten.
template <class T, class F>
void with_semiring(SemiringId s, F&& f) {
  visit_semiring<T>(s, [&]<class S>() {
    if constexpr (supports_semiring(S::id, type_id<T>)) f.template operator()<S>();
    else
      throw DomainMismatch(std::string("built-in semiring ") + to_string(s) + " is not compiled for " +
                           std::string(to_string(type_id<T>)));
  });
}

}  // namespace geblas::detail
