// Arrays crossing the Python boundary: a view of any NumPy array (buffer protocol) or
// object with __dlpack__ (torch, CuPy, JAX) that geblas borrows in place, and the
// Exported holder that hands a geblas buffer back without a copy (as a NumPy view or a
// DLPack capsule). The DLPack structs follow the DLPack 0.x ABI (dlpack.h, v0.8), which
// every producer still accepts through the unversioned "dltensor" capsule.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "geblas/detail/storage.hpp"

namespace geblas::python {

namespace py = pybind11;

// --- DLPack ABI (the subset geblas needs) ---------------------------------------------
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
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

// Names of the stored types as Python spells them ("float32", ...), both ways.
TypeId type_from_name(const std::string& name);
Device device_from_name(const std::string& name);

// A borrowed n-dimensional array: its memory stays owned by the Python object, which
// `owner` keeps alive (releasing it takes the GIL).
struct ArrayView {
  void* data = nullptr;
  TypeId type = TypeId::float32;
  Device device{};
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;  // in elements
  bool writable = true;
  std::shared_ptr<void> owner;
};

// True for an object geblas treats as an array (NumPy array, anything with __dlpack__, a
// DLPack capsule).
bool is_array(py::handle obj);
// `what` names the argument in error messages. Raises TypeError for a dtype geblas does
// not store, ValueError for an unsupported device.
ArrayView view_of(py::handle obj, const std::string& what);

// The array as a dense matrix (2-D) or dense vector (1-D) over the same memory. The
// array must be contiguous (C or Fortran order for a matrix); anything else is a
// ValueError naming `what`: no hidden copy is made.
detail::DenseStorage dense_from_view(const ArrayView& v, const std::string& what);
detail::VectorStorage vector_from_view(const ArrayView& v, const std::string& what);
// The 1-D array's memory as a buffer of `count` elements (contiguous required).
detail::RawBuffer buffer_from_view(const ArrayView& v, const std::string& what);

// A geblas-owned buffer on its way out to Python: exported once, either as a NumPy
// view (CPU only; the view keeps this object alive) or through __dlpack__ (the
// consumer then owns the buffer).
class Exported {
 public:
  Exported(detail::RawBuffer buffer, TypeId type, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides);
  static Exported from_dense(detail::DenseStorage s);
  static Exported from_vector(detail::VectorStorage s);  // dense storage only

  py::object numpy(py::object self);
  py::object dlpack(py::object stream);
  py::tuple dlpack_device() const;
  std::uintptr_t data_ptr() const;
  TypeId type() const { return type_; }
  Device device() const { return device_; }
  const std::vector<std::int64_t>& shape() const { return shape_; }

 private:
  void check_available(const char* how) const;
  void note_stream();
  detail::RawBuffer buffer_;
  TypeId type_;
  Device device_;
  // The stream that produced the buffer (this thread's current stream for the device when
  // the result was made), so that __dlpack__ waits only for a consumer on another stream.
  void* stream_ = nullptr;
  std::vector<std::int64_t> shape_, strides_;
  bool exported_ = false;
  bool viewed_ = false;
};

}  // namespace geblas::python
