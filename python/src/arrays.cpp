// Borrowing NumPy / DLPack arrays into geblas storage and exporting geblas buffers back
// without copies (see arrays.hpp).
#include "arrays.hpp"

#include <pybind11/numpy.h>

#include <cstdio>
#include <string>

#include "geblas/detail/stream_state.hpp"
#include "geblas/device.hpp"
#include "geblas/error.hpp"
#include "geblas/stream.hpp"

namespace geblas::python {

TypeId type_from_name(const std::string& name) {
  static const std::pair<const char*, TypeId> names[] = {{"bool", TypeId::boolean},     {"int32", TypeId::int32},
                                                         {"int64", TypeId::int64},      {"float32", TypeId::float32},
                                                         {"float64", TypeId::float64},  {"float16", TypeId::float16},
                                                         {"bfloat16", TypeId::bfloat16}};
  for (const auto& [n, t] : names)
    if (name == n) return t;
  throw DomainMismatch("geblas: dtype '" + name +
                       "' is not stored by geblas (bool, int32, int64, float16, bfloat16, float32, float64)");
}

Device device_from_name(const std::string& name) {
  if (name == "cpu") return Device::cpu();
  if (name == "cuda") return Device::cuda(0);
  if (name.rfind("cuda:", 0) == 0) {
    const std::string digits = name.substr(5);
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos && digits.size() < 6)
      return Device::cuda(std::stoi(digits));
  }
  throw InvalidValue("geblas: unknown device '" + name + "' (use \"cpu\", \"cuda\" or \"cuda:N\")");
}

namespace {

// Releases a Python reference from any thread, at any time the interpreter still runs.
std::shared_ptr<void> keep_alive(py::object obj) {
  return std::shared_ptr<void>(new py::object(std::move(obj)), [](void* p) {
    auto* o = static_cast<py::object*>(p);
    if (!Py_IsInitialized()) return;  // at exit: leak rather than touch a dead interpreter
    py::gil_scoped_acquire gil;
    delete o;
  });
}

TypeId type_from_numpy(const py::dtype& dt, const std::string& what) {
  if (dt.byteorder() == '>')
    throw DomainMismatch("geblas: " + what + " has big-endian values; convert it to native order");
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'b' && size == 1) return TypeId::boolean;
  if (kind == 'i' && size == 4) return TypeId::int32;
  if (kind == 'i' && size == 8) return TypeId::int64;
  if (kind == 'f' && size == 2) return TypeId::float16;
  if (kind == 'f' && size == 4) return TypeId::float32;
  if (kind == 'f' && size == 8) return TypeId::float64;
  throw DomainMismatch("geblas: " + what + " has dtype " + dt.attr("name").cast<std::string>() +
                       ", which geblas does not store (bool, int32, int64, float16, float32, float64; "
                       "bfloat16 through DLPack)");
}

TypeId type_from_dlpack(DLDataType t, const std::string& what) {
  if (t.lanes == 1) {
    if (t.code == 6 && t.bits == 8) return TypeId::boolean;
    if (t.code == 0 && t.bits == 32) return TypeId::int32;
    if (t.code == 0 && t.bits == 64) return TypeId::int64;
    if (t.code == 2 && t.bits == 16) return TypeId::float16;
    if (t.code == 2 && t.bits == 32) return TypeId::float32;
    if (t.code == 2 && t.bits == 64) return TypeId::float64;
    if (t.code == 4 && t.bits == 16) return TypeId::bfloat16;
  }
  throw DomainMismatch(
      "geblas: " + what + " has DLPack dtype (code " + std::to_string(t.code) + ", " + std::to_string(t.bits) +
      " bits, " + std::to_string(t.lanes) +
      " lanes), which geblas does not store (bool, int32, int64, float16, bfloat16, float32, float64)");
}

DLDataType dlpack_type(TypeId t) {
  switch (t) {
    case TypeId::boolean: return {6, 8, 1};
    case TypeId::int32: return {0, 32, 1};
    case TypeId::int64: return {0, 64, 1};
    case TypeId::float16: return {2, 16, 1};
    case TypeId::float32: return {2, 32, 1};
    case TypeId::float64: return {2, 64, 1};
    case TypeId::bfloat16: return {4, 16, 1};
  }
  return {2, 32, 1};
}

ArrayView view_numpy(const py::array& a, const std::string& what) {
  ArrayView v;
  v.type = type_from_numpy(a.dtype(), what);
  v.device = Device::cpu();
  v.data = const_cast<void*>(a.data());
  v.writable = a.writeable();
  const auto item = static_cast<std::int64_t>(a.itemsize());
  for (py::ssize_t d = 0; d < a.ndim(); ++d) {
    v.shape.push_back(static_cast<std::int64_t>(a.shape(d)));
    const auto stride = static_cast<std::int64_t>(a.strides(d));
    // A stride that is no multiple of the element (a view into a record array) cannot be
    // expressed in elements; such an array is not contiguous anyway.
    if (stride % item != 0)
      throw InvalidValue("geblas: " + what + " has a stride of " + std::to_string(stride) +
                         " bytes, not a multiple of its element size; pass a contiguous array");
    v.strides.push_back(stride / item);
  }
  v.owner = keep_alive(a);
  return v;
}

// Takes over the tensor of an unused "dltensor" capsule (from __dlpack__, or handed in
// directly: torch.utils.dlpack.to_dlpack skips the Python-level checks of
// Tensor.__dlpack__, a few microseconds of every geblas.torch call).
ArrayView view_capsule(py::handle capsule, const std::string& what) {
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  // From here on geblas owns the tensor: mark the capsule used so that its destructor
  // does not free it too (the DLPack protocol).
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  std::shared_ptr<void> owner(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (!m->deleter || !Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;  // producers such as NumPy release Python objects here
    m->deleter(m);
  });
  const DLTensor& t = managed->dl_tensor;
  ArrayView v;
  v.owner = owner;
  switch (t.device.device_type) {
    case 1: v.device = Device::cpu(); break;
    case 2: v.device = Device::cuda(t.device.device_id); break;
    default:
      throw InvalidValue("geblas: " + what + " lives on DLPack device type " + std::to_string(t.device.device_type) +
                         "; geblas takes CPU (1) and CUDA (2) memory");
  }
  v.type = type_from_dlpack(t.dtype, what);
  v.data = static_cast<char*>(t.data) + t.byte_offset;
  std::int64_t compact = 1;
  v.shape.assign(t.shape, t.shape + t.ndim);
  v.strides.assign(static_cast<std::size_t>(t.ndim), 0);
  for (int d = t.ndim - 1; d >= 0; --d) {
    v.strides[static_cast<std::size_t>(d)] = t.strides ? t.strides[d] : compact;
    compact *= t.shape[d];
  }
  return v;
}

ArrayView view_dlpack(py::handle obj, const std::string& what) {
  py::object capsule = obj.attr("__dlpack__")();
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    throw InvalidValue("geblas: " + what + ".__dlpack__() did not return an unused 'dltensor' capsule");
  return view_capsule(capsule, what);
}

// Contiguous in the given order, ignoring the strides of dimensions of size 1 (which
// NumPy and torch set freely).
bool contiguous(const ArrayView& v, bool row_major) {
  std::int64_t expected = 1;
  const auto n = static_cast<int>(v.shape.size());
  for (int k = 0; k < n; ++k) {
    const int d = row_major ? n - 1 - k : k;
    const auto size = v.shape[static_cast<std::size_t>(d)];
    if (size == 0) return true;
    if (size != 1 && v.strides[static_cast<std::size_t>(d)] != expected) return false;
    expected *= size;
  }
  return true;
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::size_t element_count(const ArrayView& v) {
  std::size_t n = 1;
  for (auto s : v.shape) n *= static_cast<std::size_t>(s);
  return n;
}

}  // namespace

bool is_array(py::handle obj) {
  return py::isinstance<py::array>(obj) || PyCapsule_CheckExact(obj.ptr()) || py::hasattr(obj, "__dlpack__");
}

ArrayView view_of(py::handle obj, const std::string& what) {
  if (py::isinstance<py::array>(obj)) return view_numpy(py::reinterpret_borrow<py::array>(obj), what);
  if (PyCapsule_CheckExact(obj.ptr())) {
    if (!PyCapsule_IsValid(obj.ptr(), "dltensor"))
      throw InvalidValue("geblas: " + what + " is a capsule but not an unused DLPack 'dltensor' one");
    return view_capsule(obj, what);
  }
  if (py::hasattr(obj, "__dlpack__")) return view_dlpack(obj, what);
  throw InvalidValue("geblas: " + what + " must be a NumPy array or an object with __dlpack__ (got " +
                     std::string(py::str(py::type::handle_of(obj).attr("__name__"))) + ")");
}

detail::DenseStorage dense_from_view(const ArrayView& v, const std::string& what) {
  if (v.shape.size() != 2)
    throw DimensionMismatch("geblas: " + what + " must be 2-dimensional, has shape " + shape_string(v.shape));
  const bool row = contiguous(v, true), col = !row && contiguous(v, false);
  if (!row && !col)
    throw InvalidValue("geblas: " + what + " of shape " + shape_string(v.shape) + " is not contiguous (strides " +
                       shape_string(v.strides) +
                       " elements); geblas uses arrays in place and makes no hidden copy: pass a C- or "
                       "Fortran-contiguous array (numpy.ascontiguousarray, tensor.contiguous())");
  detail::check_dimensions(v.shape[0], v.shape[1], what.c_str());
  detail::DenseStorage s;
  s.nrows = v.shape[0];
  s.ncols = v.shape[1];
  s.layout = row ? Layout::row_major : Layout::col_major;
  s.ld = row ? s.ncols : s.nrows;
  s.type = v.type;
  s.device = v.device;
  s.data = detail::RawBuffer::borrow(v.data, element_count(v) * size_of(v.type), v.device, v.owner);
  return s;
}

detail::RawBuffer buffer_from_view(const ArrayView& v, const std::string& what) {
  if (v.shape.size() != 1)
    throw DimensionMismatch("geblas: " + what + " must be 1-dimensional, has shape " + shape_string(v.shape));
  if (!contiguous(v, true))
    throw InvalidValue("geblas: " + what + " is not contiguous (stride " + std::to_string(v.strides[0]) +
                       "); geblas uses arrays in place and makes no hidden copy: pass a contiguous array");
  return detail::RawBuffer::borrow(v.data, element_count(v) * size_of(v.type), v.device, v.owner);
}

detail::VectorStorage vector_from_view(const ArrayView& v, const std::string& what) {
  detail::VectorStorage s;
  s.values = buffer_from_view(v, what);
  detail::check_dimensions(v.shape[0], 1, what.c_str());
  s.size = s.nvals = v.shape[0];
  s.dense = true;
  s.type = v.type;
  s.device = v.device;
  return s;
}

// --- export ----------------------------------------------------------------------------

Exported::Exported(detail::RawBuffer buffer, TypeId type, std::vector<std::int64_t> shape,
                   std::vector<std::int64_t> strides)
    : buffer_(std::move(buffer)),
      type_(type),
      device_(buffer_.device()),
      shape_(std::move(shape)),
      strides_(std::move(strides)) {
  note_stream();
}

void Exported::note_stream() { stream_ = device_.is_cuda() ? cuda::current_stream(device_) : nullptr; }

Exported Exported::from_dense(detail::DenseStorage s) {
  std::vector<std::int64_t> strides =
      s.layout == Layout::row_major ? std::vector<std::int64_t>{s.ld, 1} : std::vector<std::int64_t>{1, s.ld};
  const Device dev = s.device;
  Exported e(std::move(s.data), s.type, {s.nrows, s.ncols}, std::move(strides));
  e.device_ = dev;  // an empty buffer does not know its device
  e.note_stream();
  return e;
}

Exported Exported::from_vector(detail::VectorStorage s) {
  if (!s.dense) throw InvalidValue("geblas: internal: exporting a sparse vector as an array");
  const Device dev = s.device;
  Exported e(std::move(s.values), s.type, {s.size}, {1});
  e.device_ = dev;
  e.note_stream();
  return e;
}

void Exported::check_available(const char* how) const {
  if (exported_)
    throw InvalidValue(std::string("geblas: this result was already handed over through __dlpack__; ") + how +
                       " is no longer possible");
}

py::object Exported::numpy(py::object self) {
  check_available("numpy()");
  if (!device_.is_cpu())
    throw DeviceMismatch("geblas: the result is on " + device_.str() +
                         "; NumPy holds host memory only (use torch.from_dlpack, or move the matrix to the CPU)");
  const char* fmt = nullptr;
  switch (type_) {
    case TypeId::boolean: fmt = "?"; break;
    case TypeId::int32: fmt = "i4"; break;
    case TypeId::int64: fmt = "i8"; break;
    case TypeId::float16: fmt = "f2"; break;
    case TypeId::float32: fmt = "f4"; break;
    case TypeId::float64: fmt = "f8"; break;
    case TypeId::bfloat16:
      throw DomainMismatch("geblas: NumPy has no bfloat16; take the result through DLPack (torch.from_dlpack)");
  }
  const auto item = static_cast<std::int64_t>(size_of(type_));
  std::vector<py::ssize_t> shape(shape_.begin(), shape_.end()), strides;
  for (auto s : strides_) strides.push_back(static_cast<py::ssize_t>(s * item));
  viewed_ = true;
  // The view's base is this object, which owns the buffer: no copy, and the memory lives
  // as long as any view of it.
  return py::array(py::dtype(fmt), shape, strides, buffer_.data(), self);
}

namespace {
struct ExportContext {
  detail::RawBuffer buffer;
  std::vector<std::int64_t> shape, strides;
  DLManagedTensor managed{};
  // The consumer's stream, when it named one: the consumer frees the tensor (the deleter)
  // as soon as its last reference goes, while its kernels that read it may still be queued
  // on that stream, so the free waits for them.
  bool consumer_known = false;
  void* consumer = nullptr;
};

void release(DLManagedTensor* m) noexcept {
  auto* ctx = static_cast<ExportContext*>(m->manager_ctx);
  const Device d = ctx->buffer.device();
  if (ctx->consumer_known && d.is_cuda() && ctx->buffer.data()) {
    try {
      detail::cuda_stream_wait(d.ordinal(), cuda::current_stream(d), ctx->consumer);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "geblas: DLPack deleter on %s: %s\n", d.str().c_str(), e.what());
    }
  }
  delete ctx;  // the buffer is freed on this thread's current stream, after that wait
}
}  // namespace

py::object Exported::dlpack(py::object stream) {
  check_available("__dlpack__()");
  if (viewed_) throw InvalidValue("geblas: this result is already viewed by NumPy; it cannot move to DLPack");
  // DLPack's stream argument: -1 asks for no ordering; None or 1 the legacy default stream
  // (whose handle is 0), 2 the per-thread default stream (cudaStreamPerThread's handle),
  // any other value a stream handle. A consumer on the stream that produced the data
  // (torch's current stream, which the geblas package runs its calls on) needs no wait;
  // one on another stream waits for the producing stream on the device (an event, no
  // host wait), as the DLPack protocol asks. The producing stream must still exist (torch's
  // streams live as long as the process).
  const bool ordered = device_.is_cuda() && !(py::isinstance<py::int_>(stream) && stream.cast<long long>() == -1);
  void* consumer = nullptr;
  if (ordered) {
    std::uintptr_t handle = 0;
    if (!stream.is_none()) {
      handle = stream.cast<std::uintptr_t>();
      if (handle == 1) handle = 0;
    }
    consumer = reinterpret_cast<void*>(handle);  // NOLINT(performance-no-int-to-ptr): DLPack passes handles as integers
    detail::cuda_stream_wait(device_.ordinal(), consumer, stream_);
  }
  auto* ctx = new ExportContext{std::move(buffer_), shape_, strides_, {}, ordered, consumer};
  exported_ = true;
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = ctx->buffer.data();
  t.device = device_.is_cpu() ? DLDevice{1, 0} : DLDevice{2, device_.ordinal()};
  t.ndim = static_cast<std::int32_t>(ctx->shape.size());
  t.dtype = dlpack_type(type_);
  t.shape = ctx->shape.data();
  t.strides = ctx->strides.data();
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = release;
  PyObject* cap = PyCapsule_New(&ctx->managed, "dltensor", [](PyObject* c) {
    // A capsule nobody consumed still owns its tensor.
    if (PyCapsule_IsValid(c, "dltensor")) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
      if (m && m->deleter) m->deleter(m);
    }
  });
  if (!cap) {
    delete ctx;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(cap);
}

py::tuple Exported::dlpack_device() const {
  return device_.is_cpu() ? py::make_tuple(1, 0) : py::make_tuple(2, device_.ordinal());
}

std::uintptr_t Exported::data_ptr() const {
  check_available("data_ptr");
  return reinterpret_cast<std::uintptr_t>(buffer_.data());
}

}  // namespace geblas::python
