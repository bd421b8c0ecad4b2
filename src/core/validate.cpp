#include "core/validate.hpp"

namespace geblas::detail {

std::string shape(Index nrows, Index ncols) { return std::to_string(nrows) + " x " + std::to_string(ncols); }

void check_type(const char* op, const char* what, TypeId got, TypeId expected) {
  if (got != expected)
    throw DomainMismatch(std::string(op) + ": " + what + " is " + std::string(to_string(got)) + ", expected " +
                         std::string(to_string(expected)));
}

void check_device(const char* op, const char* what, Device got, Device expected) {
  if (got != expected)
    throw DeviceMismatch(std::string(op) + ": " + what + " is on " + got.str() + " but the operation runs on " +
                         expected.str() + "; move it with .to(device) first");
}

void check_semiring(const char* op, SemiringId s, TypeId t) {
  if (supports_semiring(s, t)) return;
  std::string takes;
  for (int k = 0; k < semiring_count; ++k)
    if (supports_semiring(static_cast<SemiringId>(k), t)) takes += std::string(takes.empty() ? "" : ", ") + semiring_table[k].name;
  throw DomainMismatch(std::string(op) + ": built-in semiring " + to_string(s) + " is not defined for " +
                       std::string(to_string(t)) + " (" + std::string(to_string(t)) + " takes " + takes + ")");
}

void check_accum(const char* op, const Options& o, TypeId output_type) {
  if (!o.accum.empty() && o.accum.type != output_type)
    throw DomainMismatch(std::string(op) + ": accumulator " + to_string(o.accum.op) + " is of type " +
                         std::string(to_string(o.accum.type)) + ", the output is " +
                         std::string(to_string(output_type)));
}

void check_matrix_mask(const char* op, const Options& o, Index nrows, Index ncols, Device device) {
  const Mask& m = o.mask;
  switch (m.kind()) {
    case Mask::Kind::none: return;
    case Mask::Kind::vector:
      throw InvalidValue(std::string(op) + ": a Vector mask for a matrix output");
    case Mask::Kind::sparse:
      if (m.sparse()->nrows != nrows || m.sparse()->ncols != ncols)
        throw DimensionMismatch(std::string(op) + ": mask is " + shape(m.sparse()->nrows, m.sparse()->ncols) +
                                ", output is " + shape(nrows, ncols));
      check_device(op, "the mask", m.sparse()->device, device);
      return;
    case Mask::Kind::dense:
      if (m.dense()->nrows != nrows || m.dense()->ncols != ncols)
        throw DimensionMismatch(std::string(op) + ": mask is " + shape(m.dense()->nrows, m.dense()->ncols) +
                                ", output is " + shape(nrows, ncols));
      check_device(op, "the mask", m.dense()->device, device);
      return;
  }
}

void check_vector_mask(const char* op, const Options& o, Index size, Device device) {
  const Mask& m = o.mask;
  if (m.empty()) return;
  if (m.kind() != Mask::Kind::vector) throw InvalidValue(std::string(op) + ": a matrix mask for a vector output");
  if (m.vector()->size != size)
    throw DimensionMismatch(std::string(op) + ": mask has size " + std::to_string(m.vector()->size) +
                            ", output has size " + std::to_string(size));
  check_device(op, "the mask", m.vector()->device, device);
}

BinaryOpId add_op_of(SemiringId s) {
  // Every built-in add monoid is named after its binary operator (monoid::X<T>::op is
  // binop::X<T>), so the operator's id is the monoid's name.
  switch (semiring_info(s).add) {
#define GEBLAS_MONOID_OP(NAME) \
  case MonoidId::NAME: return BinaryOpId::NAME;
    GEBLAS_MONOID_OP(plus) GEBLAS_MONOID_OP(times) GEBLAS_MONOID_OP(min) GEBLAS_MONOID_OP(max)
    GEBLAS_MONOID_OP(lor) GEBLAS_MONOID_OP(land) GEBLAS_MONOID_OP(lxor) GEBLAS_MONOID_OP(any)
#undef GEBLAS_MONOID_OP
  }
  return BinaryOpId::none;
}

}  // namespace geblas::detail
