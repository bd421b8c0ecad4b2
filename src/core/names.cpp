// Printable names of the built-in operators, monoids and semirings.
#include <cstring>
#include <string>

#include "geblas/error.hpp"
#include "geblas/semiring.hpp"
#include "geblas/unary_op.hpp"

namespace geblas {

const char* to_string(BinaryOpId id) {
  switch (id) {
    case BinaryOpId::none: return "none";
    case BinaryOpId::first: return "first";
    case BinaryOpId::second: return "second";
    case BinaryOpId::pair: return "pair";
    case BinaryOpId::any: return "any";
    case BinaryOpId::plus: return "plus";
    case BinaryOpId::minus: return "minus";
    case BinaryOpId::rminus: return "rminus";
    case BinaryOpId::times: return "times";
    case BinaryOpId::div: return "div";
    case BinaryOpId::rdiv: return "rdiv";
    case BinaryOpId::min: return "min";
    case BinaryOpId::max: return "max";
    case BinaryOpId::lor: return "lor";
    case BinaryOpId::land: return "land";
    case BinaryOpId::lxor: return "lxor";
    case BinaryOpId::eq: return "eq";
    case BinaryOpId::ne: return "ne";
    case BinaryOpId::gt: return "gt";
    case BinaryOpId::lt: return "lt";
    case BinaryOpId::ge: return "ge";
    case BinaryOpId::le: return "le";
  }
  return "?";
}

const char* to_string(MonoidId id) {
  switch (id) {
    case MonoidId::plus: return "plus";
    case MonoidId::times: return "times";
    case MonoidId::min: return "min";
    case MonoidId::max: return "max";
    case MonoidId::lor: return "lor";
    case MonoidId::land: return "land";
    case MonoidId::lxor: return "lxor";
    case MonoidId::any: return "any";
  }
  return "?";
}

const char* to_string(UnaryOpId id) {
  switch (id) {
    case UnaryOpId::identity: return "identity";
    case UnaryOpId::ainv: return "ainv";
    case UnaryOpId::minv: return "minv";
    case UnaryOpId::abs: return "abs";
    case UnaryOpId::lnot: return "lnot";
    case UnaryOpId::one: return "one";
    case UnaryOpId::sqrt: return "sqrt";
    case UnaryOpId::exp: return "exp";
    case UnaryOpId::log: return "log";
  }
  return "?";
}

const char* to_string(SemiringId id) {
  switch (id) {
    case SemiringId::plus_times: return "plus_times";
    case SemiringId::max_times: return "max_times";
    case SemiringId::min_plus: return "min_plus";
    case SemiringId::max_plus: return "max_plus";
    case SemiringId::min_times: return "min_times";
    case SemiringId::max_min: return "max_min";
    case SemiringId::min_max: return "min_max";
    case SemiringId::lor_land: return "lor_land";
    case SemiringId::plus_pair: return "plus_pair";
    case SemiringId::min_second: return "min_second";
    case SemiringId::any_second: return "any_second";
    case SemiringId::plus_second: return "plus_second";
  }
  return "?";
}

SemiringId semiring_from_string(const char* name) {
  for (int k = 0; k < semiring_count; ++k) {
    const auto id = static_cast<SemiringId>(k);
    if (std::strcmp(name, to_string(id)) == 0) return id;
  }
  std::string known;
  for (int k = 0; k < semiring_count; ++k) known += std::string(k ? ", " : "") + to_string(static_cast<SemiringId>(k));
  throw InvalidValue(std::string("unknown semiring '") + name + "' (known: " + known + ")");
}

}  // namespace geblas
