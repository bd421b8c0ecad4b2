// Options of an operation: GraphBLAS's mask, accumulator and descriptor in one struct,
// meant for designated initialisers:
//   mxm(C, A, B, semiring::plus_times<float>{}, {.accum = binop::plus<float>{}});
#pragma once

#include <string_view>

#include "geblas/binary_op.hpp"
#include "geblas/mask.hpp"

namespace geblas {

// C = accum(C, T) instead of C = T. Built-in binary operators only.
struct Accum {
  BinaryOpId op = BinaryOpId::none;
  TypeId type = TypeId::float32;
  Accum() = default;
  template <BuiltinBinaryOp Op>
  Accum(Op) : op(Op::id), type(type_id<typename Op::value_type>) {}  // NOLINT: implicit by design
  bool empty() const { return op == BinaryOpId::none; }
};

struct Options {
  Mask mask{};               // write only where the mask allows (none: everywhere)
  Accum accum{};             // combine with the old C (none: overwrite)
  bool replace = false;      // entries of C outside the mask are cleared (dense: identity)
  bool transpose_a = false;  // use A^T (on the GPU through a cached transpose of A)
  bool transpose_b = false;
  // Force a kernel variant by name ("" lets the dispatcher choose), e.g. "crc",
  // "row_split", "merge_path". An unknown or inapplicable name is an InvalidValue
  // error, never a silent fallback. Meant for tests and benchmarks.
  std::string_view variant{};
  // Let float products run on tensor cores in TF32 (10-bit mantissa inputs, fp32
  // accumulation; expect a relative error near 1e-3 instead of fp32's 1e-6). Off by
  // default: without it the dispatcher never picks a tensor-core variant for float,
  // and forcing one ("tc_window", "tc_window_all") is an InvalidValue error.
  bool allow_tf32 = false;
};

}  // namespace geblas
