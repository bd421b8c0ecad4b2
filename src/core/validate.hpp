// Checks shared by every operation's entry point: types, devices, shapes, masks and
// accumulators. Each throws the matching geblas::Error with the operation's name and
// the offending values.
#pragma once

#include <string>

#include "geblas/error.hpp"
#include "geblas/options.hpp"
#include "geblas/semiring.hpp"

namespace geblas::detail {

std::string shape(Index nrows, Index ncols);

void check_type(const char* op, const char* what, TypeId got, TypeId expected);
void check_device(const char* op, const char* what, Device got, Device expected);
void check_semiring(const char* op, SemiringId s, TypeId t);
// Accumulator: of the output's type, if any.
void check_accum(const char* op, const Options& o, TypeId output_type);
// Mask: of the output's shape (a Vector mask for a vector output, a matrix mask for a
// matrix output) and on the output's device.
void check_matrix_mask(const char* op, const Options& o, Index nrows, Index ncols, Device device);
void check_vector_mask(const char* op, const Options& o, Index size, Device device);

// The binary operator a semiring adds with (plus for plus_times, min for min_plus, ...).
BinaryOpId add_op_of(SemiringId s);

}  // namespace geblas::detail
