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

enum class SemiringId : std::uint8_t {
  plus_times, max_times, min_plus, max_plus, min_times, max_min, min_max,
  lor_land, plus_pair, min_second, any_second, plus_second,
};
inline constexpr int semiring_count = 12;

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

#define GEBLAS_DEFINE_SEMIRING(NAME, ADD, MUL, READS_A, READS_B)                      \
  template <class T>                                                                 \
  struct NAME : Semiring<monoid::ADD<T>, binop::MUL<T>, READS_A, READS_B> {          \
    static constexpr SemiringId id = SemiringId::NAME;                               \
  };

GEBLAS_DEFINE_SEMIRING(plus_times, plus, times, true, true)    // linear algebra, GCN
GEBLAS_DEFINE_SEMIRING(max_times, max, times, true, true)      // GraphSAGE-pool, max-product
GEBLAS_DEFINE_SEMIRING(min_plus, min, plus, true, true)        // shortest paths
GEBLAS_DEFINE_SEMIRING(max_plus, max, plus, true, true)        // longest / critical paths
GEBLAS_DEFINE_SEMIRING(min_times, min, times, true, true)
GEBLAS_DEFINE_SEMIRING(max_min, max, min, true, true)          // widest (bottleneck) paths
GEBLAS_DEFINE_SEMIRING(min_max, min, max, true, true)          // minimax paths
GEBLAS_DEFINE_SEMIRING(lor_land, lor, land, true, true)        // reachability (bool)
GEBLAS_DEFINE_SEMIRING(plus_pair, plus, pair, false, false)    // counts (triangles)
GEBLAS_DEFINE_SEMIRING(min_second, min, second, false, true)   // BFS parents, labels
GEBLAS_DEFINE_SEMIRING(any_second, any, second, false, true)   // BFS parents, any one
GEBLAS_DEFINE_SEMIRING(plus_second, plus, second, false, true) // pattern aggregation

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

// Which (semiring, type) pairs libgeblas.so compiles. bool takes the logical
// semiring and any_second; the arithmetic ones take the four numeric types.
constexpr bool supports_semiring(SemiringId s, TypeId t) {
  if (t == TypeId::boolean) return s == SemiringId::lor_land || s == SemiringId::any_second;
  return s != SemiringId::lor_land;
}

// Calls f.template operator()<S>() with semiring::<name><T> for the runtime id.
// Only call it for pairs where supports_semiring() holds.
template <class T, class F>
decltype(auto) visit_semiring(SemiringId id, F&& f) {
  switch (id) {
    case SemiringId::plus_times: return f.template operator()<semiring::plus_times<T>>();
    case SemiringId::max_times: return f.template operator()<semiring::max_times<T>>();
    case SemiringId::min_plus: return f.template operator()<semiring::min_plus<T>>();
    case SemiringId::max_plus: return f.template operator()<semiring::max_plus<T>>();
    case SemiringId::min_times: return f.template operator()<semiring::min_times<T>>();
    case SemiringId::max_min: return f.template operator()<semiring::max_min<T>>();
    case SemiringId::min_max: return f.template operator()<semiring::min_max<T>>();
    case SemiringId::lor_land: return f.template operator()<semiring::lor_land<T>>();
    case SemiringId::plus_pair: return f.template operator()<semiring::plus_pair<T>>();
    case SemiringId::min_second: return f.template operator()<semiring::min_second<T>>();
    case SemiringId::any_second: return f.template operator()<semiring::any_second<T>>();
    case SemiringId::plus_second: break;
  }
  return f.template operator()<semiring::plus_second<T>>();
}

GEBLAS_API const char* to_string(SemiringId id);
// The built-in semiring with this name ("plus_times", "min_plus", ...); throws
// InvalidValue for an unknown name.
GEBLAS_API SemiringId semiring_from_string(const char* name);

}  // namespace geblas
