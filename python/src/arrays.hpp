// Arrays crossing the Python boundary: a view of any NumPy array (buffer protocol) or
// object with __dlpack__ (torch, CuPy, JAX) that geblas borrows in place, and the
// Exported holder that hands a geblas buffer back without a copy (as a NumPy view or a
// DLPack capsule). What a view must satisfy (dtype, device, shape, strides, sizes) is
// array_checks.hpp's, which a fuzz target runs without Python; this file adds only what
// needs the interpreter.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "array_checks.hpp"

namespace geblas::python {

namespace py = pybind11;

// A view becomes storage through dense_from_view / vector_from_view / buffer_from_view:
// the same memory, contiguous, or an error naming the argument (no hidden copy).
using checks::ArrayView;
using checks::buffer_from_view;
using checks::dense_from_view;
using checks::vector_from_view;

// Names of the stored types as Python spells them ("float32", ...), both ways.
TypeId type_from_name(const std::string& name);
Device device_from_name(const std::string& name);

// True for an object geblas treats as an array (NumPy array, anything with __dlpack__, a
// DLPack capsule).
bool is_array(py::handle obj);
// `what` names the argument in error messages. Raises TypeError for a dtype geblas does
// not store, ValueError for an unsupported device.
ArrayView view_of(py::handle obj, const std::string& what);

// A geblas-owned buffer on its way out to Python: exported once, either as a NumPy
// view (CPU only; the view keeps this object alive) or through __dlpack__ (the
// consumer then owns the buffer).
class Exported {
 public:
  Exported(RawBuffer buffer, TypeId type, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides);
  static Exported from_dense(DenseStorage s);
  static Exported from_vector(VectorStorage s);  // dense storage only

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
  RawBuffer buffer_;
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
