// Semirings: an add monoid and a multiply operator. mxm, mxv and vxm compute
// C(i,j) = add_k mul(A(i,k), B(k,j)). Each built-in is a struct with an `id`, compiled
// into libgeblas.so for the types where it makes sense (supports_semiring below); a
// user-defined semiring is any struct with the static members of Semiring<> and no id.
//
// Two flags let kernels skip loads: reads_a / reads_b say whether mul() looks at its
// first / second operand (plus_pair reads neither, plus_second never reads A's values).
#pragma once

#include <cstdint>
#include <type_traits>

#include "geblas/monoid.hpp"

namespace geblas {

// The built-in semirings, declared once: X(name, add monoid, multiply, reads_a, reads_b,
// types). Every enum, visitor, name table and runtime mapping below and in src/ is
// generated from this list; adding a built-in is one line here plus its tests. `types`
// is which value types libgeblas.so compiles it for: arithmetic (every type but bool),
// logical (bool only) or all.
#define GEBLAS_SEMIRINGS(X)                                                             \
  X(plus_times, plus, times, true, true, arithmetic)   /* linear algebra, GCN */        \
  X(max_times, max, times, true, true, arithmetic)     /* GraphSAGE-pool, max-product */ \
  X(min_plus, min, plus, true, true, arithmetic)       /* shortest paths */             \
  X(max_plus, max, plus, true, true, arithmetic)       /* longest / critical paths */   \
  X(min_times, min, times, true, true, arithmetic)                                      \
  X(max_min, max, min, true, true, arithmetic)         /* widest (bottleneck) paths */  \
  X(min_max, min, max, true, true, arithmetic)         /* minimax paths */              \
  X(lor_land, lor, land, true, true, logical)          /* reachability (bool) */        \
  X(plus_pair, plus, pair, false, false, arithmetic)   /* counts (triangles) */         \
  X(min_second, min, second, false, true, arithmetic)  /* BFS parents, labels */        \
  X(any_second, any, second, false, true, all)         /* BFS parents, any one */       \
  X(plus_second, plus, second, false, true, arithmetic) /* pattern aggregation */

#define GEBLAS_SEMIRING_ENUMERATOR(NAME, ...) NAME,
enum class SemiringId : std::uint8_t { GEBLAS_SEMIRINGS(GEBLAS_SEMIRING_ENUMERATOR) };
#undef GEBLAS_SEMIRING_ENUMERATOR
#define GEBLAS_SEMIRING_COUNT(...) +1
inline constexpr int semiring_count = 0 GEBLAS_SEMIRINGS(GEBLAS_SEMIRING_COUNT);
#undef GEBLAS_SEMIRING_COUNT

// Which value types a built-in semiring is compiled for (the list's last column).
enum class SemiringTypes : std::uint8_t { arithmetic, logical, all };

// A built-in semiring's row of the list, for code that chooses at run time.
struct SemiringInfo {
  const char* name;
  MonoidId add;
  BinaryOpId mul;
  bool reads_a;
  bool reads_b;
  SemiringTypes types;
};

#define GEBLAS_SEMIRING_INFO(NAME, ADD, MUL, READS_A, READS_B, TYPES) \
  SemiringInfo{#NAME, MonoidId::ADD, BinaryOpId::MUL, READS_A, READS_B, SemiringTypes::TYPES},
inline constexpr SemiringInfo semiring_table[] = {GEBLAS_SEMIRINGS(GEBLAS_SEMIRING_INFO)};
#undef GEBLAS_SEMIRING_INFO

// The row of `id` (an id outside the list is a caller's bug; to_string names it "?").
constexpr const SemiringInfo& semiring_info(SemiringId id) { return semiring_table[static_cast<int>(id)]; }

// The generic composition. `Add` is a monoid, `Mul` a binary operator.
template <class Add, class Mul, bool ReadsA = true, bool ReadsB = true>
struct Semiring {
  using value_type = typename Add::value_type;
  using add_monoid = Add;
  using mul_op = Mul;
  static constexpr bool has_terminal = Add::has_terminal;
  static constexpr bool reads_a = ReadsA;
  static constexpr bool reads_b = ReadsB;
  GEBLAS_HD static constexpr value_type identity() { return Add::identity(); }
  GEBLAS_HD static constexpr value_type terminal() { return Add::terminal(); }
  GEBLAS_HD static value_type add(value_type a, value_type b) { return Add::apply(a, b); }
  GEBLAS_HD static value_type mul(value_type a, value_type b) { return Mul::apply(a, b); }
};

namespace semiring {

#define GEBLAS_DEFINE_SEMIRING(NAME, ADD, MUL, READS_A, READS_B, TYPES)           \
  template <class T>                                                               \
  struct NAME : Semiring<monoid::ADD<T>, binop::MUL<T>, READS_A, READS_B> {        \
    static constexpr SemiringId id = SemiringId::NAME;                             \
  };
GEBLAS_SEMIRINGS(GEBLAS_DEFINE_SEMIRING)
#undef GEBLAS_DEFINE_SEMIRING

}  // namespace semiring

template <class S>
concept SemiringType = requires(typename S::value_type a) {
  typename S::value_type;
  { S::identity() } -> std::convertible_to<typename S::value_type>;
  { S::add(a, a) } -> std::convertible_to<typename S::value_type>;
  { S::mul(a, a) } -> std::convertible_to<typename S::value_type>;
};

template <class S>
concept BuiltinSemiring = SemiringType<S> && requires {
  { S::id } -> std::convertible_to<SemiringId>;
};

// Whether mul() reads its first / second operand; a user-defined semiring that does not
// say is assumed to read both.
template <class S>
constexpr bool semiring_reads_a() {
  if constexpr (requires { S::reads_a; }) return S::reads_a;
  else return true;
}
template <class S>
constexpr bool semiring_reads_b() {
  if constexpr (requires { S::reads_b; }) return S::reads_b;
  else return true;
}

// Which (semiring, type) pairs libgeblas.so compiles (the list's `types` column).
constexpr bool supports_semiring(SemiringId s, TypeId t) {
  if (static_cast<int>(s) >= semiring_count) return false;
  switch (semiring_info(s).types) {
    case SemiringTypes::arithmetic: return t != TypeId::boolean;
    case SemiringTypes::logical: return t == TypeId::boolean;
    case SemiringTypes::all: break;
  }
  return true;
}

namespace detail {
// Throws InvalidValue for an id outside the list (a cast from a bad integer).
[[noreturn]] GEBLAS_API void throw_unknown_semiring(SemiringId id);
}  // namespace detail

// Calls f.template operator()<S>() with semiring::<name><T> for the runtime id.
// Only call it for pairs where supports_semiring() holds.
template <class T, class F>
decltype(auto) visit_semiring(SemiringId id, F&& f) {
#define GEBLAS_SEMIRING_CASE(NAME, ...) \
  case SemiringId::NAME: return f.template operator()<semiring::NAME<T>>();
  switch (id) { GEBLAS_SEMIRINGS(GEBLAS_SEMIRING_CASE) }
#undef GEBLAS_SEMIRING_CASE
  detail::throw_unknown_semiring(id);
}

GEBLAS_API const char* to_string(SemiringId id);
// The built-in semiring with this name ("plus_times", "min_plus", ...); throws
// InvalidValue for an unknown name.
GEBLAS_API SemiringId semiring_from_string(const char* name);

}  // namespace geblas
