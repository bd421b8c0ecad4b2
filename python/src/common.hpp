// What the binding files of the _geblas module share: the Python objects (Matrix,
// Vector), the conversion of arguments (operands, scalars, operator names, the options
// every operation takes) and of results (a caller's out= or a new object), and the
// entry point of each area. Each area binds itself in its own file, which module.cpp
// calls in turn: objects.cpp, operations.cpp, algorithms.cpp, jit.cpp, interop.cpp.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "arrays.hpp"
#include "geblas/dense_matrix.hpp"
#include "geblas/error.hpp"
#include "geblas/mask.hpp"
#include "geblas/stream.hpp"
#include "internal.hpp"

namespace geblas::python {

// --- the areas --------------------------------------------------------------------------

void bind_interop(py::module_& m);     // Exported results, DLPack, streams, geblas.torch's calls
void bind_objects(py::module_& m);     // errors, types, devices, Matrix, Vector, construction, I/O
void bind_operations(py::module_& m);  // mxm, mxv, vxm, ewise, apply, select, reduce, ...
void bind_jit(py::module_& m);         // run-time semirings (geblas.Semiring)
void bind_algorithms(py::module_& m);  // PageRank, BFS, SSSP, components, GNN aggregations
void bind_attention(py::module_& m);   // softmax_rows (edge softmax), the fused GAT aggregation

// --- typed façades over type-erased storage --------------------------------------------

template <template <class> class Obj>
using AnyOf =
    std::variant<Obj<bool>, Obj<std::int32_t>, Obj<std::int64_t>, Obj<float>, Obj<double>, Obj<half>, Obj<bfloat16>>;

template <template <class> class Obj, class S>
AnyOf<Obj> typed(S s) {
  switch (s.type) {
    case TypeId::boolean: return Obj<bool>(std::move(s));
    case TypeId::int32: return Obj<std::int32_t>(std::move(s));
    case TypeId::int64: return Obj<std::int64_t>(std::move(s));
    case TypeId::float32: return Obj<float>(std::move(s));
    case TypeId::float64: return Obj<double>(std::move(s));
    case TypeId::float16: return Obj<half>(std::move(s));
    case TypeId::bfloat16: break;
  }
  return Obj<bfloat16>(std::move(s));
}

// --- the objects --------------------------------------------------------------------------

// A matrix whose borrowed arrays failed the check of clear_cache() keeps the reason in
// `invalid` and refuses every use but its shape, type and repr until they pass again.
struct PyMatrix {
  AnyOf<SparseMatrix> m;
  std::string invalid;
  explicit PyMatrix(SparseStorage s);
  SparseStorage& s() {
    check_valid();
    return unchecked();
  }
  AnyOf<SparseMatrix>& typed_matrix() {
    check_valid();
    return m;
  }
  // The storage without the validity check: for metadata and for clear_cache itself.
  SparseStorage& unchecked() {
    return std::visit([](auto& x) -> SparseStorage& { return x.storage(); }, m);
  }
  void check_valid() const;
};

struct PyVector {
  AnyOf<Vector> v;
  explicit PyVector(VectorStorage s);
  VectorStorage& s() {
    return std::visit([](auto& x) -> VectorStorage& { return x.storage(); }, v);
  }
};

inline std::string type_name(TypeId t) { return std::string(to_string(t)); }

// --- scalars ------------------------------------------------------------------------------

// One value of a stored type, converted from a Python number (8 bytes hold every type).
struct ScalarValue {
  alignas(8) std::array<unsigned char, 8> bytes{};
  const void* data() const { return bytes.data(); }
  void* data() { return bytes.data(); }
};

ScalarValue scalar_of(TypeId t, py::handle x, const char* what);
py::object python_scalar(TypeId t, const ScalarValue& v);

// obj as T, or a DomainMismatch (TypeError) naming the argument and what it must be.
template <class T>
T arg_as(py::handle obj, const std::string& what, const char* expected) {
  try {
    return obj.cast<T>();
  } catch (const py::cast_error&) {
    throw DomainMismatch(what + " must be " + expected + ", got " +
                         py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
  }
}

// --- names of operators (the library's names, InvalidValue listing them otherwise) ------

BinaryOpId binary_op(const std::string& name);
UnaryOpId unary_op(const std::string& name);
MonoidId monoid(const std::string& name);

// --- operands -------------------------------------------------------------------------

// One operand of an operation: a geblas Matrix or Vector, or a borrowed array (2-D: a
// dense matrix, 1-D: a dense vector).
struct Operand {
  enum class Kind { sparse, dense, vector } kind = Kind::dense;
  PyMatrix* matrix = nullptr;
  PyVector* vector = nullptr;
  std::optional<ArrayView> view;
  DenseStorage dense;       // when kind == dense
  VectorStorage dense_vec;  // when kind == vector and from an array
  bool is_array() const { return view.has_value(); }

  const SparseStorage& sparse_s() const { return matrix->s(); }
  VectorStorage& vec_s() { return vector ? vector->s() : dense_vec; }
  TypeId type() const {
    if (matrix) return matrix->s().type;
    if (vector) return vector->s().type;
    return view->type;
  }
  Device device() const {
    if (matrix) return matrix->s().device;
    if (vector) return vector->s().device;
    return view->device;
  }
};

Operand operand(py::handle obj, const std::string& what);
void check_writable(const Operand& op, const std::string& what);
// obj as a geblas.Matrix, else a DomainMismatch naming `what` of `op`.
PyMatrix& matrix_arg(py::handle obj, const char* what, const char* op);
// None (every index) or a list of ints.
IndexList index_list(py::handle obj, const std::string& what);

// --- options ------------------------------------------------------------------------------

// Options::mask points into a typed object; this keeps that object (and any borrowed
// array behind it) alive and in place for the duration of the call.
struct CallOptions {
  Options o;
  std::optional<Operand> mask_operand;
  std::optional<AnyOf<DenseMatrix>> mask_dense;
  std::optional<AnyOf<Vector>> mask_vector;
  std::string variant;
  CallOptions() = default;
  CallOptions(const CallOptions&) = delete;
  CallOptions& operator=(const CallOptions&) = delete;
};

// Fills `c` from the keyword arguments every operation takes: mask, accum, replace,
// structural_mask, complement_mask, transpose_a, transpose_b, variant, allow_tf32.
// `type` is the operation's value type (the accumulator's type).
void parse_options(CallOptions& c, const py::kwargs& kw, TypeId type, const char* op_name);

// The caller's CUDA stream for one call, given as an integer handle (None: the current
// one): what a _StreamScope holds for a with block, without the Python calls that create,
// enter and leave one. Declared before the call's operands, so that it ends after them.
void enter_stream(std::optional<cuda::StreamGuard>& guard, Device device, const py::object& stream);

// --- outputs ------------------------------------------------------------------------------

// A sparse result: `f` writes into the caller's Matrix `out` (returns None) or into a
// new nrows x ncols Matrix (returned), with the GIL released while it runs.
template <class F>
py::object sparse_result(const py::object& out, Index nrows, Index ncols, TypeId t, Device dev, const char* op, F&& f) {
  if (!out.is_none()) {
    SparseStorage& cs = matrix_arg(out, "out", op).s();
    {
      py::gil_scoped_release nogil;
      f(cs);
    }
    return py::none();
  }
  SparseStorage C = lib::make_sparse(nrows, ncols, t, dev);
  {
    py::gil_scoped_release nogil;
    f(C);
  }
  return py::cast(PyMatrix(std::move(C)));
}

// A dense output: the caller's array (written in place) or a new one, returned as an
// Exported result.
struct DenseOut {
  std::optional<Operand> given;
  DenseStorage fresh;
  DenseStorage& s() { return given ? given->dense : fresh; }
};

DenseOut dense_out(py::object out, Index nrows, Index ncols, TypeId t, Device dev, const char* op);

// Runs `f` on the output; if the library replaced the borrowed buffer of a caller's
// array (it writes dense outputs in place, but a 16-bit product rounds into a fresh
// one), copies the result back into the caller's memory.
template <class F>
py::object finish_dense(DenseOut& d, F&& f) {
  void* before = d.s().data.data();
  const Layout layout = d.s().layout;
  {
    py::gil_scoped_release nogil;
    f(d.s());
  }
  if (!d.given) return py::cast(Exported::from_dense(std::move(d.fresh)));
  DenseStorage& s = d.given->dense;
  if (s.data.data() != before) {
    if (s.layout != layout) throw InvalidValue("geblas: internal: the result changed layout");
    lib::copy_bytes(before, s.device, s.data.data(), s.device, s.data.bytes());
  }
  return py::none();
}

struct VectorOut {
  std::optional<Operand> given;
  VectorStorage fresh;
  VectorStorage& s() { return given ? given->vec_s() : fresh; }
};

VectorOut vector_out(py::object out, Index size, TypeId t, Device dev, bool dense, const char* op);

template <class F>
py::object finish_vector(VectorOut& d, F&& f) {
  const bool borrowed = d.given && d.given->is_array();
  void* before = borrowed ? d.s().values.data() : nullptr;
  {
    py::gil_scoped_release nogil;
    f(d.s());
  }
  if (!d.given) {
    if (d.fresh.dense) return py::cast(Exported::from_vector(std::move(d.fresh)));
    return py::cast(PyVector(std::move(d.fresh)));
  }
  if (borrowed) {
    VectorStorage& s = d.s();
    if (!s.dense) throw InvalidValue("geblas: internal: a dense output vector became sparse");
    if (s.values.data() != before) lib::copy_bytes(before, s.device, s.values.data(), s.device, s.values.bytes());
  }
  return py::none();
}

// --- run-time semirings (jit.cpp), for mxm -------------------------------------------------

bool is_runtime_semiring(py::handle obj);
// mxm with a geblas.Semiring: sparse x dense only, as in C++.
py::object mxm_runtime_semiring(Operand& A, Operand& B, py::handle semiring, py::object out, const py::kwargs& kw);

}  // namespace geblas::python
