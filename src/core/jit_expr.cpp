// Parser, interpreter and CUDA emitter of run-time semiring expressions (jit_expr.hpp).
// A recursive-descent parser over C's precedence levels builds a typed tree; the
// interpreter and the emitter walk the same tree with the same rules.
#include "core/jit_expr.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "geblas/error.hpp"

namespace geblas::detail::jit {
namespace {

Ty promoted(TypeId t) {
  switch (t) {
    case TypeId::int64: return Ty::i64;
    case TypeId::float32: return Ty::f32;
    case TypeId::float64: return Ty::f64;
    default: return Ty::i32;  // bool, int32
  }
}
bool is_float(Ty t) { return t == Ty::f32 || t == Ty::f64; }
// C's usual arithmetic conversions over the four types (no unsigned types exist here).
Ty common(Ty x, Ty y) { return static_cast<Ty>(std::max(static_cast<int>(x), static_cast<int>(y))); }
const char* c_name(Ty t) {
  switch (t) {
    case Ty::i32: return "int";
    case Ty::i64: return "long long";
    case Ty::f32: return "float";
    case Ty::f64: return "double";
  }
  return "?";
}

// Internal conversions only widen (usual conversions), so integers never narrow here.
Value convert(Value v, Ty from, Ty to) {
  if (from == to) return v;
  Value r;
  if (is_float(to)) {
    if (is_float(from)) r.d = to == Ty::f32 ? static_cast<double>(static_cast<float>(v.d)) : v.d;
    else r.d = to == Ty::f32 ? static_cast<double>(static_cast<float>(v.i)) : static_cast<double>(v.i);
  } else {
    r.i = v.i;
  }
  return r;
}

std::int64_t wrap(std::uint64_t x, Ty t) {
  if (t == Ty::i32) return static_cast<std::int32_t>(static_cast<std::uint32_t>(x));
  return static_cast<std::int64_t>(x);
}
double round_to(double x, Ty t) { return t == Ty::f32 ? static_cast<double>(static_cast<float>(x)) : x; }

template <class I>
I sat_from(double x) {
  if (x != x) return 0;
  if (x >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  if (x <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  return static_cast<I>(x);
}

// The final conversion to the value type (C's, with float -> integer saturating and NaN -> 0).
Value to_value_type(Value v, Ty from, TypeId t) {
  Value r;
  switch (t) {
    case TypeId::boolean: r.i = is_float(from) ? (v.d != 0) : (v.i != 0); break;
    case TypeId::int32: r.i = is_float(from) ? sat_from<std::int32_t>(v.d) : wrap(static_cast<std::uint64_t>(v.i), Ty::i32); break;
    case TypeId::int64: r.i = is_float(from) ? sat_from<std::int64_t>(v.d) : v.i; break;
    case TypeId::float32:
      r.d = is_float(from) ? static_cast<double>(static_cast<float>(v.d)) : static_cast<double>(static_cast<float>(v.i));
      break;
    default: r.d = is_float(from) ? v.d : static_cast<double>(v.i); break;
  }
  return r;
}

// Concatenation by appending: GCC 12 warns (-Wrestrict, a false positive) on
// "literal" + std::string&& chains.
template <class... S>
std::string cat(const S&... parts) {
  std::string r;
  (r += ... += parts);
  return r;
}

std::string hex_literal(Value v, Ty t) {
  char buf[64];
  if (t == Ty::f32) {
    const float f = static_cast<float>(v.d);
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    std::snprintf(buf, sizeof buf, "__int_as_float(0x%08x)", bits);
  } else if (t == Ty::f64) {
    std::uint64_t bits;
    std::memcpy(&bits, &v.d, 8);
    std::snprintf(buf, sizeof buf, "__longlong_as_double(0x%016llxLL)", static_cast<unsigned long long>(bits));
  } else if (t == Ty::i64) {
    std::snprintf(buf, sizeof buf, "(%lldLL)", static_cast<long long>(v.i));
  } else {
    std::snprintf(buf, sizeof buf, "(%lld)", static_cast<long long>(v.i));
  }
  return buf;
}

}  // namespace

// The deepest expression accepted: the parser, the interpreter and the emitter recurse
// once per level of nesting or of the tree, so an unbounded depth is a stack overflow
// (a few thousand parentheses suffice). 256 levels take well under 1 MiB of stack in
// every build (sanitizer frames included) and are far beyond any semiring written by hand.
constexpr int kMaxDepth = 256;

class Parser {
 public:
  Parser(std::string_view text, TypeId t, bool with_operands, const std::string& what, Expr& out)
      : s_(text), with_operands_(with_operands), what_(what), e_(out) {
    e_.type_ = t;
    operand_ty_ = promoted(t);
  }

  void run() {
    skip();
    if (pos_ >= s_.size()) fail("empty expression");
    e_.root_ = conditional();
    skip();
    if (pos_ < s_.size()) fail(std::string("unexpected '") + s_[pos_] + "'");
  }

 private:
  using Kind = Expr::Node::Kind;

  [[noreturn]] void fail(const std::string& msg) const {
    throw InvalidValue("geblas::jit: " + what_ + ": " + msg + " at column " + std::to_string(pos_ + 1) + " of \"" +
                       std::string(s_) + "\"");
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(std::string_view tok) {
    skip();
    if (s_.substr(pos_, tok.size()) != tok) return false;
    // "<" must not eat the "<" of "<=", "&" needs "&&", etc.: the callers try longer tokens first.
    pos_ += tok.size();
    return true;
  }
  static Expr::Node make(Kind k) {
    Expr::Node n{};
    n.kind = k;
    return n;
  }
  int add(Expr::Node n) {
    int depth = 1;
    for (int k : n.kids)
      if (k >= 0) depth = std::max(depth, 1 + depth_[static_cast<std::size_t>(k)]);
    if (depth > kMaxDepth) fail("the expression is nested deeper than " + std::to_string(kMaxDepth) + " levels");
    e_.nodes_.push_back(std::move(n));
    depth_.push_back(depth);
    return static_cast<int>(e_.nodes_.size()) - 1;
  }
  // Counts the parser's own recursion (into parentheses, arguments, branches and unary
  // operators), which the tree's depth misses: "((((a))))" is a single node.
  struct Nesting {
    Parser& p;
    explicit Nesting(Parser& parser) : p(parser) {
      if (++p.nesting_ > kMaxDepth)
        p.fail("the expression is nested deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    ~Nesting() { --p.nesting_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
  };
  Ty ty(int n) const { return e_.nodes_[static_cast<std::size_t>(n)].ty; }
  int binary(char op, int x, int y, Ty t) {
    Expr::Node n = make(Kind::binary);
    n.op = op;
    n.ty = t;
    n.kids[0] = x;
    n.kids[1] = y;
    return add(n);
  }

  int conditional() {
    const Nesting level(*this);
    const int c = logical_or();
    const std::size_t at = pos_;
    if (!eat("?")) return c;
    const int x = conditional();
    if (!eat(":")) {
      pos_ = std::max(pos_, at);
      fail("expected ':' of the '?' operator");
    }
    const int y = conditional();
    Expr::Node n = make(Kind::conditional);
    n.ty = common(ty(x), ty(y));
    n.kids[0] = c;
    n.kids[1] = x;
    n.kids[2] = y;
    return add(n);
  }
  int logical_or() {
    int x = logical_and();
    while (eat("||")) x = binary('|', x, logical_and(), Ty::i32);
    return x;
  }
  int logical_and() {
    int x = equality();
    while (eat("&&")) x = binary('&', x, equality(), Ty::i32);
    return x;
  }
  int equality() {
    int x = relational();
    for (;;) {
      if (eat("==")) x = binary('e', x, relational(), Ty::i32);
      else if (eat("!=")) x = binary('n', x, relational(), Ty::i32);
      else return x;
    }
  }
  int relational() {
    int x = additive();
    for (;;) {
      if (eat("<=")) x = binary('l', x, additive(), Ty::i32);
      else if (eat(">=")) x = binary('g', x, additive(), Ty::i32);
      else if (eat("<")) x = binary('<', x, additive(), Ty::i32);
      else if (eat(">")) x = binary('>', x, additive(), Ty::i32);
      else return x;
    }
  }
  int additive() {
    int x = multiplicative();
    for (;;) {
      char op;
      if (eat("+")) op = '+';
      else if (eat("-")) op = '-';
      else return x;
      const int y = multiplicative();
      x = binary(op, x, y, common(ty(x), ty(y)));
    }
  }
  int multiplicative() {
    int x = unary();
    for (;;) {
      char op;
      skip();
      const std::size_t at = pos_;
      if (eat("*")) op = '*';
      else if (eat("/")) op = '/';
      else if (eat("%")) op = '%';
      else return x;
      const int y = unary();
      if (op == '%' && (is_float(ty(x)) || is_float(ty(y)))) {
        pos_ = at;
        fail("operator % needs integer operands (C has no floating-point %)");
      }
      x = binary(op, x, y, common(ty(x), ty(y)));
    }
  }
  int unary() {
    skip();
    char op = 0;
    if (eat("-")) op = '-';
    else if (eat("+")) op = '+';
    else if (eat("!")) op = '!';
    if (!op) return primary();
    const Nesting level(*this);
    const int x = unary();
    if (op == '+') return x;
    Expr::Node n = make(Kind::unary);
    n.op = op;
    n.ty = op == '!' ? Ty::i32 : ty(x);
    n.kids[0] = x;
    return add(n);
  }
  int primary() {
    skip();
    if (pos_ >= s_.size()) fail("expected an operand");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      const int x = conditional();
      if (!eat(")")) fail("expected ')'");
      return x;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      const std::string id(s_.substr(start, pos_ - start));
      if (id == "a" || id == "b") {
        if (!with_operands_) {
          pos_ = start;
          fail("a constant cannot use the operand '" + id + "'");
        }
        Expr::Node n = make(id == "a" ? Kind::var_a : Kind::var_b);
        n.ty = operand_ty_;
        (id == "a" ? e_.uses_a_ : e_.uses_b_) = true;
        return add(n);
      }
      if (id == "INFINITY" || id == "NAN") {
        Expr::Node n = make(Kind::literal);
        n.ty = Ty::f32;
        n.lit.d = id == "NAN" ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
        return add(n);
      }
      if (id == "true" || id == "false") {
        Expr::Node n = make(Kind::literal);
        n.lit.i = id == "true";
        return add(n);
      }
      const bool two = id == "min" || id == "max" || id == "fmin" || id == "fmax";
      const bool one = id == "abs" || id == "fabs";
      if (!two && !one) {
        pos_ = start;
        fail("unknown name '" + id +
             "' (accepted: a, b, INFINITY, NAN, true, false, min, max, fmin, fmax, abs, fabs)");
      }
      if (!eat("(")) fail("expected '(' after " + id);
      Expr::Node n = make(Kind::call);
      n.fn = id;
      n.kids[0] = conditional();
      if (two) {
        if (!eat(",")) fail(id + " takes two arguments");
        n.kids[1] = conditional();
      }
      if (!eat(")")) fail("expected ')' closing " + id);
      const Ty t = two ? common(ty(n.kids[0]), ty(n.kids[1])) : ty(n.kids[0]);
      n.ty = (id[0] == 'f' && !is_float(t)) ? Ty::f64 : t;  // fmin/fmax/fabs of integers: double, as in C
      return add(n);
    }
    fail(std::string("unexpected '") + c + "'");
  }
  int number() {
    const std::size_t start = pos_;
    bool floating = false;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      floating = true;
      ++pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      floating = true;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[pos_]))) fail("malformed exponent");
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    const std::string text(s_.substr(start, pos_ - start));
    if (text == ".") {
      pos_ = start;
      fail("malformed number");
    }
    Expr::Node n = make(Kind::literal);
    if (pos_ < s_.size() && (s_[pos_] == 'f' || s_[pos_] == 'F')) {
      if (!floating) fail("suffix 'f' needs a floating-point literal (write 1.0f)");
      ++pos_;
      n.ty = Ty::f32;
      n.lit.d = static_cast<double>(std::strtof(text.c_str(), nullptr));
    } else if (floating) {
      n.ty = Ty::f64;
      n.lit.d = std::strtod(text.c_str(), nullptr);
    } else {
      errno = 0;
      const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
      if (errno != 0 || v > static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max())) {
        pos_ = start;
        fail("integer literal out of range");
      }
      n.lit.i = static_cast<std::int64_t>(v);
      n.ty = v > static_cast<unsigned long long>(std::numeric_limits<std::int32_t>::max()) ? Ty::i64 : Ty::i32;
    }
    if (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      fail("unexpected character after a number");
    return add(n);
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  bool with_operands_;
  std::string what_;
  Expr& e_;
  Ty operand_ty_ = Ty::i32;
  std::vector<int> depth_;  // tree depth of each node of e_.nodes_
  int nesting_ = 0;
};

Expr Expr::parse(std::string_view text, TypeId value_type, bool with_operands, const std::string& what) {
  Expr e;
  Parser(text, value_type, with_operands, what, e).run();
  return e;
}

Value Expr::eval(Value a, Value b) const {
  return to_value_type(eval_node(root_, a, b), nodes_[static_cast<std::size_t>(root_)].ty, type_);
}

Value Expr::eval_node(int idx, const Value& a, const Value& b) const {
  const Node& n = nodes_[static_cast<std::size_t>(idx)];
  auto kid = [&](int k, Ty to) {
    const int c = n.kids[k];
    return convert(eval_node(c, a, b), nodes_[static_cast<std::size_t>(c)].ty, to);
  };
  auto truth = [&](int k) {
    const int c = n.kids[k];
    const Value v = eval_node(c, a, b);
    return is_float(nodes_[static_cast<std::size_t>(c)].ty) ? v.d != 0 : v.i != 0;
  };
  Value r;
  switch (n.kind) {
    case Node::Kind::literal: return n.lit;
    case Node::Kind::var_a:
    case Node::Kind::var_b: {
      // bool operands hold 0/1 already; int32 ones are sign-extended.
      return n.kind == Node::Kind::var_a ? a : b;
    }
    case Node::Kind::unary:
      if (n.op == '!') {
        r.i = !truth(0);
      } else {
        const Value x = kid(0, n.ty);
        if (is_float(n.ty)) r.d = -x.d;
        else r.i = wrap(0 - static_cast<std::uint64_t>(x.i), n.ty);
      }
      return r;
    case Node::Kind::conditional: return truth(0) ? kid(1, n.ty) : kid(2, n.ty);
    case Node::Kind::call: {
      const Ty t = n.ty;
      if (n.fn == "abs" || n.fn == "fabs") {
        const Value x = kid(0, t);
        if (is_float(t)) r.d = std::fabs(x.d);
        else r.i = x.i < 0 ? wrap(0 - static_cast<std::uint64_t>(x.i), t) : x.i;
        return r;
      }
      const Value x = kid(0, t), y = kid(1, t);
      const bool want_min = n.fn == "min" || n.fn == "fmin";
      if (is_float(t)) r.d = want_min ? ((y.d != y.d || x.d < y.d) ? x.d : y.d) : ((y.d != y.d || x.d > y.d) ? x.d : y.d);
      else r.i = want_min ? std::min(x.i, y.i) : std::max(x.i, y.i);
      return r;
    }
    case Node::Kind::binary: break;
  }
  switch (n.op) {
    case '&': r.i = truth(0) && truth(1); return r;
    case '|': r.i = truth(0) || truth(1); return r;
    default: break;
  }
  // Comparisons compare in the common type of their operands; arithmetic computes in n.ty.
  const Ty t = (n.op == '<' || n.op == '>' || n.op == 'l' || n.op == 'g' || n.op == 'e' || n.op == 'n')
                   ? common(nodes_[static_cast<std::size_t>(n.kids[0])].ty, nodes_[static_cast<std::size_t>(n.kids[1])].ty)
                   : n.ty;
  const Value x = kid(0, t), y = kid(1, t);
  const bool f = is_float(t);
  switch (n.op) {
    case '<': r.i = f ? x.d < y.d : x.i < y.i; return r;
    case '>': r.i = f ? x.d > y.d : x.i > y.i; return r;
    case 'l': r.i = f ? x.d <= y.d : x.i <= y.i; return r;
    case 'g': r.i = f ? x.d >= y.d : x.i >= y.i; return r;
    case 'e': r.i = f ? x.d == y.d : x.i == y.i; return r;
    case 'n': r.i = f ? x.d != y.d : x.i != y.i; return r;
    default: break;
  }
  const auto ux = static_cast<std::uint64_t>(x.i), uy = static_cast<std::uint64_t>(y.i);
  const std::int64_t lo = t == Ty::i32 ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int64_t>::min();
  const std::int64_t hi = t == Ty::i32 ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int64_t>::max();
  switch (n.op) {
    case '+': f ? void(r.d = round_to(x.d + y.d, t)) : void(r.i = wrap(ux + uy, t)); return r;
    case '-': f ? void(r.d = round_to(x.d - y.d, t)) : void(r.i = wrap(ux - uy, t)); return r;
    case '*': f ? void(r.d = round_to(x.d * y.d, t)) : void(r.i = wrap(ux * uy, t)); return r;
    case '/':
      if (f) r.d = round_to(x.d / y.d, t);
      else if (y.i == 0) r.i = x.i == 0 ? 0 : (x.i > 0 ? hi : lo);  // binop::div's rule
      else if (y.i == -1) r.i = wrap(0 - ux, t);
      else r.i = x.i / y.i;
      return r;
    case '%': r.i = (y.i == 0 || y.i == -1) ? 0 : x.i % y.i; return r;
    default: break;
  }
  throw InvalidValue("geblas::jit: internal error: unknown operator");
}

std::string Expr::emit_as(int idx, Ty to) const {
  const Ty from = nodes_[static_cast<std::size_t>(idx)].ty;
  if (from == to) return emit(idx);
  return cat("((", c_name(to), ")", emit(idx), ")");
}

std::string Expr::emit(int idx) const {
  const Node& n = nodes_[static_cast<std::size_t>(idx)];
  const char* ct = c_name(n.ty);
  auto truth = [&](int k) { return cat("(", emit(n.kids[k]), " != 0)"); };
  switch (n.kind) {
    case Node::Kind::literal: return hex_literal(n.lit, n.ty);
    case Node::Kind::var_a: return cat("((", ct, ")a)");
    case Node::Kind::var_b: return cat("((", ct, ")b)");
    case Node::Kind::unary:
      if (n.op == '!') return cat("((int)(", emit(n.kids[0]), " == 0))");
      return cat("geblas_jit::neg(", emit_as(n.kids[0], n.ty), ")");
    case Node::Kind::conditional:
      return cat("(", truth(0), " ? ", emit_as(n.kids[1], n.ty), " : ", emit_as(n.kids[2], n.ty), ")");
    case Node::Kind::call: {
      const std::string fn = n.fn == "fabs" ? "abs" : n.fn == "fmin" ? "min" : n.fn == "fmax" ? "max" : n.fn;
      if (n.kids[1] < 0) return cat("geblas_jit::", fn, "(", emit_as(n.kids[0], n.ty), ")");
      return cat("geblas_jit::", fn, "(", emit_as(n.kids[0], n.ty), ", ", emit_as(n.kids[1], n.ty), ")");
    }
    case Node::Kind::binary: break;
  }
  if (n.op == '&') return cat("((int)(", truth(0), " && ", truth(1), "))");
  if (n.op == '|') return cat("((int)(", truth(0), " || ", truth(1), "))");
  const char* cmp = n.op == '<' ? "<" : n.op == '>' ? ">" : n.op == 'l' ? "<=" : n.op == 'g' ? ">=" : n.op == 'e' ? "==" : n.op == 'n' ? "!=" : nullptr;
  if (cmp) {
    const Ty t = common(nodes_[static_cast<std::size_t>(n.kids[0])].ty, nodes_[static_cast<std::size_t>(n.kids[1])].ty);
    return cat("((int)(", emit_as(n.kids[0], t), " ", cmp, " ", emit_as(n.kids[1], t), "))");
  }
  const char* fn = n.op == '+' ? "add" : n.op == '-' ? "sub" : n.op == '*' ? "mul" : n.op == '/' ? "div" : "mod";
  return cat("geblas_jit::", fn, "(", emit_as(n.kids[0], n.ty), ", ", emit_as(n.kids[1], n.ty), ")");
}

std::string Expr::cuda() const {
  const Ty from = nodes_[static_cast<std::size_t>(root_)].ty;
  const std::string x = emit(root_);
  switch (type_) {
    case TypeId::boolean: return cat("(", x, " != 0)");
    case TypeId::int32: return is_float(from) ? cat("geblas_jit::to_i32(", x, ")") : cat("((int)", x, ")");
    case TypeId::int64: return is_float(from) ? cat("geblas_jit::to_i64(", x, ")") : cat("((long long)", x, ")");
    case TypeId::float32: return cat("((float)", x, ")");
    default: return cat("((double)", x, ")");
  }
}

const char* cuda_type_name(TypeId t) {
  switch (t) {
    case TypeId::boolean: return "bool";
    case TypeId::int32: return "int";
    case TypeId::int64: return "long long";
    case TypeId::float32: return "float";
    case TypeId::float64: return "double";
    default: return nullptr;
  }
}

// int -> int wraps through the unsigned type (what the interpreter does), so results
// never depend on the compiler's treatment of signed overflow. Floating-point operations
// of an expression use the _rn intrinsics, which the compiler never contracts into an
// FMA, so the GPU rounds each operation as the interpreter does (built-in operator names
// compile to plain operators instead, exactly as the built-in kernels do).
const char* cuda_prelude() {
  return R"(namespace geblas_jit {
__device__ __forceinline__ int add(int x, int y) { return (int)((unsigned)x + (unsigned)y); }
__device__ __forceinline__ int sub(int x, int y) { return (int)((unsigned)x - (unsigned)y); }
__device__ __forceinline__ int mul(int x, int y) { return (int)((unsigned)x * (unsigned)y); }
__device__ __forceinline__ int neg(int x) { return (int)(0u - (unsigned)x); }
__device__ __forceinline__ long long add(long long x, long long y) { return (long long)((unsigned long long)x + (unsigned long long)y); }
__device__ __forceinline__ long long sub(long long x, long long y) { return (long long)((unsigned long long)x - (unsigned long long)y); }
__device__ __forceinline__ long long mul(long long x, long long y) { return (long long)((unsigned long long)x * (unsigned long long)y); }
__device__ __forceinline__ long long neg(long long x) { return (long long)(0ull - (unsigned long long)x); }
__device__ __forceinline__ float add(float x, float y) { return __fadd_rn(x, y); }
__device__ __forceinline__ float sub(float x, float y) { return __fsub_rn(x, y); }
__device__ __forceinline__ float mul(float x, float y) { return __fmul_rn(x, y); }
__device__ __forceinline__ float neg(float x) { return -x; }
__device__ __forceinline__ float div(float x, float y) { return __fdiv_rn(x, y); }
__device__ __forceinline__ double add(double x, double y) { return __dadd_rn(x, y); }
__device__ __forceinline__ double sub(double x, double y) { return __dsub_rn(x, y); }
__device__ __forceinline__ double mul(double x, double y) { return __dmul_rn(x, y); }
__device__ __forceinline__ double neg(double x) { return -x; }
__device__ __forceinline__ double div(double x, double y) { return __ddiv_rn(x, y); }
__device__ __forceinline__ int div(int x, int y) {
  if (y == 0) return x == 0 ? 0 : (x > 0 ? 2147483647 : -2147483647 - 1);
  if (y == -1) return neg(x);
  return x / y;
}
__device__ __forceinline__ long long div(long long x, long long y) {
  if (y == 0) return x == 0 ? 0 : (x > 0 ? 9223372036854775807LL : -9223372036854775807LL - 1);
  if (y == -1) return neg(x);
  return x / y;
}
__device__ __forceinline__ int mod(int x, int y) { return (y == 0 || y == -1) ? 0 : x % y; }
__device__ __forceinline__ long long mod(long long x, long long y) { return (y == 0 || y == -1) ? 0 : x % y; }
__device__ __forceinline__ int min(int x, int y) { return x < y ? x : y; }
__device__ __forceinline__ int max(int x, int y) { return x > y ? x : y; }
__device__ __forceinline__ long long min(long long x, long long y) { return x < y ? x : y; }
__device__ __forceinline__ long long max(long long x, long long y) { return x > y ? x : y; }
__device__ __forceinline__ float min(float x, float y) { return (y != y || x < y) ? x : y; }
__device__ __forceinline__ float max(float x, float y) { return (y != y || x > y) ? x : y; }
__device__ __forceinline__ double min(double x, double y) { return (y != y || x < y) ? x : y; }
__device__ __forceinline__ double max(double x, double y) { return (y != y || x > y) ? x : y; }
__device__ __forceinline__ int abs(int x) { return x < 0 ? neg(x) : x; }
__device__ __forceinline__ long long abs(long long x) { return x < 0 ? neg(x) : x; }
__device__ __forceinline__ float abs(float x) { return fabsf(x); }
__device__ __forceinline__ double abs(double x) { return fabs(x); }
__device__ __forceinline__ int to_i32(double x) {
  return x != x ? 0 : x >= 2147483647.0 ? 2147483647 : x <= -2147483648.0 ? -2147483647 - 1 : (int)x;
}
__device__ __forceinline__ long long to_i64(double x) {
  return x != x ? 0 : x >= 9223372036854775807.0 ? 9223372036854775807LL
       : x <= -9223372036854775808.0 ? -9223372036854775807LL - 1 : (long long)x;
}
}  // namespace geblas_jit
)";
}

}  // namespace geblas::detail::jit
