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
  return static_cast<int>(id) < semiring_count ? semiring_info(id).name : "?";
}

SemiringId semiring_from_string(const char* name) {
  for (int k = 0; k < semiring_count; ++k)
    if (std::strcmp(name, semiring_table[k].name) == 0) return static_cast<SemiringId>(k);
  std::string known;
  for (int k = 0; k < semiring_count; ++k) known += std::string(k ? ", " : "") + semiring_table[k].name;
  throw InvalidValue(std::string("unknown semiring '") + name + "' (known: " + known + ")");
}

namespace detail {
void throw_unknown_semiring(SemiringId id) {
  throw InvalidValue("unknown built-in semiring id " + std::to_string(static_cast<int>(id)) + " (there are " +
                     std::to_string(semiring_count) + ")");
}
}  // namespace detail

}  // namespace geblas
