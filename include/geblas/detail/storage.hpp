// Type-erased storage behind SparseMatrix<T>, DenseMatrix<T> and Vector<T>. The typed
// classes are thin façades over these; the compiled library reads and writes them, so
// one entry point serves every value type.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

#include "geblas/config.hpp"
#include "geblas/device.hpp"
#include "geblas/types.hpp"

namespace geblas::detail {

// Allocation and copies on any device. allocate() throws OutOfMemory (with the byte
// count) instead of returning null; deallocate() never throws.
GEBLAS_API void* allocate(Device device, std::size_t bytes);
GEBLAS_API void deallocate(Device device, void* ptr) noexcept;
GEBLAS_API void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device,
                           std::size_t bytes);
GEBLAS_API void zero_bytes(void* dst, Device device, std::size_t bytes);
// count_a * count_b * element bytes; OutOfMemory (naming `what`) when it passes 2^64.
GEBLAS_API std::size_t checked_bytes(Index count_a, Index count_b, std::size_t element, const char* what);

// An owning, untyped, device-tagged allocation. Copying copies the bytes on the same
// device; host allocations are 64-byte aligned.
class GEBLAS_API RawBuffer {
 public:
  RawBuffer() = default;
  RawBuffer(std::size_t bytes, Device device);
  RawBuffer(const RawBuffer& other);
  RawBuffer(RawBuffer&& other) noexcept;
  RawBuffer& operator=(const RawBuffer& other);
  RawBuffer& operator=(RawBuffer&& other) noexcept;
  ~RawBuffer();

  void* data() { return ptr_; }
  const void* data() const { return ptr_; }
  template <class T> T* as() { return static_cast<T*>(ptr_); }
  template <class T> const T* as() const { return static_cast<const T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }
  Device device() const { return device_; }

  // A copy of the bytes on another device.
  RawBuffer to(Device device) const;

  // A buffer over memory that another library owns (a NumPy array, a torch tensor
  // through DLPack), so that geblas reads and writes it in place: never freed here,
  // `owner` is kept alive as long as this buffer (or one moved from it) lives. Copies
  // of a borrowed buffer are ordinary owned buffers.
  static RawBuffer borrow(void* ptr, std::size_t bytes, Device device, std::shared_ptr<void> owner);
  bool borrowed() const { return owner_ != nullptr; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  Device device_{};
  std::shared_ptr<void> owner_;
};

// Lazily built facts derived from a matrix (its transpose, row statistics, kernel
// plans), shared by the operations that need them and dropped whenever the matrix
// changes. Opaque here; defined in src/core/derived_cache.hpp.
struct DerivedCache;
GEBLAS_API std::shared_ptr<DerivedCache> make_derived_cache();

// Holds a matrix's cache. A copied matrix starts with an empty cache of its own.
class DerivedSlot {
 public:
  DerivedSlot() : cache_(make_derived_cache()) {}
  DerivedSlot(const DerivedSlot&) : cache_(make_derived_cache()) {}
  DerivedSlot(DerivedSlot&&) noexcept = default;
  DerivedSlot& operator=(const DerivedSlot&) { reset(); return *this; }
  DerivedSlot& operator=(DerivedSlot&&) noexcept = default;
  void reset() { cache_ = make_derived_cache(); }
  DerivedCache* get() const { return cache_.get(); }

 private:
  std::shared_ptr<DerivedCache> cache_;
};

// CSR: row_offsets holds nrows + 1 Index values, col_indices and values hold nvals
// entries; columns are sorted and unique within each row.
struct SparseStorage {
  Index nrows = 0;
  Index ncols = 0;
  Index nvals = 0;
  TypeId type = TypeId::float32;
  Device device{};
  RawBuffer row_offsets;
  RawBuffer col_indices;
  RawBuffer values;
  DerivedSlot derived;
};

// A full dense matrix: every entry is present. Element (i, j) is at
// data[i * ld + j] (row-major) or data[j * ld + i] (column-major).
struct DenseStorage {
  Index nrows = 0;
  Index ncols = 0;
  Index ld = 0;
  Layout layout = Layout::row_major;
  TypeId type = TypeId::float32;
  Device device{};
  RawBuffer data;
};

// A vector is dense (all `size` entries present, `values` holds them in order) or
// sparse (`nvals` sorted, unique ColIndex `indices` with their `values`).
struct VectorStorage {
  Index size = 0;
  Index nvals = 0;
  bool dense = false;
  TypeId type = TypeId::float32;
  Device device{};
  RawBuffer indices;
  RawBuffer values;
};

// Throws InvalidValue unless 0 <= nrows, ncols <= max_dimension; `where` names the caller.
GEBLAS_API void check_dimensions(Index nrows, Index ncols, const char* where);

// Constructors of empty/zero storage, shared by the façades and the backends.
GEBLAS_API SparseStorage make_sparse(Index nrows, Index ncols, TypeId type, Device device);
GEBLAS_API DenseStorage make_dense(Index nrows, Index ncols, Layout layout, TypeId type,
                                   Device device);
GEBLAS_API VectorStorage make_sparse_vector(Index size, TypeId type, Device device);
GEBLAS_API VectorStorage make_dense_vector(Index size, TypeId type, Device device);

GEBLAS_API SparseStorage to_device(const SparseStorage& s, Device device);
GEBLAS_API DenseStorage to_device(const DenseStorage& s, Device device);
GEBLAS_API VectorStorage to_device(const VectorStorage& s, Device device);

}  // namespace geblas::detail
