// The elementwise operation the sampled dense x dense product (SDDMM) applies to each
// entry it computes before the entry is written (and before an accumulator meets it): the
// scaled scores of attention (alpha = 1 / sqrt(k)) and the leaky ReLU of GAT's edge scores
// without a second pass over the values. Declared apart from mxm.hpp so that the backend
// table can name it without the whole mxm header.
#pragma once

#include <cstdint>
#include <string>

#include "geblas/config.hpp"

namespace geblas {

// f(x) for a computed entry x of type T, alpha converted to T:
//   identity:    x
//   scale:       alpha * x
//   leaky_relu:  x < 0 ? alpha * x : x      (alpha is the negative slope)
// Integer types need an integral alpha (the product stays exact) and bool takes only the
// identity; mxm throws InvalidValue otherwise.
struct SampledOp {
  enum class Kind : std::uint8_t { identity, scale, leaky_relu };
  Kind kind = Kind::identity;
  double alpha = 1.0;

  static constexpr SampledOp scale(double a) { return {Kind::scale, a}; }
  static constexpr SampledOp leaky_relu(double negative_slope) { return {Kind::leaky_relu, negative_slope}; }

  template <class T>
  GEBLAS_HD static T apply(Kind kind, T alpha, T x) {
    switch (kind) {
      case Kind::scale: return static_cast<T>(alpha * x);
      case Kind::leaky_relu: return x < T(0) ? static_cast<T>(alpha * x) : x;
      case Kind::identity: break;
    }
    return x;
  }
};

namespace detail {
// How a dispatch record's reason names f ("" for the identity).
inline std::string sampled_op_note(const SampledOp& f) {
  if (f.kind == SampledOp::Kind::identity) return "";
  return (f.kind == SampledOp::Kind::scale ? ", fused scale by " : ", fused leaky ReLU of slope ") +
         std::to_string(f.alpha);
}
}  // namespace detail

}  // namespace geblas
