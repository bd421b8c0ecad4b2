// Host helpers shared by the CPU vector kernels: reading any vector (dense, sparse, or a
// VectorResult) as a bitmap (values + presence flags indexed by position), and
// allocating a dense-with-presence VectorResult. A bitmap makes every vector kernel a
// plain indexed loop, at the cost of O(size) memory, which the write-back pays anyway.
#pragma once

#include <cstdint>

#include "core/backend.hpp"

namespace geblas::detail::cpu {

// Read access to a vector of V as a bitmap. Dense inputs are used in place; sparse ones
// are scattered into buffers this object owns. `present == nullptr` means every entry.
template <class V>
class BitmapRead {
 public:
  explicit BitmapRead(const VectorStorage& v) { init(v, nullptr); }
  explicit BitmapRead(const VectorResult& r) { init(r.t, r.present.bytes() ? r.present.as<std::uint8_t>() : nullptr); }

  bool has(Index i) const { return !present_ || present_[i]; }
  V value(Index i) const { return values_[i]; }
  const V* values() const { return values_; }
  const std::uint8_t* present() const { return present_; }

 private:
  void init(const VectorStorage& v, const std::uint8_t* present) {
    if (v.dense) {
      values_ = v.values.as<V>();
      present_ = present;
      return;
    }
    const auto n = static_cast<std::size_t>(v.size);
    own_values_ = RawBuffer(n * sizeof(V), Device::cpu());
    own_present_ = RawBuffer(n, Device::cpu());
    std::uint8_t* p = own_present_.as<std::uint8_t>();
    V* x = own_values_.as<V>();
    for (std::size_t i = 0; i < n; ++i) p[i] = 0;
    const ColIndex* idx = v.indices.as<ColIndex>();
    const V* src = v.values.as<V>();
    for (Index k = 0; k < v.nvals; ++k) {
      p[idx[k]] = 1;
      x[idx[k]] = src[k];
    }
    values_ = x;
    present_ = p;
  }

  const V* values_ = nullptr;
  const std::uint8_t* present_ = nullptr;
  RawBuffer own_values_;
  RawBuffer own_present_;
};

// A dense VectorResult of `size` values with every presence flag 0.
inline VectorResult make_bitmap_result(Index size, TypeId type) {
  VectorResult r;
  r.t = make_dense_vector(size, type, Device::cpu());
  r.present = RawBuffer(static_cast<std::size_t>(size), Device::cpu());
  zero_bytes(r.present.data(), Device::cpu(), r.present.bytes());
  return r;
}

// Calls f.template operator()<Op>() for the accumulator, or binop::second (C = T on
// the written entries) when there is none.
template <class V, class F>
void with_accum_op(BinaryOpId accum, F&& f) {
  if (accum == BinaryOpId::none) f.template operator()<binop::second<V>>();
  else visit_binary_op<V>(accum, std::forward<F>(f));
}

}  // namespace geblas::detail::cpu
