// Scalar and index types geblas stores, and the runtime tag that names each of them
// so that the compiled library can serve any of them through one entry point.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "geblas/config.hpp"
#include "geblas/half.hpp"

namespace geblas {

// Dimensions, counts and row offsets are 64-bit, so matrices with more than 2^31
// stored entries work. Column indices are 32-bit: they are most of the bytes an
// SpMM streams, and graphs beyond 2^31 vertices are out of scope.
using Index = std::int64_t;
using ColIndex = std::int32_t;
inline constexpr Index max_dimension = (Index{1} << 31) - 1;

// float16 and bfloat16 are storage types (half.hpp): sparse x dense mxm computes on them
// (in float) and geblas::convert converts them; other operations reject them.
enum class TypeId : std::uint8_t { boolean, int32, int64, float32, float64, float16, bfloat16 };

template <class T> struct type_traits;
template <> struct type_traits<bool> { static constexpr TypeId id = TypeId::boolean; static constexpr std::string_view name = "bool"; };
template <> struct type_traits<std::int32_t> { static constexpr TypeId id = TypeId::int32; static constexpr std::string_view name = "int32"; };
template <> struct type_traits<std::int64_t> { static constexpr TypeId id = TypeId::int64; static constexpr std::string_view name = "int64"; };
template <> struct type_traits<float> { static constexpr TypeId id = TypeId::float32; static constexpr std::string_view name = "float32"; };
template <> struct type_traits<double> { static constexpr TypeId id = TypeId::float64; static constexpr std::string_view name = "float64"; };
template <> struct type_traits<half> { static constexpr TypeId id = TypeId::float16; static constexpr std::string_view name = "float16"; };
template <> struct type_traits<bfloat16> { static constexpr TypeId id = TypeId::bfloat16; static constexpr std::string_view name = "bfloat16"; };

template <class T>
concept Scalar = requires { type_traits<std::remove_cv_t<T>>::id; };

template <Scalar T> inline constexpr TypeId type_id = type_traits<T>::id;

constexpr std::string_view to_string(TypeId t) {
  switch (t) {
    case TypeId::boolean: return "bool";
    case TypeId::int32: return "int32";
    case TypeId::int64: return "int64";
    case TypeId::float32: return "float32";
    case TypeId::float64: return "float64";
    case TypeId::float16: return "float16";
    case TypeId::bfloat16: return "bfloat16";
  }
  return "?";
}

constexpr std::size_t size_of(TypeId t) {
  switch (t) {
    case TypeId::boolean: return sizeof(bool);
    case TypeId::int32: return 4;
    case TypeId::int64: return 8;
    case TypeId::float32: return 4;
    case TypeId::float64: return 8;
    case TypeId::float16: return 2;
    case TypeId::bfloat16: return 2;
  }
  return 0;
}

// The 16-bit floating types, which only some operations compute on.
constexpr bool is_16bit_float(TypeId t) { return t == TypeId::float16 || t == TypeId::bfloat16; }

namespace detail {
// Thrown by visit_type for the 16-bit types: an operation that reaches it computes on
// float32 and float64 only.
[[noreturn]] GEBLAS_API void throw_16bit_not_computed(TypeId t);
}  // namespace detail

// Calls f.template operator()<T>() with the C++ type named by `t`, for the types that
// every operation computes on; float16 and bfloat16 throw NotImplemented (the paths that
// take them check for them before visiting).
template <class F>
decltype(auto) visit_type(TypeId t, F&& f) {
  switch (t) {
    case TypeId::float16:
    case TypeId::bfloat16: detail::throw_16bit_not_computed(t);
    case TypeId::boolean: return f.template operator()<bool>();
    case TypeId::int32: return f.template operator()<std::int32_t>();
    case TypeId::int64: return f.template operator()<std::int64_t>();
    case TypeId::float32: return f.template operator()<float>();
    case TypeId::float64: break;
  }
  return f.template operator()<double>();
}

enum class Layout : std::uint8_t { row_major, col_major };

}  // namespace geblas
