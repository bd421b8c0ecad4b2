// Vector<T>: a vector of `size` entries on one device, stored dense (every entry
// present) or sparse (sorted indices of the present entries with their values).
// Operations accept either storage; a sparse input lets mxv / vxm push from a frontier.
#pragma once

#include <utility>
#include <vector>

#include "geblas/detail/host_buffer.hpp"
#include "geblas/detail/storage.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas {

namespace detail {
GEBLAS_API VectorStorage build_sparse_vector(Index size, const Index* indices, const void* values,
                                             Index count, TypeId type, Duplicates dup, Device device);
// The same entries in the other storage: dense -> sparse keeps every entry; sparse ->
// dense fills the absent entries with `fill` (a host pointer to one value of the type).
GEBLAS_API VectorStorage to_dense_storage(const VectorStorage& v, const void* fill);
GEBLAS_API VectorStorage to_sparse_storage(const VectorStorage& v);
}  // namespace detail

template <Scalar T>
class Vector {
 public:
  using value_type = T;

  Vector() : s_(detail::make_sparse_vector(0, type_id<T>, Device::cpu())) {}
  // `size` entries, none present (sparse storage).
  explicit Vector(Index size, Device device = Device::cpu())
      : s_(detail::make_sparse_vector(size, type_id<T>, device)) {}

  // A moved-from vector is the empty size 0 host vector of the default constructor, so every
  // operation on it works as on any empty one or reports a dimension mismatch. Building
  // that state may allocate; noexcept keeps moves cheap in containers, and
  // running out of memory for those few bytes ends the program.
  Vector(const Vector&) = default;
  Vector& operator=(const Vector&) = default;
  Vector(Vector&& other) noexcept : s_(std::exchange(other.s_, empty_storage())) {}
  Vector& operator=(Vector&& other) noexcept {
    s_ = std::exchange(other.s_, empty_storage());
    return *this;
  }

  // Dense: every entry present and equal to `value`.
  static Vector dense(Index size, T value = T{}, Device device = Device::cpu()) {
    std::vector<T> v(static_cast<std::size_t>(size < 0 ? 0 : size), value);
    return from_dense(size < 0 ? size : static_cast<Index>(v.size()), v, device);
  }
  static Vector from_dense(const std::vector<T>& values, Device device = Device::cpu()) {
    return from_dense(static_cast<Index>(values.size()), values, device);
  }
  static Vector from_tuples(Index size, std::span<const Index> indices, std::span<const T> values,
                            Duplicates dup = {}, Device device = Device::cpu()) {
    if (indices.size() != values.size())
      throw DimensionMismatch("Vector::from_tuples: " + std::to_string(indices.size()) +
                              " indices but " + std::to_string(values.size()) + " values");
    return Vector(detail::build_sparse_vector(size, indices.data(), values.data(),
                                              static_cast<Index>(indices.size()), type_id<T>, dup,
                                              device));
  }

  Index size() const { return s_.size; }
  Index nvals() const { return s_.nvals; }
  bool is_dense() const { return s_.dense; }
  Device device() const { return s_.device; }

  Vector to(Device device) const { return Vector(detail::to_device(s_, device)); }
  // Same entries, dense storage; absent entries become `fill`.
  Vector densified(T fill) const { return Vector(detail::to_dense_storage(s_, &fill)); }
  // Same entries, sparse storage.
  Vector sparsified() const { return Vector(detail::to_sparse_storage(s_)); }

  // (index, value) of the present entries in index order, on the host.
  std::vector<std::pair<Index, T>> extract_tuples() const {
    std::vector<std::pair<Index, T>> out;
    auto vals = detail::vector_from<T>(s_.values, static_cast<std::size_t>(s_.nvals));
    out.reserve(vals.size());
    if (s_.dense) {
      for (std::size_t i = 0; i < vals.size(); ++i) out.emplace_back(static_cast<Index>(i), vals[i]);
    } else {
      auto idx = detail::vector_from<ColIndex>(s_.indices, static_cast<std::size_t>(s_.nvals));
      for (std::size_t k = 0; k < vals.size(); ++k) out.emplace_back(idx[k], vals[k]);
    }
    return out;
  }

  // All `size` entries on the host; absent ones are `fill`.
  std::vector<T> to_std_vector(T fill = T{}) const {
    if (s_.dense) return detail::vector_from<T>(s_.values, static_cast<std::size_t>(s_.size));
    std::vector<T> out(static_cast<std::size_t>(s_.size), fill);
    for (auto& [i, v] : extract_tuples()) out[static_cast<std::size_t>(i)] = v;
    return out;
  }

  explicit Vector(detail::VectorStorage s) : s_(std::move(s)) {}
  detail::VectorStorage& storage() { return s_; }
  const detail::VectorStorage& storage() const { return s_; }

 private:
  static Vector from_dense(Index size, const std::vector<T>& values, Device device) {
    detail::VectorStorage s = detail::make_dense_vector(size, type_id<T>, Device::cpu());
    s.values = detail::host_buffer_from(values);
    return Vector(device.is_cpu() ? std::move(s) : detail::to_device(s, device));
  }

  static detail::VectorStorage empty_storage() { return detail::make_sparse_vector(0, type_id<T>, Device::cpu()); }

  detail::VectorStorage s_;
};

}  // namespace geblas
