// Borrowing NumPy / DLPack arrays into geblas storage and exporting geblas buffers back
// without copies (see arrays.hpp).
#include "arrays.hpp"

#include <pybind11/numpy.h>

#include <cstdio>
#include <string>

#include "geblas/device.hpp"
#include "geblas/error.hpp"
#include "geblas/stream.hpp"

namespace geblas::python {

TypeId type_from_name(const std::string& name) {
  for (int k = 0; k < checks::stored_type_count; ++k)
    if (name == to_string(checks::stored_type(k))) return checks::stored_type(k);
  throw DomainMismatch("geblas: dtype '" + name + "' is not stored by geblas (" + checks::stored_type_names() + ")");
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

TypeId numpy_type(const py::dtype& dt, const std::string& what) {
  try {
    return checks::type_from_numpy(dt.kind(), dt.itemsize(), dt.byteorder(), {}, what);
  } catch (const DomainMismatch&) {
    // The dtype's name takes a Python call: asked for only when the message needs it.
    return checks::type_from_numpy(dt.kind(), dt.itemsize(), dt.byteorder(), py::str(dt.attr("name")), what);
  }
}

ArrayView view_numpy(const py::array& a, const std::string& what) {
  const TypeId type = numpy_type(a.dtype(), what);
  const std::vector<std::int64_t> shape(a.shape(), a.shape() + a.ndim()), strides(a.strides(), a.strides() + a.ndim());
  ArrayView v = checks::numpy_view(const_cast<void*>(a.data()), type, a.writeable(), static_cast<int>(a.ndim()),
                                   shape.data(), strides.data(), a.itemsize(), what);
  v.owner = keep_alive(a);
  return v;
}

// Takes over the tensor of an unused "dltensor" capsule (from __dlpack__, or handed in
// directly: torch.utils.dlpack.to_dlpack skips the Python-level checks of
// Tensor.__dlpack__, a few microseconds of every geblas.torch call).
ArrayView view_capsule(py::handle capsule, const std::string& what) {
  auto* managed = static_cast<checks::DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (!managed) throw py::error_already_set();
  // From here on geblas owns the tensor: mark the capsule used so that its destructor
  // does not free it too (the DLPack protocol). A tensor the checks refuse is freed
  // with the owner.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  std::shared_ptr<void> owner(managed, [](void* p) {
    auto* m = static_cast<checks::DLManagedTensor*>(p);
    if (!m->deleter || !Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;  // producers such as NumPy release Python objects here
    m->deleter(m);
  });
  return checks::dlpack_view(managed->dl_tensor, std::move(owner), what);
}

ArrayView view_dlpack(py::handle obj, const std::string& what) {
  py::object capsule = obj.attr("__dlpack__")();
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    throw InvalidValue("geblas: " + what + ".__dlpack__() did not return an unused 'dltensor' capsule");
  return view_capsule(capsule, what);
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

// --- export ----------------------------------------------------------------------------

Exported::Exported(RawBuffer buffer, TypeId type, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides)
    : buffer_(std::move(buffer)),
      type_(type),
      device_(buffer_.device()),
      shape_(std::move(shape)),
      strides_(std::move(strides)) {
  note_stream();
}

void Exported::note_stream() { stream_ = device_.is_cuda() ? cuda::current_stream(device_) : nullptr; }

Exported Exported::from_dense(DenseStorage s) {
  std::vector<std::int64_t> strides =
      s.layout == Layout::row_major ? std::vector<std::int64_t>{s.ld, 1} : std::vector<std::int64_t>{1, s.ld};
  const Device dev = s.device;
  Exported e(std::move(s.data), s.type, {s.nrows, s.ncols}, std::move(strides));
  e.device_ = dev;  // an empty buffer does not know its device
  e.note_stream();
  return e;
}

Exported Exported::from_vector(VectorStorage s) {
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
  RawBuffer buffer;
  std::vector<std::int64_t> shape, strides;
  checks::DLManagedTensor managed{};
  // The consumer's stream, when it named one: the consumer frees the tensor (the deleter)
  // as soon as its last reference goes, while its kernels that read it may still be queued
  // on that stream, so the free waits for them.
  bool consumer_known = false;
  void* consumer = nullptr;
};

void release(checks::DLManagedTensor* m) noexcept {
  auto* ctx = static_cast<ExportContext*>(m->manager_ctx);
  const Device d = ctx->buffer.device();
  if (ctx->consumer_known && d.is_cuda() && ctx->buffer.data()) {
    try {
      lib::cuda_stream_wait(d.ordinal(), cuda::current_stream(d), ctx->consumer);
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
    lib::cuda_stream_wait(device_.ordinal(), consumer, stream_);
  }
  auto* ctx = new ExportContext{std::move(buffer_), shape_, strides_, {}, ordered, consumer};
  exported_ = true;
  checks::DLTensor& t = ctx->managed.dl_tensor;
  t.data = ctx->buffer.data();
  t.device = device_.is_cpu() ? checks::DLDevice{1, 0} : checks::DLDevice{2, device_.ordinal()};
  t.ndim = static_cast<std::int32_t>(ctx->shape.size());
  t.dtype = checks::dlpack_dtype(type_);
  t.shape = ctx->shape.data();
  t.strides = ctx->strides.data();
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = release;
  PyObject* cap = PyCapsule_New(&ctx->managed, "dltensor", [](PyObject* c) {
    // A capsule nobody consumed still owns its tensor.
    if (PyCapsule_IsValid(c, "dltensor")) {
      auto* m = static_cast<checks::DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
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
