// Run-time semirings for Python (geblas.Semiring over <geblas/jit.hpp>): add and multiply
// given as names or expressions, compiled by NVRTC on a GPU, interpreted on the CPU; and
// mxm's path for them.
#include "common.hpp"

namespace geblas::python {

bool is_runtime_semiring(py::handle obj) { return py::isinstance<jit::Semiring>(obj); }

py::object mxm_runtime_semiring(Operand& A, Operand& B, py::handle semiring, py::object out, const py::kwargs& kw) {
  const auto& s = semiring.cast<const jit::Semiring&>();
  if (A.kind != Operand::Kind::sparse || B.kind != Operand::Kind::dense)
    throw NotImplemented("mxm with a run-time semiring (" + s.name() +
                         "): A must be sparse (geblas.Matrix or a SciPy matrix) and B dense; other shapes take the "
                         "built-in semirings");
  CallOptions c;
  parse_options(c, kw, A.type(), "mxm");
  const Index m = c.o.transpose_a ? A.sparse_s().ncols : A.sparse_s().nrows;
  const Index n = c.o.transpose_b ? B.dense.nrows : B.dense.ncols;
  DenseOut C = dense_out(out, m, n, s.type(), A.device(), "mxm");
  return finish_dense(C, [&](DenseStorage& cs) { lib::jit_mxm(cs, A.sparse_s(), B.dense, s, c.o); });
}

void bind_jit(py::module_& m) {
  py::class_<jit::Semiring>(m, "Semiring",
                            "A semiring defined at run time: add and multiply as built-in names or C-subset "
                            "expressions over a and b (grammar: include/geblas/jit.hpp). An expression add needs its "
                            "identity and must be associative and commutative; cuda=True takes the multiply as CUDA "
                            "C++ (GPU only). Compiled by NVRTC on first use on a GPU, interpreted on the CPU.")
      .def(py::init([](const std::string& add, const std::string& mul, const std::string& dtype, py::object identity,
                       py::object terminal, bool cuda) {
             const TypeId t = type_from_name(dtype);
             auto text = [](py::handle h) {
               if (h.is_none()) return std::string();
               if (py::isinstance<py::str>(h)) return h.cast<std::string>();
               return py::str(h).cast<std::string>();  // a number: its repr is a constant expression
             };
             if (identity.is_none() && !terminal.is_none())
               throw InvalidValue("geblas.Semiring: a terminal needs an expression add with its identity");
             const jit::monoid mo =
                 identity.is_none() ? jit::monoid(add) : jit::monoid(add, text(identity), text(terminal));
             if (cuda) return jit::Semiring(t, mo, jit::cuda_expr{mul});
             return jit::Semiring(t, mo, mul);
           }),
           py::arg("add"), py::arg("mul"), py::arg("dtype") = "float32", py::arg("identity") = py::none(),
           py::arg("terminal") = py::none(), py::arg("cuda") = false)
      .def_property_readonly("name", &jit::Semiring::name)
      .def_property_readonly("dtype", [](const jit::Semiring& s) { return type_name(s.type()); })
      .def("cuda_source", &jit::Semiring::cuda_source)
      .def("__repr__", [](const jit::Semiring& s) { return "geblas.Semiring(" + s.name() + ")"; });
  m.def("jit_variants", &jit::variants, "The SpMM variants that run-time semirings are compiled for.");
  m.def("jit_cache_directory", &jit::cache_directory, "The disk cache of compiled run-time semirings.");
  m.def("jit_clear_memory_cache", &jit::clear_memory_cache, "Forgets the in-memory cache (the disk cache stays).");
}

}  // namespace geblas::python
