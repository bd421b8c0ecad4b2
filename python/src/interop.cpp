// Interoperation with NumPy, DLPack consumers and PyTorch: the Exported result buffer,
// the stream scopes that queue geblas calls on torch's current stream, and the one-call
// products geblas.torch runs (its tensors handed over as DLPack capsules).
#include <memory>
#include <optional>

#include <variant>

#include "common.hpp"

namespace geblas::python {

void bind_interop(py::module_& m) {
  py::class_<Exported>(m, "Exported", "A geblas result buffer: take it with numpy() or through __dlpack__.")
      .def("numpy", [](py::object self) { return self.cast<Exported&>().numpy(self); })
      .def(
          "__dlpack__", [](Exported& e, py::object stream, py::kwargs) { return e.dlpack(stream); },
          py::arg("stream") = py::none())
      .def("__dlpack_device__", &Exported::dlpack_device)
      .def_property_readonly("data_ptr", &Exported::data_ptr)
      .def_property_readonly("dtype", [](const Exported& e) { return type_name(e.type()); })
      .def_property_readonly("device", [](const Exported& e) { return e.device().str(); })
      .def_property_readonly("shape", [](const Exported& e) { return py::tuple(py::cast(e.shape())); });

  // geblas.torch and the operation wrappers enter one of these per CUDA device of a call,
  // with torch.cuda.current_stream(device).cuda_stream, so that the call is queued on
  // torch's stream (ordered with the torch work around it, no host synchronisation).
  // A guard is per host thread: enter and exit it in the same thread (a with block).
  struct StreamScope {
    Device device;
    void* stream;
    std::unique_ptr<cuda::StreamGuard> guard;
  };
  py::class_<StreamScope>(m, "_StreamScope", "Runs the geblas calls of a with block on a caller's CUDA stream.")
      .def(py::init([](const std::string& d, std::uintptr_t handle) {
             // A stream handle comes from Python as an integer (torch's Stream.cuda_stream).
             void* stream = reinterpret_cast<void*>(handle);  // NOLINT(performance-no-int-to-ptr)
             return StreamScope{device_from_name(d), stream, nullptr};
           }),
           py::arg("device"), py::arg("stream"))
      .def("__enter__",
           [](StreamScope& s) -> StreamScope& {
             if (s.guard) throw InvalidValue("geblas: a stream scope cannot be entered twice");
             s.guard = std::make_unique<cuda::StreamGuard>(s.device, s.stream);
             return s;
           })
      .def("__exit__", [](StreamScope& s, const py::args&) {
        s.guard.reset();
        return false;
      });
  m.def(
      "current_stream",
      [](const std::string& d) { return reinterpret_cast<std::uintptr_t>(cuda::current_stream(device_from_name(d))); },
      py::arg("device") = "cuda:0", "The CUDA stream (an integer handle) of this thread's geblas work on `device`.");

  m.def("_dense_view", [](py::object x) {
    // What geblas sees of an array, without copying: for tests of the zero-copy path.
    Operand op = operand(x, "x");
    const void* p = op.kind == Operand::Kind::dense ? op.dense.data.data() : op.dense_vec.values.data();
    return reinterpret_cast<std::uintptr_t>(p);
  });

  m.def(
      "_spmm",
      [](const py::object& a, const py::object& x, const py::object& y, const std::string& semiring, bool transpose_a,
         const py::object& stream) {
        // geblas.torch's product, one binding call with positional arguments: Y = A (+).(x) X
        // (A' with transpose_a) into the caller's Y in place, on `stream` (torch's current
        // stream; None: geblas's). X and Y may be DLPack capsules (to_dlpack), which skip
        // Tensor.__dlpack__. mxm(A, X, semiring, out=Y, transpose_a=...) does the same.
        PyMatrix& A = matrix_arg(a, "A", "_spmm");
        std::optional<cuda::StreamGuard> on;
        enter_stream(on, A.s().device, stream);
        Operand X = operand(x, "X");
        DenseOut Y;
        Y.given.emplace(operand(y, "Y"));
        if (X.kind != Operand::Kind::dense || Y.given->kind != Operand::Kind::dense)
          throw DimensionMismatch("_spmm: X and Y must be 2-D arrays");
        check_writable(*Y.given, "Y");
        const SemiringId sid = semiring_from_string(semiring.c_str());
        Options o;
        o.transpose_a = transpose_a;
        finish_dense(Y, [&](DenseStorage& ys) { lib::mxm(ys, A.s(), X.dense, sid, o); });
      },
      py::arg("A"), py::arg("X"), py::arg("Y"), py::arg("semiring"), py::arg("transpose_a"), py::arg("stream"));
  m.def(
      "_sddmm_values",
      [](const py::object& x, const py::object& y, const py::object& pattern, double scale, double leaky_relu,
         const py::object& stream) {
        // geblas.torch's sampled product: s_e = f(<X(row_e, :), Y(col_e, :)>) (plus_times) at
        // the entries of `pattern`, its structure as the mask, returned as the result's values
        // alone (1-D, pattern's CSR order; the buffer is handed over, not copied), on
        // `stream` as _spmm. f: scale when `scale` is not NaN, else leaky ReLU when
        // `leaky_relu` is not NaN, else the identity.
        PyMatrix& P = matrix_arg(pattern, "pattern", "_sddmm_values");
        std::optional<cuda::StreamGuard> on;
        enter_stream(on, P.s().device, stream);
        Operand X = operand(x, "X"), Y = operand(y, "Y");
        if (X.kind != Operand::Kind::dense || Y.kind != Operand::Kind::dense)
          throw DimensionMismatch("_sddmm_values: X and Y must be 2-D arrays");
        SampledOp f;
        if (scale == scale) f = SampledOp::scale(scale);
        else if (leaky_relu == leaky_relu) f = SampledOp::leaky_relu(leaky_relu);
        Options o;
        o.transpose_b = true;
        o.mask = std::visit([](const auto& M) { return Mask::structure(M); }, P.typed_matrix());
        SparseStorage C = lib::make_sparse(P.s().nrows, P.s().ncols, X.dense.type, P.s().device);
        {
          py::gil_scoped_release nogil;
          lib::mxm(C, X.dense, Y.dense, SemiringId::plus_times, o, f);
        }
        const Index nvals = C.nvals;
        return Exported(std::move(C.values), C.type, {nvals}, {1});
      },
      py::arg("X"), py::arg("Y"), py::arg("pattern"), py::arg("scale"), py::arg("leaky_relu"), py::arg("stream"));
  m.def(
      "_spmm_arg",
      [](const py::object& a, const py::object& x, const py::object& y, const py::object& arg,
         const std::string& reduce, const py::object& stream) {
        // geblas.torch's max / min forward when a backward will follow: Y and the winning
        // column (int32) in one pass, into the caller's tensors in place, on `stream` as
        // _spmm.
        if (reduce != "max" && reduce != "min")
          throw InvalidValue("_spmm_arg: reduce must be 'max' or 'min', got '" + reduce + "'");
        PyMatrix& A = matrix_arg(a, "A", "_spmm_arg");
        std::optional<cuda::StreamGuard> on;
        enter_stream(on, A.s().device, stream);
        Operand X = operand(x, "X"), Y = operand(y, "Y"), G = operand(arg, "arg");
        for (const Operand* o : {&X, &Y, &G})
          if (o->kind != Operand::Kind::dense || !o->is_array())
            throw InvalidValue("_spmm_arg: X, Y and arg must be 2-D arrays (torch tensors)");
        py::gil_scoped_release nogil;
        lib::cuda_spmm_arg_extreme(A.s(), X.dense, Y.dense, G.dense, reduce == "max");
      },
      py::arg("A"), py::arg("X"), py::arg("Y"), py::arg("arg"), py::arg("reduce"), py::arg("stream") = py::none());
  m.def(
      "_spmm_arg_scatter",
      [](const py::object& arg, const py::object& grad, const py::object& dx, const py::object& stream,
         const py::object& a) {
        // The backward of _spmm_arg: dX = 0, then dX(arg(i, f), f) += grad(i, f) x A(i, arg)
        // (A None: values 1), in one binding call (where torch needs a cast, a where, a
        // fill, a gather of the weights and a scatter_add).
        const SparseStorage* weights = a.is_none() ? nullptr : &matrix_arg(a, "A", "_spmm_arg_scatter").s();
        Operand G = operand(arg, "arg"), D = operand(grad, "grad"), X = operand(dx, "dX");
        for (const Operand* o : {&G, &D, &X})
          if (o->kind != Operand::Kind::dense || !o->is_array())
            throw InvalidValue("_spmm_arg_scatter: arg, grad and dX must be 2-D arrays (torch tensors)");
        check_writable(X, "dX");
        std::optional<cuda::StreamGuard> on;
        enter_stream(on, G.dense.device, stream);
        py::gil_scoped_release nogil;
        lib::cuda_spmm_arg_scatter(G.dense, D.dense, X.dense, weights);
      },
      py::arg("arg"), py::arg("grad"), py::arg("dX"), py::arg("stream") = py::none(), py::arg("A") = py::none());
}

}  // namespace geblas::python
