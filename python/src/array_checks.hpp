// The checks the Python module applies to every array handed in, kept free of Python so
// that a C++ fuzz target (tests/fuzz/fuzz_array_checks.cpp) runs exactly the same code:
// dtype, device, shape and strides of a NumPy array or DLPack tensor, the contiguity that
// lets geblas use the memory in place, and the CSR / COO inputs of Matrix.from_csr and
// Matrix.from_coo. Every failure is a geblas::Error naming the argument (`what`); no
// accepted array makes geblas address a byte outside the memory its shape and strides
// describe, and no size computation wraps.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "internal.hpp"

namespace geblas::python::checks {

// --- DLPack ABI (the subset geblas needs; dlpack.h v0.8, the unversioned "dltensor") ---
struct DLDevice {
  std::int32_t device_type;  // 1 CPU, 2 CUDA, 3 CUDA host, 13 CUDA managed
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;  // 0 int, 1 uint, 2 float, 4 bfloat, 6 bool
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null means compact row-major
  std::uint64_t byte_offset;
};
// What a "dltensor" capsule holds: the tensor and how its producer frees it.
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

// A borrowed n-dimensional array; `owner` keeps the producer's memory alive.
struct ArrayView {
  void* data = nullptr;
  TypeId type = TypeId::float32;
  Device device{};
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;  // in elements
  bool writable = true;
  std::shared_ptr<void> owner;
};

// The types geblas stores, in the library's order: TypeId's enumerators, counted through
// to_string (which names each one and answers "?" past the last), so that no list here
// repeats them.
inline constexpr int stored_type_count = [] {
  int k = 0;
  while (to_string(static_cast<TypeId>(k)) != "?") ++k;
  return k;
}();
constexpr TypeId stored_type(int k) { return static_cast<TypeId>(k); }
// "bool, int32, ..." for messages.
std::string stored_type_names();

// More dimensions than any producer uses (NumPy allows 64): a larger ndim is a corrupt tensor.
inline constexpr int max_ndim = 64;

// A NumPy dtype by its kind ('b', 'i', 'f', ...), item size and byte order ('>' is
// big-endian); `dtype_name` is shown in the error. DomainMismatch for what geblas does not store.
TypeId type_from_numpy(char kind, std::int64_t itemsize, char byteorder, const std::string& dtype_name,
                       const std::string& what);
TypeId type_from_dlpack(DLDataType t, const std::string& what);
// The DLPack dtype of a stored type, as geblas exports it (type_from_dlpack inverts it).
DLDataType dlpack_dtype(TypeId t);

// The view of a NumPy array's memory: its shape and strides in bytes (as NumPy gives them).
ArrayView numpy_view(void* data, TypeId type, bool writable, int ndim, const std::int64_t* shape,
                     const std::int64_t* byte_strides, std::int64_t itemsize, const std::string& what);
// The view of a DLPack tensor (device, dtype, ndim, shape, strides, byte offset checked).
ArrayView dlpack_view(const DLTensor& t, std::shared_ptr<void> owner, const std::string& what);

// Contiguous in the given order (strides of dimensions of size 1 are ignored).
bool contiguous(const ArrayView& v, bool row_major);
// Bytes the array's elements take: InvalidValue naming `what` when that does not fit 2^62.
std::size_t byte_count(const ArrayView& v, const std::string& what);

// The same memory as a dense matrix (2-D, C or Fortran order), a dense vector or a
// buffer (1-D, contiguous); anything else is an error naming `what`, never a copy.
DenseStorage dense_from_view(const ArrayView& v, const std::string& what);
VectorStorage vector_from_view(const ArrayView& v, const std::string& what);
RawBuffer buffer_from_view(const ArrayView& v, const std::string& what);

// Matrix.from_csr over the three arrays (one device; int32 or int64 indices, which are
// range-checked before narrowing; validate: adopt_csr's full check, on host copies for
// device arrays; copy: the matrix owns copies).
SparseStorage csr_from_views(Index nrows, Index ncols, const ArrayView& indptr, const ArrayView& indices,
                             const ArrayView& values, bool validate, bool copy);
// Matrix.from_coo over host int64 rows and cols and any values, built on `device`.
SparseStorage coo_from_views(Index nrows, Index ncols, const ArrayView& rows, const ArrayView& cols,
                             const ArrayView& values, Duplicates dup, Device device);

}  // namespace geblas::python::checks
