// Run-time semirings (include/geblas/jit.hpp): construction and checking of both halves,
// the generated operator struct, the mxm entry, and the CPU product, which interprets
// the same typed expressions the GPU compiles (a row-parallel generic loop: the check
// and fallback path, not a tuned kernel).
#include "core/jit_semiring.hpp"

#include <cstdlib>
#include <cstring>
#include <optional>

#include "core/backend.hpp"
#include "core/jit_mxm_plan.hpp"
#include "core/trace.hpp"
#include "geblas/binary_op.hpp"
#include "geblas/detail/views.hpp"
#include "geblas/error.hpp"
#include "geblas/monoid.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/version.hpp"

namespace geblas {
namespace detail::jit {
namespace {

// The built-in operators by name, as expressions with exactly binop's results on the
// CPU (binary_op.hpp: wrapping integers, safe division, NaN-ignoring min and max).
std::optional<std::string> builtin_mul_expr(const std::string& name) {
  static const std::pair<const char*, const char*> table[] = {
      {"first", "a"},           {"second", "b"},          {"pair", "1"},          {"plus", "a + b"},
      {"minus", "a - b"},       {"rminus", "b - a"},      {"times", "a * b"},     {"div", "a / b"},
      {"rdiv", "b / a"},        {"min", "min(a, b)"},     {"max", "max(a, b)"},   {"lor", "a || b"},
      {"land", "a && b"},       {"lxor", "(a != 0) != (b != 0)"}, {"eq", "a == b"}, {"ne", "a != b"},
      {"gt", "a > b"},          {"lt", "a < b"},          {"ge", "a >= b"},       {"le", "a <= b"}};
  for (const auto& [n, e] : table)
    if (name == n) return std::string(e);
  return std::nullopt;
}

std::optional<MonoidId> builtin_monoid(const std::string& name) {
  static const std::pair<const char*, MonoidId> table[] = {
      {"plus", MonoidId::plus}, {"times", MonoidId::times}, {"min", MonoidId::min}, {"max", MonoidId::max},
      {"lor", MonoidId::lor},   {"land", MonoidId::land},   {"lxor", MonoidId::lxor}};
  for (const auto& [n, id] : table)
    if (name == n) return id;
  return std::nullopt;
}

// The CUDA of a built-in name where it must be the built-in kernels' own code (plain
// operators, which the compiler may fuse into an FMA as it does for the built-ins, and
// fmin/fmax as StaticOps uses); empty where the emitted expression is already that.
std::string builtin_cuda(const std::string& name, TypeId t) {
  if (t != TypeId::float32 && t != TypeId::float64) return {};
  const bool f = t == TypeId::float32;
  if (name == "plus") return "a + b";
  if (name == "times") return "a * b";
  if (name == "min") return f ? "fminf(a, b)" : "fmin(a, b)";
  if (name == "max") return f ? "fmaxf(a, b)" : "fmax(a, b)";
  return {};
}

template <class T>
Value value_of(T x) {
  Value v;
  if constexpr (std::is_floating_point_v<T>) v.d = x;
  else v.i = static_cast<std::int64_t>(x);
  return v;
}

std::string literal(TypeId t, Value v) {
  char buf[80];
  if (t == TypeId::float32) {
    const float f = static_cast<float>(v.d);
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    std::snprintf(buf, sizeof buf, "__int_as_float(0x%08x)", bits);
  } else if (t == TypeId::float64) {
    std::uint64_t bits;
    std::memcpy(&bits, &v.d, 8);
    std::snprintf(buf, sizeof buf, "__longlong_as_double(0x%016llxLL)", static_cast<unsigned long long>(bits));
  } else if (t == TypeId::boolean) {
    std::snprintf(buf, sizeof buf, "%s", v.i ? "true" : "false");
  } else {
    std::snprintf(buf, sizeof buf, "((%s)(%lldLL))", cuda_type_name(t), static_cast<long long>(v.i));
  }
  return buf;
}

// What a caller with 16-bit data does instead: run-time semirings compute on the five
// types their expressions are typed in (jit_expr.cpp); their kernels are not compiled for
// half / bfloat16 storage.
std::string sixteen_bit_advice(TypeId t) {
  const std::string name(to_string(t));
  return "run-time semirings compute on bool, int32, int64, float32 and float64, not " + name + ": convert the " +
         name + " operands to float32 (geblas::convert<float>) and use jit::semiring<float>, or use a built-in " +
         "semiring, which computes " + name + " directly";
}

std::shared_ptr<SemiringImpl> build(TypeId type, const ::geblas::jit::monoid& add, const std::string* mul_text,
                                    const ::geblas::jit::cuda_expr* mul_cuda) {
  if (is_16bit_float(type))
    throw NotImplemented("geblas::jit::semiring: value type " + std::string(to_string(type)) +
                         " is not supported: " + sixteen_bit_advice(type));
  if (!cuda_type_name(type))
    throw NotImplemented(std::string("geblas::jit::semiring: value type ") + std::string(to_string(type)) +
                         " is not supported (bool, int32, int64, float32, float64 are)");
  auto s = std::make_shared<SemiringImpl>();
  s->type = type;
  const std::string tname(to_string(type));
  // The add monoid.
  if (auto id = builtin_monoid(add.op); id && add.identity.empty()) {
    if (!add.terminal.empty())
      throw InvalidValue("geblas::jit::semiring: the built-in monoid '" + add.op +
                         "' has its own terminal; give an expression to choose another");
    s->add = Expr::parse(*builtin_mul_expr(add.op), type, true, "add '" + add.op + "'");
    visit_type(type, [&]<class T>() {
      visit_monoid<T>(*id, [&]<class M>() {
        const T ident = M::identity();
        s->identity = value_of(ident);
        s->has_terminal = M::has_terminal;
        const T term = M::terminal();
        s->terminal = value_of(term);
      });
    });
    s->add_cuda = builtin_cuda(add.op, type);
  } else {
    if (add.identity.empty())
      throw InvalidValue("geblas::jit::semiring: the add '" + add.op +
                         "' is not a built-in monoid name (plus, times, min, max, lor, land, lxor), so it needs "
                         "its identity: jit::monoid{\"" + add.op + "\", \"<identity>\"}");
    s->add = Expr::parse(add.op, type, true, "add");
    s->identity = Expr::parse(add.identity, type, false, "identity").eval({}, {});
    if (!add.terminal.empty()) {
      s->terminal = Expr::parse(add.terminal, type, false, "terminal").eval({}, {});
      s->has_terminal = true;
    }
  }
  if (s->add_cuda.empty()) s->add_cuda = s->add.cuda();
  // The multiply.
  std::string mul_shown;
  if (mul_cuda) {
    if (mul_cuda->text.empty()) throw InvalidValue("geblas::jit::semiring: empty cuda_expr for the multiply");
    s->mul_cuda_only = true;
    s->mul_cuda = "(" + mul_cuda->text + ")";
    s->reads_a = true;
    mul_shown = "cuda:" + mul_cuda->text;
  } else {
    if (auto e = builtin_mul_expr(*mul_text)) {
      s->mul = Expr::parse(*e, type, true, "multiply '" + *mul_text + "'");
      s->mul_cuda = builtin_cuda(*mul_text, type);
    } else {
      s->mul = Expr::parse(*mul_text, type, true, "multiply");
    }
    if (s->mul_cuda.empty()) s->mul_cuda = s->mul.cuda();
    s->reads_a = s->mul.uses_a();
    mul_shown = *mul_text;
  }
  s->identity_cuda = literal(type, s->identity);
  s->name = "jit(" + add.op + (add.identity.empty() ? "" : " [" + add.identity + "]") + ", " + mul_shown +
            ") over " + tname;
  s->key = "geblas " GEBLAS_VERSION_STRING "|" + tname + "|add:" + s->add_cuda + "|id:" + s->identity_cuda +
           "|mul:" + s->mul_cuda + "|reads_a:" + (s->reads_a ? "1" : "0");
  s->hash = fnv1a(s->key.data(), s->key.size());
  return s;
}

}  // namespace

std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

std::string SemiringImpl::ops_struct(const std::string& n) const {
  const char* t = cuda_type_name(type);
  return "struct " + n + " {\n  using T = " + t + ";\n  using Stored = " + t +
         ";\n  static constexpr bool reads_a = " + (reads_a ? "true" : "false") +
         ";\n  static constexpr bool reads_b = true;\n"
         "  __device__ __forceinline__ T identity() const { return " + identity_cuda + "; }\n"
         "  __device__ __forceinline__ T empty_value() const { return " + identity_cuda + "; }\n"
         "  __device__ __forceinline__ T add(T a, T b) const { return " + add_cuda + "; }\n"
         "  __device__ __forceinline__ T mul(T a, T b) const { return " + mul_cuda + "; }\n};\n";
}

namespace {

template <class T>
T from_value(Value v) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v.d);
  else return static_cast<T>(v.i);
}

// T = A (+).(x) B into the plan's row-major product: a row per task, one column at a
// time so that a terminal value can end that column's sum early.
template <class T>
void cpu_product(const SemiringImpl& s, const SparseStorage& As, const DenseStorage& Bs, DenseStorage& Ts) {
  const CsrView<T> A = csr_view<T>(As);
  const DenseView<T> B = dense_view<T>(Bs);
  const DenseView<T> C = dense_view<T>(Ts);
  const T identity = from_value<T>(s.identity), terminal = from_value<T>(s.terminal);
  const bool row_major = B.layout == Layout::row_major;
  const Index n = C.ncols;
#pragma omp parallel for schedule(dynamic, 16)
  for (Index i = 0; i < A.nrows; ++i) {
    const Index beg = A.row_offsets[i], end = A.row_offsets[i + 1];
    for (Index j = 0; j < n; ++j) {
      T acc = identity;
      for (Index e = beg; e < end; ++e) {
        const Index k = A.col_indices[e];
        const T b = row_major ? B.data[k * B.ld + j] : B.data[j * B.ld + k];
        acc = s.add.eval_as<T>(acc, s.mul.eval_as<T>(A.values[e], b));
        if (s.has_terminal && acc == terminal) break;
      }
      C.data[i * C.ld + j] = acc;
    }
  }
}

bool same_memory(const DenseStorage& x, const DenseStorage& y) {
  return x.data.data() != nullptr && x.data.data() == y.data.data();
}

}  // namespace
}  // namespace detail::jit

namespace jit {

Semiring::Semiring(TypeId type, const monoid& add, const std::string& mul)
    : impl_(detail::jit::build(type, add, &mul, nullptr)) {}
Semiring::Semiring(TypeId type, const monoid& add, const cuda_expr& mul)
    : impl_(detail::jit::build(type, add, nullptr, &mul)) {}
TypeId Semiring::type() const { return impl_->type; }
const std::string& Semiring::name() const { return impl_->name; }
std::string Semiring::cuda_source() const { return impl_->ops_struct("GeblasJitOps"); }

std::string cache_directory() {
  if (const char* d = std::getenv("GEBLAS_JIT_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/geblas";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/geblas";
  return {};
}

}  // namespace jit

namespace detail {

void jit_mxm(DenseStorage& C, const SparseStorage& A, const DenseStorage& B, const ::geblas::jit::Semiring& semiring,
             const Options& o) {
  const jit::SemiringImpl& s = semiring.impl();
  const char* op = "mxm(sparse x dense)";
  for (const auto& [name, type] : {std::pair{"C", C.type}, std::pair{"A", A.type}, std::pair{"B", B.type}})
    if (type != s.type)
      throw DomainMismatch(std::string(op) + ": the run-time semiring is over " + std::string(to_string(s.type)) +
                           " but " + name + " holds " + std::string(to_string(type)) +
                           (is_16bit_float(type) ? "; " + jit::sixteen_bit_advice(type) : std::string()));
  // The kernel writes C itself when nothing stands between the product and C (as the
  // built-in direct path; the accumulator of a run-time semiring is never fused).
  const bool direct = o.mask.empty() && o.accum.empty() && !o.transpose_a && !o.transpose_b &&
                      !jit::same_memory(C, B) && !C.device.is_cpu();
  UserMxmPlan plan = plan_jit_mxm(C, A, B, s.type, o, /*allocate_product=*/!direct);
  const Backend& be = backend_for(C.device);
  DispatchRecord& rec = begin_dispatch(op, be.name);
  if (C.device.is_cpu()) {
    if (s.mul_cuda_only)
      throw NotImplemented(std::string(op) + " on cpu: " + s.name +
                           " has a multiply written as jit::cuda_expr, which runs on CUDA devices only");
    rec.variant = "jit_generic";
    rec.reason = s.name + ", interpreted";
    visit_type(s.type, [&]<class T>() { jit::cpu_product<T>(s, *plan.a_sparse, *plan.b_dense, plan.t_dense); });
  } else {
    jit::cuda_jit_spmm({plan.a_sparse, plan.b_dense, direct ? &C : &plan.t_dense, &s, o.variant, &rec});
  }
  if (!direct) {
    std::vector<unsigned char> identity(size_of(s.type));
    visit_type(s.type, [&]<class T>() {
      const T id = jit::from_value<T>(s.identity);
      std::memcpy(identity.data(), &id, sizeof(T));
    });
    finish_user_mxm(C, plan, o, identity.data());
  }
  end_dispatch();
}

}  // namespace detail
}  // namespace geblas
