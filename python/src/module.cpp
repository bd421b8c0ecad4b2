// The _geblas extension module: geblas's objects (Matrix, Vector), operations, graph
// algorithms, run-time semirings and torch / DLPack interop for Python, one binding file
// per area (common.hpp lists them). Everything dispatches at run time through the
// library's type-erased entry points (internal.hpp), so the module instantiates no kernel.
#include "common.hpp"

PYBIND11_MODULE(_geblas, m) {
  using namespace geblas::python;
  m.doc() = "geblas: GraphBLAS-style semiring sparse linear algebra (CPU and CUDA). Use the geblas package.";
  // A class is bound before the functions whose signatures name it: pybind11 writes a
  // signature's type names when the function is bound (Exported is returned by
  // Vector._dense, Matrix by the operations), and geblas/__init__.py reads them.
  bind_interop(m);
  bind_objects(m);
  bind_operations(m);
  bind_jit(m);
  bind_algorithms(m);
  bind_attention(m);
}
