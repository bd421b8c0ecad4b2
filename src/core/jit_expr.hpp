// The expression language of run-time semirings (include/geblas/jit.hpp documents the
// grammar): a parser that types each node by C's usual arithmetic conversions, an
// interpreter that runs it on the CPU, and an emitter that prints the same typed tree as
// CUDA C++ for NVRTC, so that the CPU and the GPU compute the same function by
// construction (integer overflow wraps, division by zero and float-to-integer
// conversions are defined, both sides the same way).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "geblas/types.hpp"

namespace geblas::detail::jit {

// The types an expression computes in (C's promoted types: bool and int32 are `int`).
enum class Ty : std::uint8_t { i32, i64, f32, f64 };

// One value of an expression: integers in i, floating values in d (a float is a double
// holding a float exactly).
struct Value {
  std::int64_t i = 0;
  double d = 0;
};

class Expr {
 public:
  // Parses `text` over operands a and b of `value_type` (with_operands false: a constant,
  // such as an identity). `what` names the text in errors, which give the column.
  static Expr parse(std::string_view text, TypeId value_type, bool with_operands, const std::string& what);

  bool uses_a() const { return uses_a_; }
  bool uses_b() const { return uses_b_; }

  // The value for operands a and b, converted to the value type (stored in Value by
  // the value type: integers and bool in i, float and double in d).
  Value eval(Value a, Value b) const;
  template <class T>
  T eval_as(T a, T b) const {
    Value va, vb;
    if constexpr (std::is_floating_point_v<T>) va.d = a, vb.d = b;
    else va.i = static_cast<std::int64_t>(a), vb.i = static_cast<std::int64_t>(b);
    const Value r = eval(va, vb);
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(r.d);
    else return static_cast<T>(r.i);
  }

  // CUDA C++ for the expression converted to the value type, over variables `a` and `b`
  // of that type; it calls the helpers of cuda_prelude().
  std::string cuda() const;

 private:
  struct Node {
    enum class Kind : std::uint8_t { literal, var_a, var_b, unary, binary, conditional, call } kind;
    Ty ty = Ty::i32;
    char op = 0;          // unary: - ! ; binary: + - * / % < > l(<=) g(>=) e(==) n(!=) & (&&) | (||)
    std::string fn;       // call: min max fmin fmax abs fabs
    Value lit;
    int kids[3] = {-1, -1, -1};
  };
  friend class Parser;

  Value eval_node(int n, const Value& a, const Value& b) const;
  std::string emit(int n) const;
  std::string emit_as(int n, Ty to) const;

  std::vector<Node> nodes_;
  int root_ = -1;
  TypeId type_ = TypeId::float32;
  bool uses_a_ = false, uses_b_ = false;
};

// Device helpers the emitted expressions call (wrapping integer arithmetic, defined
// division, saturating conversions), as CUDA source.
const char* cuda_prelude();

// The C type name of a value type in generated code.
const char* cuda_type_name(TypeId t);

}  // namespace geblas::detail::jit
