// Allocation, copies and the constructors of empty storage; the device-specific work
// goes through the backend table.
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

#include "core/backend.hpp"
#include "core/derived_cache.hpp"
#include "geblas/detail/borrowed_pattern.hpp"
#include "geblas/error.hpp"

namespace geblas::detail {

std::shared_ptr<DerivedCache> make_derived_cache() { return std::make_shared<DerivedCache>(); }

namespace {
// Physical memory of this host. A host request above it cannot be met; refusing it here
// gives OutOfMemory at once, where the kernel's overcommit would otherwise hand out the
// address space and the process would be killed while the buffer is first written.
std::size_t host_physical_bytes() {
  static const std::size_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : SIZE_MAX;
  }();
  return bytes;
}
}  // namespace

void* allocate(Device device, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (device.is_cpu() && bytes > host_physical_bytes())
    throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes exceeds the " +
                          std::to_string(host_physical_bytes()) + " bytes of physical memory",
                      bytes);
  return backend_for(device).allocate(bytes, device.ordinal());
}

std::size_t checked_bytes(Index count_a, Index count_b, std::size_t element, const char* what) {
  std::size_t n = 0, bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(count_a), static_cast<std::size_t>(count_b), &n) ||
      __builtin_mul_overflow(n, element, &bytes))
    throw OutOfMemory(std::string(what) + ": " + std::to_string(count_a) + " x " + std::to_string(count_b) +
                          " entries of " + std::to_string(element) + " bytes do not fit in a 64-bit size",
                      SIZE_MAX);
  return bytes;
}

void deallocate(Device device, void* ptr) noexcept {
  if (!ptr) return;
  if (device.is_cpu()) {
    cpu_backend().deallocate(ptr, 0);
  } else if (const Backend* cuda = cuda_backend()) {
    cuda->deallocate(ptr, device.ordinal());
  }
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, std::size_t bytes) {
  if (bytes == 0) return;
  const Device other = dst_device.is_cpu() ? src_device : dst_device;
  backend_for(other).copy(dst, dst_device, src, src_device, bytes);
}

void zero_bytes(void* dst, Device device, std::size_t bytes) {
  if (bytes == 0) return;
  backend_for(device).zero(dst, bytes, device.ordinal());
}

RawBuffer::RawBuffer(std::size_t bytes, Device device)
    : ptr_(allocate(device, bytes)), bytes_(bytes), device_(device) {}

RawBuffer::RawBuffer(const RawBuffer& other) : RawBuffer(other.bytes_, other.device_) {
  copy_bytes(ptr_, device_, other.ptr_, other.device_, bytes_);
}

RawBuffer::RawBuffer(RawBuffer&& other) noexcept
    : ptr_(other.ptr_), bytes_(other.bytes_), device_(other.device_), owner_(std::move(other.owner_)) {
  other.ptr_ = nullptr;
  other.bytes_ = 0;
}

RawBuffer& RawBuffer::operator=(const RawBuffer& other) {
  if (this != &other) *this = RawBuffer(other);
  return *this;
}

RawBuffer& RawBuffer::operator=(RawBuffer&& other) noexcept {
  if (this != &other) {
    if (!owner_) deallocate(device_, ptr_);
    ptr_ = other.ptr_;
    bytes_ = other.bytes_;
    device_ = other.device_;
    owner_ = std::move(other.owner_);
    other.ptr_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

RawBuffer::~RawBuffer() {
  if (!owner_) deallocate(device_, ptr_);
}

RawBuffer RawBuffer::borrow(void* ptr, std::size_t bytes, Device device, std::shared_ptr<void> owner) {
  if (!owner) throw InvalidValue("RawBuffer::borrow: no owner given for the borrowed memory");
  RawBuffer b;
  b.ptr_ = ptr;
  b.bytes_ = bytes;
  b.device_ = device;
  b.owner_ = std::move(owner);
  return b;
}

RawBuffer RawBuffer::to(Device device) const {
  RawBuffer out(bytes_, device);
  copy_bytes(out.ptr_, device, ptr_, device_, bytes_);
  return out;
}

void check_dimensions(Index nrows, Index ncols, const char* where) {
  if (nrows < 0 || ncols < 0 || nrows > max_dimension || ncols > max_dimension)
    throw InvalidValue(std::string(where) + ": dimensions " + std::to_string(nrows) + " x " +
                       std::to_string(ncols) + " outside [0, 2^31 - 1]");
}

SparseStorage make_sparse(Index nrows, Index ncols, TypeId type, Device device) {
  check_dimensions(nrows, ncols, "SparseMatrix");
  SparseStorage s;
  s.nrows = nrows;
  s.ncols = ncols;
  s.type = type;
  s.device = device;
  s.row_offsets = RawBuffer(static_cast<std::size_t>(nrows + 1) * sizeof(Index), device);
  zero_bytes(s.row_offsets.data(), device, s.row_offsets.bytes());
  return s;
}

DenseStorage make_dense(Index nrows, Index ncols, Layout layout, TypeId type, Device device) {
  check_dimensions(nrows, ncols, "DenseMatrix");
  DenseStorage s;
  s.nrows = nrows;
  s.ncols = ncols;
  s.ld = layout == Layout::row_major ? ncols : nrows;
  s.layout = layout;
  s.type = type;
  s.device = device;
  // nrows * ncols * size can pass 2^64 within the dimension limit; a wrapped product
  // would allocate a small buffer that the kernels then overrun.
  s.data = RawBuffer(checked_bytes(nrows, ncols, size_of(type), "DenseMatrix"), device);
  zero_bytes(s.data.data(), device, s.data.bytes());
  return s;
}

VectorStorage make_sparse_vector(Index size, TypeId type, Device device) {
  check_dimensions(size, 1, "Vector");
  VectorStorage s;
  s.size = size;
  s.type = type;
  s.device = device;
  return s;
}

VectorStorage make_dense_vector(Index size, TypeId type, Device device) {
  check_dimensions(size, 1, "Vector");
  VectorStorage s;
  s.size = size;
  s.nvals = size;
  s.dense = true;
  s.type = type;
  s.device = device;
  s.values = RawBuffer(static_cast<std::size_t>(size) * size_of(type), device);
  zero_bytes(s.values.data(), device, s.values.bytes());
  return s;
}

SparseStorage to_device(const SparseStorage& s, Device device) {
  SparseStorage out;
  out.nrows = s.nrows;
  out.ncols = s.ncols;
  out.nvals = s.nvals;
  out.type = s.type;
  out.device = device;
  out.row_offsets = s.row_offsets.to(device);
  out.col_indices = s.col_indices.to(device);
  out.values = s.values.to(device);
  return out;
}

DenseStorage to_device(const DenseStorage& s, Device device) {
  DenseStorage out;
  out.nrows = s.nrows;
  out.ncols = s.ncols;
  out.ld = s.ld;
  out.layout = s.layout;
  out.type = s.type;
  out.device = device;
  out.data = s.data.to(device);
  return out;
}

VectorStorage to_device(const VectorStorage& s, Device device) {
  VectorStorage out;
  out.size = s.size;
  out.nvals = s.nvals;
  out.dense = s.dense;
  out.type = s.type;
  out.device = device;
  out.indices = s.indices.to(device);
  out.values = s.values.to(device);
  return out;
}

SparseStorage borrowed_pattern(const SparseStorage& S, void* values, TypeId type) {
  SparseStorage v;
  v.nrows = S.nrows;
  v.ncols = S.ncols;
  v.nvals = S.nvals;
  v.type = type;
  v.device = S.device;
  const auto keep = std::make_shared<int>(0);  // the memory belongs to S and the caller
  v.row_offsets = RawBuffer::borrow(const_cast<void*>(S.row_offsets.data()), S.row_offsets.bytes(), S.device, keep);
  v.col_indices = RawBuffer::borrow(const_cast<void*>(S.col_indices.data()), S.col_indices.bytes(), S.device, keep);
  v.values = RawBuffer::borrow(values, static_cast<std::size_t>(S.nvals) * size_of(type), S.device, keep);
  return v;
}

}  // namespace geblas::detail
