// DenseMatrix<T>: a full dense matrix on one device, row-major by default. Every entry
// is present: where GraphBLAS would leave an output entry absent (an empty row of A in
// A x B, say), a DenseMatrix output holds the add monoid's identity instead.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "geblas/detail/host_buffer.hpp"
#include "geblas/detail/random.hpp"
#include "geblas/detail/storage.hpp"
#include "geblas/error.hpp"

namespace geblas {

template <Scalar T>
class DenseMatrix {
 public:
  using value_type = T;

  DenseMatrix() : s_(detail::make_dense(0, 0, Layout::row_major, type_id<T>, Device::cpu())) {}
  // nrows x ncols, every entry T{}.
  DenseMatrix(Index nrows, Index ncols, Device device = Device::cpu(),
              Layout layout = Layout::row_major)
      : s_(detail::make_dense(nrows, ncols, layout, type_id<T>, device)) {}

  // A moved-from matrix is the empty 0 x 0 host matrix of the default constructor, so every
  // operation on it works as on any empty one or reports a dimension mismatch. Building
  // that state may allocate; noexcept keeps moves cheap in containers, and
  // running out of memory for those few bytes ends the program.
  DenseMatrix(const DenseMatrix&) = default;
  DenseMatrix& operator=(const DenseMatrix&) = default;
  DenseMatrix(DenseMatrix&& other) noexcept : s_(std::exchange(other.s_, empty_storage())) {}
  DenseMatrix& operator=(DenseMatrix&& other) noexcept {
    s_ = std::exchange(other.s_, empty_storage());
    return *this;
  }

  static DenseMatrix constant(Index nrows, Index ncols, T value, Device device = Device::cpu(),
                              Layout layout = Layout::row_major) {
    DenseMatrix m(nrows, ncols, Device::cpu(), layout);
    T* p = m.s_.data.template as<T>();
    for (Index k = 0, n = nrows * ncols; k < n; ++k) p[k] = value;
    return device.is_cpu() ? m : m.to(device);
  }

  // Random entries (floating point uniform in [0, 1), integers in [0, 10), bool fair
  // coin), the same for a given seed on every platform.
  static DenseMatrix random(Index nrows, Index ncols, Device device = Device::cpu(),
                            std::uint64_t seed = 42, Layout layout = Layout::row_major) {
    DenseMatrix m(nrows, ncols, Device::cpu(), layout);
    detail::SplitMix64 rng(seed);
    T* p = m.s_.data.template as<T>();
    for (Index k = 0, n = nrows * ncols; k < n; ++k) p[k] = rng.template value<T>();
    return device.is_cpu() ? m : m.to(device);
  }

  static DenseMatrix from_row_major(Index nrows, Index ncols, const std::vector<T>& values,
                                    Device device = Device::cpu()) {
    return from_vector(nrows, ncols, values, Layout::row_major, device, "from_row_major");
  }
  static DenseMatrix from_col_major(Index nrows, Index ncols, const std::vector<T>& values,
                                    Device device = Device::cpu()) {
    return from_vector(nrows, ncols, values, Layout::col_major, device, "from_col_major");
  }

  Index nrows() const { return s_.nrows; }
  Index ncols() const { return s_.ncols; }
  Index nvals() const { return s_.nrows * s_.ncols; }
  Index ld() const { return s_.ld; }
  Layout layout() const { return s_.layout; }
  Device device() const { return s_.device; }

  DenseMatrix to(Device device) const { return DenseMatrix(detail::to_device(s_, device)); }

  // The entries in row-major / column-major order, copied to the host.
  std::vector<T> to_row_major() const { return to_order(Layout::row_major); }
  std::vector<T> to_col_major() const { return to_order(Layout::col_major); }

  // Element access on the host (throws DeviceMismatch for a matrix on a GPU, and
  // IndexOutOfBounds outside the matrix).
  T& at(Index i, Index j) { return s_.data.template as<T>()[offset(i, j)]; }
  const T& at(Index i, Index j) const { return s_.data.template as<T>()[offset(i, j)]; }

  T* data() { return s_.data.template as<T>(); }
  const T* data() const { return s_.data.template as<T>(); }

  explicit DenseMatrix(detail::DenseStorage s) : s_(std::move(s)) {}
  detail::DenseStorage& storage() { return s_; }
  const detail::DenseStorage& storage() const { return s_; }

 private:
  static DenseMatrix from_vector(Index nrows, Index ncols, const std::vector<T>& values,
                                 Layout layout, Device device, const char* where) {
    detail::check_dimensions(nrows, ncols, where);
    if (static_cast<Index>(values.size()) != nrows * ncols)
      throw DimensionMismatch(std::string("DenseMatrix::") + where + ": " + std::to_string(nrows) +
                              " x " + std::to_string(ncols) + " needs " +
                              std::to_string(nrows * ncols) + " values, got " +
                              std::to_string(values.size()));
    detail::DenseStorage s = detail::make_dense(nrows, ncols, layout, type_id<T>, Device::cpu());
    s.data = detail::host_buffer_from(values);
    return DenseMatrix(device.is_cpu() ? std::move(s) : detail::to_device(s, device));
  }

  std::size_t offset(Index i, Index j) const {
    if (!s_.device.is_cpu())
      throw DeviceMismatch("DenseMatrix::at: the matrix is on " + s_.device.str() +
                           "; copy it to the host with to(Device::cpu()) first");
    if (i < 0 || i >= s_.nrows || j < 0 || j >= s_.ncols)
      throw IndexOutOfBounds("DenseMatrix::at(" + std::to_string(i) + ", " + std::to_string(j) +
                             ") outside " + std::to_string(s_.nrows) + " x " + std::to_string(s_.ncols));
    return static_cast<std::size_t>(s_.layout == Layout::row_major ? i * s_.ld + j : j * s_.ld + i);
  }

  std::vector<T> to_order(Layout order) const {
    const Index outer = s_.layout == Layout::row_major ? s_.nrows : s_.ncols;
    std::vector<T> raw = detail::vector_from<T>(s_.data, static_cast<std::size_t>(outer ? (outer - 1) * s_.ld + (s_.layout == Layout::row_major ? s_.ncols : s_.nrows) : 0));
    std::vector<T> out(static_cast<std::size_t>(s_.nrows * s_.ncols));
    for (Index i = 0; i < s_.nrows; ++i)
      for (Index j = 0; j < s_.ncols; ++j) {
        const Index src = s_.layout == Layout::row_major ? i * s_.ld + j : j * s_.ld + i;
        const Index dst = order == Layout::row_major ? i * s_.ncols + j : j * s_.nrows + i;
        out[static_cast<std::size_t>(dst)] = raw[static_cast<std::size_t>(src)];
      }
    return out;
  }

  static detail::DenseStorage empty_storage() {
    return detail::make_dense(0, 0, Layout::row_major, type_id<T>, Device::cpu());
  }

  detail::DenseStorage s_;
};

}  // namespace geblas
