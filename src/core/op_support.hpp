// Pieces the non-mxm entry points share: checking an index list and placing it on the
// operation's device, scalars as ScalarBytes, and the identity a dense output takes.
#pragma once

#include "core/backend.hpp"
#include "geblas/operations/index_list.hpp"

namespace geblas::detail {

// An index list checked against its bound and copied to `device`; `view` points into
// `buffer` (or is `all`).
struct DeviceIndices {
  RawBuffer buffer;
  IndexArray view;
};

// Checks every index of `list` against [0, bound) (IndexOutOfBounds naming the
// operation, the argument, the position and the index), and with `unique` that no
// index repeats (InvalidIndex). `what` names the argument ("rows"), `bound_what` the
// dimension it indexes ("C's rows").
DeviceIndices upload_indices(const char* op, const char* what, const IndexList& list, Index bound,
                             const char* bound_what, bool unique, Device device);

// One value of `type` copied from host memory.
ScalarBytes scalar_from(const void* value, TypeId type);

// The value an absent entry of a dense output takes in operations without a monoid:
// zero of the type (all bytes zero is 0, 0.0 and false).
inline ScalarBytes zero_scalar() { return ScalarBytes{}; }

// `o` without its accumulator: what assign hands the write-back once the region step
// has applied the accumulator itself.
Options without_accum(const Options& o);

}  // namespace geblas::detail
