// The _geblas extension module: geblas's objects (Matrix, Vector), operations and graph
// algorithms for Python. Everything dispatches at run time through the library's
// type-erased entry points (geblas::detail::*Storage), so this file instantiates no
// kernel; the typed façades appear only where the public API takes them (masks and the
// algorithms), through one std::variant per object kind.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "arrays.hpp"
#include "geblas/algorithms.hpp"
#include "geblas/detail/spmm_arg.hpp"
#include "geblas/device.hpp"
#include "geblas/error.hpp"
#include "geblas/io.hpp"
#include "geblas/jit.hpp"
#include "geblas/mask.hpp"
#include "geblas/operations/apply.hpp"
#include "geblas/operations/assign.hpp"
#include "geblas/operations/convert.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/extract.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/operations/mxv.hpp"
#include "geblas/operations/reduce.hpp"
#include "geblas/operations/select.hpp"
#include "geblas/operations/transpose.hpp"
#include "geblas/stream.hpp"
#include "geblas/version.hpp"

namespace geblas::python {
namespace {

using detail::DenseStorage;
using detail::SparseStorage;
using detail::VectorStorage;

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

// A matrix whose borrowed arrays failed the check of clear_cache() keeps the reason in
// `invalid` and refuses every use but its shape, type and repr until they pass again.
struct PyMatrix {
  AnyOf<SparseMatrix> m;
  std::string invalid;
  explicit PyMatrix(SparseStorage s) : m(typed<SparseMatrix>(std::move(s))) {}
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
  void check_valid() const {
    if (!invalid.empty())
      throw InvalidObject("Matrix: its borrowed CSR arrays were changed into an invalid matrix (" + invalid +
                          "); repair them and call clear_cache() again before using it");
  }
};

struct PyVector {
  AnyOf<Vector> v;
  explicit PyVector(VectorStorage s) : v(typed<Vector>(std::move(s))) {}
  VectorStorage& s() {
    return std::visit([](auto& x) -> VectorStorage& { return x.storage(); }, v);
  }
};

std::string type_name(TypeId t) { return std::string(to_string(t)); }

// --- scalars ------------------------------------------------------------------------------

// One value of a stored type, converted from a Python number (8 bytes hold every type).
struct ScalarValue {
  alignas(8) std::array<unsigned char, 8> bytes{};
  const void* data() const { return bytes.data(); }
  void* data() { return bytes.data(); }
};

template <class T>
void store(ScalarValue& out, T v) {
  std::memcpy(out.data(), &v, sizeof(T));
}

ScalarValue scalar_of(TypeId t, py::handle x, const char* what) {
  ScalarValue out;
  try {
    switch (t) {
      case TypeId::boolean: store(out, x.cast<bool>()); break;
      case TypeId::int32: {
        const auto v = x.cast<long long>();
        if (v < INT32_MIN || v > INT32_MAX)
          throw InvalidValue(std::string("geblas: ") + what + " " + std::to_string(v) + " does not fit int32");
        store(out, static_cast<std::int32_t>(v));
        break;
      }
      case TypeId::int64: store(out, static_cast<std::int64_t>(x.cast<long long>())); break;
      case TypeId::float32: store(out, static_cast<float>(x.cast<double>())); break;
      case TypeId::float64: store(out, x.cast<double>()); break;
      case TypeId::float16: store(out, half(static_cast<float>(x.cast<double>()))); break;
      case TypeId::bfloat16: store(out, bfloat16(static_cast<float>(x.cast<double>()))); break;
    }
  } catch (const py::cast_error&) {
    throw DomainMismatch(std::string("geblas: ") + what + " must be a number convertible to " + type_name(t));
  }
  return out;
}

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

py::object python_scalar(TypeId t, const ScalarValue& v) {
  auto get = [&]<class T>() {
    T x;
    std::memcpy(&x, v.data(), sizeof(T));
    return x;
  };
  switch (t) {
    case TypeId::boolean: return py::bool_(get.operator()<bool>());
    case TypeId::int32: return py::int_(get.operator()<std::int32_t>());
    case TypeId::int64: return py::int_(get.operator()<std::int64_t>());
    case TypeId::float32: return py::float_(get.operator()<float>());
    case TypeId::float64: return py::float_(get.operator()<double>());
    case TypeId::float16: return py::float_(static_cast<float>(get.operator()<half>()));
    case TypeId::bfloat16: break;
  }
  return py::float_(static_cast<float>(get.operator()<bfloat16>()));
}

// --- names of operators -----------------------------------------------------------------

template <class Id>
Id id_from_name(const std::string& name, int count, const char* kind) {
  std::string known;
  for (int k = 0; k < count; ++k) {
    const char* n = to_string(static_cast<Id>(k));
    if (name == n) return static_cast<Id>(k);
    known += std::string(known.empty() ? "" : ", ") + n;
  }
  throw InvalidValue("geblas: unknown " + std::string(kind) + " '" + name + "' (known: " + known + ")");
}

BinaryOpId binary_op(const std::string& name) {
  // BinaryOpId::none (0) is no operator; the names start at 1.
  if (name == "none") throw InvalidValue("geblas: 'none' is not a binary operator");
  return id_from_name<BinaryOpId>(name, static_cast<int>(BinaryOpId::le) + 1, "binary operator");
}
UnaryOpId unary_op(const std::string& name) {
  return id_from_name<UnaryOpId>(name, static_cast<int>(UnaryOpId::log) + 1, "unary operator");
}
MonoidId monoid(const std::string& name) {
  return id_from_name<MonoidId>(name, static_cast<int>(MonoidId::any) + 1, "monoid");
}

struct SelectName {
  const char* name;
  SelectOpId id;
  bool value;
};
constexpr SelectName select_names[] = {
    {"tril", SelectOpId::tril, false},        {"triu", SelectOpId::triu, false},
    {"diag", SelectOpId::diag, false},        {"offdiag", SelectOpId::offdiag, false},
    {"row_le", SelectOpId::row_le, false},    {"row_gt", SelectOpId::row_gt, false},
    {"col_le", SelectOpId::col_le, false},    {"col_gt", SelectOpId::col_gt, false},
    {"value_eq", SelectOpId::value_eq, true}, {"value_ne", SelectOpId::value_ne, true},
    {"value_lt", SelectOpId::value_lt, true}, {"value_le", SelectOpId::value_le, true},
    {"value_gt", SelectOpId::value_gt, true}, {"value_ge", SelectOpId::value_ge, true},
    {"nonzero", SelectOpId::nonzero, false}};

const SelectName& select_op(const std::string& name) {
  std::string known;
  for (const auto& s : select_names) {
    if (name == s.name) return s;
    known += std::string(known.empty() ? "" : ", ") + s.name;
  }
  throw InvalidValue("geblas: unknown select operator '" + name + "' (known: " + known + ")");
}

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

Operand operand(py::handle obj, const std::string& what) {
  Operand op;
  if (py::isinstance<PyMatrix>(obj)) {
    op.kind = Operand::Kind::sparse;
    op.matrix = &obj.cast<PyMatrix&>();
    return op;
  }
  if (py::isinstance<PyVector>(obj)) {
    op.kind = Operand::Kind::vector;
    op.vector = &obj.cast<PyVector&>();
    return op;
  }
  op.view = view_of(obj, what);
  if (op.view->shape.size() == 2) {
    op.kind = Operand::Kind::dense;
    op.dense = dense_from_view(*op.view, what);
  } else if (op.view->shape.size() == 1) {
    op.kind = Operand::Kind::vector;
    op.dense_vec = vector_from_view(*op.view, what);
  } else {
    throw DimensionMismatch("geblas: " + what + " must be 1- or 2-dimensional, has " +
                            std::to_string(op.view->shape.size()) + " dimensions");
  }
  return op;
}

void check_writable(const Operand& op, const std::string& what) {
  if (op.view && !op.view->writable)
    throw InvalidValue("geblas: " + what + " is read-only; geblas writes the result into it in place");
}

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

template <class V>
Mask mask_from(const V& typed_variant, bool structural, bool complement) {
  Mask m = std::visit([&](const auto& x) { return structural ? Mask::structure(x) : Mask(x); }, typed_variant);
  return complement ? m.complement() : m;
}

bool flag(const py::kwargs& kw, const char* name) { return kw.contains(name) ? kw[name].cast<bool>() : false; }

// Fills `c` from the keyword arguments every operation takes: mask, accum, replace,
// structural_mask, complement_mask, transpose_a, transpose_b, variant, allow_tf32.
// `type` is the operation's value type (the accumulator's type).
void parse_options(CallOptions& c, const py::kwargs& kw, TypeId type, const char* op_name) {
  // The common call passes none: the defaults, without a dictionary look-up per name.
  if (kw.empty()) return;
  static const char* known[] = {"mask",        "accum",       "replace", "structural_mask", "complement_mask",
                                "transpose_a", "transpose_b", "variant", "allow_tf32"};
  for (auto item : kw) {
    const auto key = item.first.cast<std::string>();
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (!ok) throw DomainMismatch(std::string(op_name) + "() got an unexpected keyword argument '" + key + "'");
  }
  const bool structural = flag(kw, "structural_mask"), complement = flag(kw, "complement_mask");
  if (kw.contains("mask") && !kw["mask"].is_none()) {
    py::handle m = kw["mask"];
    if (py::isinstance<PyMatrix>(m)) {
      c.o.mask = mask_from(m.cast<PyMatrix&>().typed_matrix(), structural, complement);
    } else if (py::isinstance<PyVector>(m)) {
      c.o.mask = mask_from(m.cast<PyVector&>().v, structural, complement);
    } else {
      c.mask_operand.emplace(operand(m, "mask"));
      if (c.mask_operand->kind == Operand::Kind::dense) {
        c.mask_dense.emplace(typed<DenseMatrix>(c.mask_operand->dense));
        c.o.mask = mask_from(*c.mask_dense, structural, complement);
      } else {
        c.mask_vector.emplace(typed<Vector>(c.mask_operand->dense_vec));
        c.o.mask = mask_from(*c.mask_vector, structural, complement);
      }
    }
  } else if (structural || complement) {
    throw InvalidValue(std::string(op_name) + ": structural_mask / complement_mask given without a mask");
  }
  if (kw.contains("accum") && !kw["accum"].is_none()) {
    c.o.accum.op = binary_op(arg_as<std::string>(kw["accum"], std::string(op_name) + ": accum", "an operator name"));
    c.o.accum.type = type;
  }
  c.o.replace = flag(kw, "replace");
  c.o.transpose_a = flag(kw, "transpose_a");
  c.o.transpose_b = flag(kw, "transpose_b");
  c.o.allow_tf32 = flag(kw, "allow_tf32");
  if (kw.contains("variant") && !kw["variant"].is_none())
    c.variant = arg_as<std::string>(kw["variant"], std::string(op_name) + ": variant", "a variant name");
  c.o.variant = c.variant;
}

// --- outputs ------------------------------------------------------------------------------

// A dense output: the caller's array (written in place) or a new one, returned as an
// Exported result.
struct DenseOut {
  std::optional<Operand> given;
  DenseStorage fresh;
  DenseStorage& s() { return given ? given->dense : fresh; }
};

DenseOut dense_out(py::object out, Index nrows, Index ncols, TypeId t, Device dev, const char* op) {
  DenseOut d;
  if (out.is_none()) {
    d.fresh = detail::make_dense(nrows, ncols, Layout::row_major, t, dev);
    return d;
  }
  d.given.emplace(operand(out, "out"));
  if (d.given->kind != Operand::Kind::dense || !d.given->is_array())
    throw InvalidValue(std::string(op) + ": out must be a 2-D array here");
  check_writable(*d.given, "out");
  return d;
}

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
    detail::copy_bytes(before, s.device, s.data.data(), s.device, s.data.bytes());
  }
  return py::none();
}

struct VectorOut {
  std::optional<Operand> given;
  VectorStorage fresh;
  VectorStorage& s() { return given ? given->vec_s() : fresh; }
};

VectorOut vector_out(py::object out, Index size, TypeId t, Device dev, bool dense, const char* op) {
  VectorOut d;
  if (out.is_none()) {
    d.fresh = dense ? detail::make_dense_vector(size, t, dev) : detail::make_sparse_vector(size, t, dev);
    return d;
  }
  d.given.emplace(operand(out, "out"));
  if (d.given->kind != Operand::Kind::vector)
    throw InvalidValue(std::string(op) + ": out must be a Vector or a 1-D array");
  check_writable(*d.given, "out");
  return d;
}

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
    if (s.values.data() != before) detail::copy_bytes(before, s.device, s.values.data(), s.device, s.values.bytes());
  }
  return py::none();
}

PyMatrix& matrix_arg(py::handle obj, const char* what, const char* op) {
  if (!py::isinstance<PyMatrix>(obj))
    throw DomainMismatch(std::string(op) + ": " + what + " must be a geblas.Matrix, got " +
                         py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
  return obj.cast<PyMatrix&>();
}

// The caller's CUDA stream for one call, given as an integer handle (None: the current
// one): what a _StreamScope holds for a with block, without the Python calls that create,
// enter and leave one. Declared before the call's operands, so that it ends after them.
void enter_stream(std::optional<cuda::StreamGuard>& guard, Device device, const py::object& stream) {
  if (stream.is_none() || !device.is_cuda()) return;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): Python passes stream handles as integers
  guard.emplace(device, reinterpret_cast<void*>(stream.cast<std::uintptr_t>()));
}

IndexList index_list(py::handle obj, const std::string& what) {
  if (obj.is_none()) return IndexList::all();
  return IndexList(arg_as<std::vector<Index>>(obj, what, "None or a list of ints"));
}

// --- operations -----------------------------------------------------------------------

// mxm with a run-time semiring (geblas.Semiring): sparse x dense only, as in C++.
py::object op_mxm_jit(Operand& A, Operand& B, const jit::Semiring& s, py::object out, py::kwargs kw) {
  if (A.kind != Operand::Kind::sparse || B.kind != Operand::Kind::dense)
    throw NotImplemented("mxm with a run-time semiring (" + s.name() +
                         "): A must be sparse (geblas.Matrix or a SciPy matrix) and B dense; other shapes take the "
                         "built-in semirings");
  CallOptions c;
  parse_options(c, kw, A.type(), "mxm");
  const Index m = c.o.transpose_a ? A.sparse_s().ncols : A.sparse_s().nrows;
  const Index n = c.o.transpose_b ? B.dense.nrows : B.dense.ncols;
  DenseOut C = dense_out(out, m, n, s.type(), A.device(), "mxm");
  return finish_dense(C, [&](DenseStorage& cs) { detail::jit_mxm(cs, A.sparse_s(), B.dense, s, c.o); });
}

py::object op_mxm(py::object a, py::object b, py::object semiring_obj, py::object out, py::kwargs kw) {
  Operand A = operand(a, "A"), B = operand(b, "B");
  if (A.kind == Operand::Kind::vector || B.kind == Operand::Kind::vector)
    throw DimensionMismatch("mxm: A and B must be matrices (2-D arrays or geblas.Matrix); use mxv / vxm for vectors");
  if (py::isinstance<jit::Semiring>(semiring_obj))
    return op_mxm_jit(A, B, semiring_obj.cast<const jit::Semiring&>(), out, kw);
  if (!py::isinstance<py::str>(semiring_obj))
    throw InvalidValue("mxm: semiring must be a name (e.g. 'max_plus') or a geblas.Semiring");
  const std::string semiring = semiring_obj.cast<std::string>();
  const SemiringId sid = semiring_from_string(semiring.c_str());
  CallOptions c;
  parse_options(c, kw, A.type(), "mxm");
  auto rows = [&](const Operand& x, bool t) {
    return x.kind == Operand::Kind::sparse ? (t ? x.sparse_s().ncols : x.sparse_s().nrows)
                                           : (t ? x.dense.ncols : x.dense.nrows);
  };
  auto cols = [&](const Operand& x, bool t) { return rows(x, !t); };
  const Index m = rows(A, c.o.transpose_a), n = cols(B, c.o.transpose_b);
  if (A.kind == Operand::Kind::sparse && B.kind == Operand::Kind::sparse) {
    if (!out.is_none()) {
      PyMatrix& C = matrix_arg(out, "out", "mxm");
      py::gil_scoped_release nogil;
      detail::mxm(C.s(), A.sparse_s(), B.sparse_s(), sid, c.o);
      return py::none();
    }
    SparseStorage C = detail::make_sparse(m, n, A.type(), A.device());
    {
      py::gil_scoped_release nogil;
      detail::mxm(C, A.sparse_s(), B.sparse_s(), sid, c.o);
    }
    return py::cast(PyMatrix(std::move(C)));
  }
  DenseOut C = dense_out(out, m, n, A.type(), A.device(), "mxm");
  return finish_dense(C, [&](DenseStorage& cs) {
    if (A.kind == Operand::Kind::sparse) detail::mxm(cs, A.sparse_s(), B.dense, sid, c.o);
    else if (B.kind == Operand::Kind::sparse) detail::mxm(cs, A.dense, B.sparse_s(), sid, c.o);
    else detail::mxm(cs, A.dense, B.dense, sid, c.o);
  });
}

py::object op_mxv(py::object a, py::object u_obj, const std::string& semiring, py::object out, py::kwargs kw,
                  bool vxm) {
  const char* name = vxm ? "vxm" : "mxv";
  PyMatrix& A = matrix_arg(a, "A", name);
  Operand u = operand(u_obj, "u");
  if (u.kind != Operand::Kind::vector)
    throw DimensionMismatch(std::string(name) + ": u must be a Vector or a 1-D array");
  const SemiringId sid = semiring_from_string(semiring.c_str());
  CallOptions c;
  parse_options(c, kw, A.s().type, name);
  const bool t = c.o.transpose_a != vxm;
  const Index size = t ? A.s().ncols : A.s().nrows;
  VectorOut w = vector_out(out, size, A.s().type, A.s().device, u.is_array(), name);
  return finish_vector(w, [&](VectorStorage& ws) {
    if (vxm) detail::vxm(ws, u.vec_s(), A.s(), sid, c.o);
    else detail::mxv(ws, A.s(), u.vec_s(), sid, c.o);
  });
}

py::object op_ewise(py::object a, py::object b, const std::string& op, py::object out, py::kwargs kw,
                    detail::EwiseKind kind) {
  const char* name = kind == detail::EwiseKind::add ? "ewise_add" : "ewise_mult";
  Operand A = operand(a, "A"), B = operand(b, "B");
  const BinaryOpId bop = binary_op(op);
  CallOptions c;
  parse_options(c, kw, A.type(), name);
  if (A.kind == Operand::Kind::vector && B.kind == Operand::Kind::vector) {
    VectorOut w = vector_out(out, A.vec_s().size, A.type(), A.device(), A.is_array() && B.is_array(), name);
    return finish_vector(w, [&](VectorStorage& ws) { detail::ewise(ws, A.vec_s(), B.vec_s(), bop, kind, c.o); });
  }
  if (A.kind == Operand::Kind::sparse && B.kind == Operand::Kind::sparse) {
    const Index m = c.o.transpose_a ? A.sparse_s().ncols : A.sparse_s().nrows;
    const Index n = c.o.transpose_a ? A.sparse_s().nrows : A.sparse_s().ncols;
    if (!out.is_none()) {
      PyMatrix& C = matrix_arg(out, "out", name);
      py::gil_scoped_release nogil;
      detail::ewise(C.s(), A.sparse_s(), B.sparse_s(), bop, kind, c.o);
      return py::none();
    }
    SparseStorage C = detail::make_sparse(m, n, A.type(), A.device());
    {
      py::gil_scoped_release nogil;
      detail::ewise(C, A.sparse_s(), B.sparse_s(), bop, kind, c.o);
    }
    return py::cast(PyMatrix(std::move(C)));
  }
  if (A.kind == Operand::Kind::dense && B.kind == Operand::Kind::dense) {
    const Index m = c.o.transpose_a ? A.dense.ncols : A.dense.nrows;
    const Index n = c.o.transpose_a ? A.dense.nrows : A.dense.ncols;
    DenseOut C = dense_out(out, m, n, A.type(), A.device(), name);
    return finish_dense(C, [&](DenseStorage& cs) { detail::ewise(cs, A.dense, B.dense, bop, kind, c.o); });
  }
  throw InvalidValue(std::string(name) +
                     ": A and B must be of one kind: two geblas.Matrix, two 2-D arrays, or two vectors "
                     "(geblas.Vector or 1-D arrays)");
}

py::object op_apply(py::object a, const std::string& op, py::object scalar, py::object out, py::kwargs kw) {
  Operand A = operand(a, "A");
  CallOptions c;
  parse_options(c, kw, A.type(), "apply");
  detail::ApplyOp f;
  ScalarValue s;
  if (scalar.is_none()) {
    f.unary = unary_op(op);
  } else {
    f.binary = binary_op(op);
    s = scalar_of(A.type(), scalar, "apply: scalar");
    f.scalar = s.data();
  }
  switch (A.kind) {
    case Operand::Kind::sparse: {
      const bool t = c.o.transpose_a;
      if (!out.is_none()) {
        PyMatrix& C = matrix_arg(out, "out", "apply");
        py::gil_scoped_release nogil;
        detail::apply(C.s(), A.sparse_s(), f, c.o);
        return py::none();
      }
      SparseStorage C = detail::make_sparse(t ? A.sparse_s().ncols : A.sparse_s().nrows,
                                            t ? A.sparse_s().nrows : A.sparse_s().ncols, A.type(), A.device());
      {
        py::gil_scoped_release nogil;
        detail::apply(C, A.sparse_s(), f, c.o);
      }
      return py::cast(PyMatrix(std::move(C)));
    }
    case Operand::Kind::dense: {
      const bool t = c.o.transpose_a;
      DenseOut C = dense_out(out, t ? A.dense.ncols : A.dense.nrows, t ? A.dense.nrows : A.dense.ncols, A.type(),
                             A.device(), "apply");
      return finish_dense(C, [&](DenseStorage& cs) { detail::apply(cs, A.dense, f, c.o); });
    }
    case Operand::Kind::vector: break;
  }
  VectorOut w = vector_out(out, A.vec_s().size, A.type(), A.device(), A.is_array(), "apply");
  return finish_vector(w, [&](VectorStorage& ws) { detail::apply(ws, A.vec_s(), f, c.o); });
}

py::object op_select(py::object a, const std::string& op, py::object thunk, py::object out, py::kwargs kw) {
  Operand A = operand(a, "A");
  CallOptions c;
  parse_options(c, kw, A.type(), "select");
  const SelectName& sel = select_op(op);
  detail::SelectArgs p{sel.id, 0, nullptr};
  ScalarValue threshold;
  if (sel.value) {
    threshold = scalar_of(A.type(), thunk.is_none() ? py::int_(0) : thunk, "select: threshold");
    p.value_thunk = threshold.data();
  } else if (!thunk.is_none()) {
    p.index_thunk = thunk.cast<Index>();
  }
  if (A.kind == Operand::Kind::sparse) {
    if (!out.is_none()) {
      PyMatrix& C = matrix_arg(out, "out", "select");
      py::gil_scoped_release nogil;
      detail::select(C.s(), A.sparse_s(), p, c.o);
      return py::none();
    }
    const bool t = c.o.transpose_a;
    SparseStorage C = detail::make_sparse(t ? A.sparse_s().ncols : A.sparse_s().nrows,
                                          t ? A.sparse_s().nrows : A.sparse_s().ncols, A.type(), A.device());
    {
      py::gil_scoped_release nogil;
      detail::select(C, A.sparse_s(), p, c.o);
    }
    return py::cast(PyMatrix(std::move(C)));
  }
  if (A.kind != Operand::Kind::vector)
    throw InvalidValue("select: A must be a geblas.Matrix, a geblas.Vector or a 1-D array");
  VectorOut w = vector_out(out, A.vec_s().size, A.type(), A.device(), A.is_array(), "select");
  return finish_vector(w, [&](VectorStorage& ws) { detail::select(ws, A.vec_s(), p, c.o); });
}

py::object op_reduce(py::object a, const std::string& m, py::object axis, py::object out, py::kwargs kw) {
  Operand A = operand(a, "A");
  const MonoidId mid = monoid(m);
  if (axis.is_none()) {
    if (!out.is_none() || kw.size() != 0)
      throw InvalidValue("reduce: a reduction to a scalar takes no out, mask or other options");
    ScalarValue r;
    {
      py::gil_scoped_release nogil;
      if (A.kind == Operand::Kind::sparse) detail::reduce_scalar(r.data(), A.sparse_s(), mid);
      else if (A.kind == Operand::Kind::dense) detail::reduce_scalar(r.data(), A.dense, mid);
      else detail::reduce_scalar(r.data(), A.vec_s(), mid);
    }
    return python_scalar(A.type(), r);
  }
  const int ax = axis.cast<int>();
  if (ax != 0 && ax != 1)
    throw InvalidValue("reduce: axis must be None, 0 (columns) or 1 (rows), got " + std::to_string(ax));
  if (A.kind == Operand::Kind::vector) throw InvalidValue("reduce: a vector reduces to a scalar only (axis=None)");
  CallOptions c;
  parse_options(c, kw, A.type(), "reduce");
  if (ax == 0) c.o.transpose_a = !c.o.transpose_a;
  const bool t = c.o.transpose_a;
  const Index size = A.kind == Operand::Kind::sparse ? (t ? A.sparse_s().ncols : A.sparse_s().nrows)
                                                     : (t ? A.dense.ncols : A.dense.nrows);
  VectorOut w = vector_out(out, size, A.type(), A.device(), true, "reduce");
  return finish_vector(w, [&](VectorStorage& ws) {
    if (A.kind == Operand::Kind::sparse) detail::reduce_rows(ws, A.sparse_s(), mid, c.o);
    else detail::reduce_rows(ws, A.dense, mid, c.o);
  });
}

py::object op_transpose(py::object a, py::object out, py::kwargs kw) {
  Operand A = operand(a, "A");
  CallOptions c;
  parse_options(c, kw, A.type(), "transpose");
  if (A.kind == Operand::Kind::sparse) {
    if (!out.is_none()) {
      PyMatrix& C = matrix_arg(out, "out", "transpose");
      py::gil_scoped_release nogil;
      detail::transpose(C.s(), A.sparse_s(), c.o);
      return py::none();
    }
    SparseStorage C = detail::make_sparse(A.sparse_s().ncols, A.sparse_s().nrows, A.type(), A.device());
    {
      py::gil_scoped_release nogil;
      detail::transpose(C, A.sparse_s(), c.o);
    }
    return py::cast(PyMatrix(std::move(C)));
  }
  if (A.kind != Operand::Kind::dense) throw InvalidValue("transpose: A must be a matrix");
  DenseOut C = dense_out(out, A.dense.ncols, A.dense.nrows, A.type(), A.device(), "transpose");
  return finish_dense(C, [&](DenseStorage& cs) { detail::transpose(cs, A.dense, c.o); });
}

py::object op_extract(py::object a, py::object rows, py::object cols, py::object out, py::kwargs kw) {
  Operand A = operand(a, "A");
  CallOptions c;
  parse_options(c, kw, A.type(), "extract");
  const IndexList r = index_list(rows, "rows"), k = index_list(cols, "cols");
  if (A.kind == Operand::Kind::sparse) {
    const bool t = c.o.transpose_a;
    const Index m = r.size(t ? A.sparse_s().ncols : A.sparse_s().nrows);
    const Index n = k.size(t ? A.sparse_s().nrows : A.sparse_s().ncols);
    if (!out.is_none()) {
      PyMatrix& C = matrix_arg(out, "out", "extract");
      py::gil_scoped_release nogil;
      detail::extract(C.s(), A.sparse_s(), r, k, c.o);
      return py::none();
    }
    SparseStorage C = detail::make_sparse(m, n, A.type(), A.device());
    {
      py::gil_scoped_release nogil;
      detail::extract(C, A.sparse_s(), r, k, c.o);
    }
    return py::cast(PyMatrix(std::move(C)));
  }
  if (A.kind != Operand::Kind::vector) throw InvalidValue("extract: A must be a geblas.Matrix or a vector");
  if (!cols.is_none()) throw InvalidValue("extract: a vector takes one index list (rows)");
  VectorOut w = vector_out(out, r.size(A.vec_s().size), A.type(), A.device(), A.is_array(), "extract");
  return finish_vector(w, [&](VectorStorage& ws) { detail::extract(ws, A.vec_s(), r, c.o); });
}

py::object op_extract_column(py::object a, Index col, py::object rows, py::object out, py::kwargs kw) {
  PyMatrix& A = matrix_arg(a, "A", "extract_column");
  CallOptions c;
  parse_options(c, kw, A.s().type, "extract_column");
  const IndexList r = index_list(rows, "rows");
  const Index size = r.size(c.o.transpose_a ? A.s().ncols : A.s().nrows);
  VectorOut w = vector_out(out, size, A.s().type, A.s().device, false, "extract_column");
  return finish_vector(w, [&](VectorStorage& ws) { detail::extract_column(ws, A.s(), r, col, c.o); });
}

// assign writes into C (a Matrix or Vector) in place and returns it.
py::object op_assign(py::object c_obj, py::object a, py::object rows, py::object cols, py::kwargs kw) {
  Operand C = operand(c_obj, "C");
  CallOptions c;
  parse_options(c, kw, C.type(), "assign");
  const IndexList r = index_list(rows, "rows"), k = index_list(cols, "cols");
  const bool scalar = !py::isinstance<PyMatrix>(a) && !py::isinstance<PyVector>(a) && !is_array(a);
  if (C.kind == Operand::Kind::sparse) {
    if (scalar) {
      const ScalarValue v = scalar_of(C.type(), a, "assign: value");
      py::gil_scoped_release nogil;
      detail::assign_scalar(C.matrix->s(), v.data(), r, k, c.o);
    } else {
      PyMatrix& A = matrix_arg(a, "A", "assign");
      py::gil_scoped_release nogil;
      detail::assign(C.matrix->s(), A.s(), r, k, c.o);
    }
    return c_obj;
  }
  if (C.kind != Operand::Kind::vector) throw InvalidValue("assign: C must be a geblas.Matrix or a vector");
  if (!cols.is_none()) throw InvalidValue("assign: a vector takes one index list (rows)");
  check_writable(C, "C");
  VectorStorage& w = C.vec_s();
  void* before = w.values.data();
  if (scalar) {
    const ScalarValue v = scalar_of(C.type(), a, "assign: value");
    py::gil_scoped_release nogil;
    detail::assign_scalar(w, v.data(), r, c.o);
  } else {
    Operand u = operand(a, "A");
    if (u.kind != Operand::Kind::vector) throw InvalidValue("assign: into a vector, A must be a vector");
    py::gil_scoped_release nogil;
    detail::assign(w, u.vec_s(), r, c.o);
  }
  if (C.is_array() && w.values.data() != before) {
    if (!w.dense) throw InvalidValue("geblas: internal: a dense output vector became sparse");
    detail::copy_bytes(before, w.device, w.values.data(), w.device, w.values.bytes());
  }
  return c_obj;
}

py::object op_convert(py::object a, const std::string& dtype) {
  Operand A = operand(a, "A");
  const TypeId to = type_from_name(dtype);
  std::variant<SparseStorage, DenseStorage, VectorStorage> r;
  {
    py::gil_scoped_release nogil;
    if (A.kind == Operand::Kind::sparse) r = detail::convert(A.sparse_s(), to);
    else if (A.kind == Operand::Kind::dense) r = detail::convert(A.dense, to);
    else r = detail::convert(A.vec_s(), to);
  }
  if (auto* s = std::get_if<SparseStorage>(&r)) return py::cast(PyMatrix(std::move(*s)));
  if (auto* d = std::get_if<DenseStorage>(&r)) return py::cast(Exported::from_dense(std::move(*d)));
  auto& v = std::get<VectorStorage>(r);
  if (v.dense && A.is_array()) return py::cast(Exported::from_vector(std::move(v)));
  return py::cast(PyVector(std::move(v)));
}

// Matrix.clear_cache(): the derived data is dropped and the CSR arrays, which a caller
// may have changed in place (copy=False), pass adopt_csr's full check again over the same
// memory (on a GPU: over host copies of the index arrays). A failure is raised and kept,
// so that no later call hands the arrays to a kernel.
void clear_cache(PyMatrix& A) {
  SparseStorage& s = A.unchecked();
  s.derived.reset();
  const auto keep = std::make_shared<int>(0);  // borrow() needs an owner; the matrix owns the memory
  const bool host = s.device.is_cpu();
  auto on_host = [&](detail::RawBuffer& b) {
    return host ? detail::RawBuffer::borrow(b.data(), b.bytes(), Device::cpu(), keep) : b.to(Device::cpu());
  };
  try {
    py::gil_scoped_release nogil;
    // adopt_csr checks only the values' length: a host stand-in of the right byte count.
    detail::RawBuffer values = detail::RawBuffer::borrow(host ? s.values.data() : nullptr, s.values.bytes(),
                                                         Device::cpu(), keep);
    detail::adopt_csr(s.nrows, s.ncols, on_host(s.row_offsets), on_host(s.col_indices), std::move(values), s.type,
                      Device::cpu());
  } catch (const geblas::Error& e) {
    A.invalid = e.what();
    throw;
  }
  A.invalid.clear();
}

// --- algorithms -----------------------------------------------------------------------

// Calls f(typed matrix) when A holds one of Ts, else a TypeError naming what it takes.
template <class... Ts, class F>
auto with_types(PyMatrix& A, const char* what, F&& f) {
  using R = decltype(f(std::declval<const SparseMatrix<std::tuple_element_t<0, std::tuple<Ts...>>>&>()));
  std::optional<R> result;
  auto attempt = [&]<class T>() {
    if (result) return;
    if (auto* m = std::get_if<SparseMatrix<T>>(&A.typed_matrix())) result.emplace(f(*m));
  };
  (attempt.template operator()<Ts>(), ...);
  if (!result) {
    std::string names;
    ((names += std::string(names.empty() ? "" : ", ") + std::string(type_traits<Ts>::name)), ...);
    throw DomainMismatch(std::string(what) + ": A is " + type_name(A.s().type) + "; it computes on " + names +
                         " (convert with A.astype(...))");
  }
  return std::move(*result);
}

#define GEBLAS_PY_GRAPH_TYPES bool, std::int32_t, std::int64_t, float, double

py::object alg_pagerank(PyMatrix& A, double damping, double tolerance, int max_iterations, bool weighted,
                        py::object seeds, bool info) {
  algo::PageRankOptions o;
  o.damping = damping;
  o.tolerance = tolerance;
  o.max_iterations = max_iterations;
  o.weighted = weighted;
  py::object ranks;
  py::dict d;
  if (seeds.is_none()) {
    with_types<float, double>(A, "pagerank", [&](const auto& M) {
      auto r = [&] {
        py::gil_scoped_release nogil;
        return algo::pagerank(M, o);
      }();
      d["iterations"] = r.iterations;
      d["converged"] = r.converged;
      d["delta"] = r.delta;
      ranks = py::cast(Exported::from_vector(std::move(r.ranks.storage())));
      return 0;
    });
  } else {
    const auto sets =
        arg_as<std::vector<std::vector<Index>>>(seeds, "pagerank: seeds", "None or a list of lists of ints");
    with_types<float, double>(A, "personalized_pagerank", [&](const auto& M) {
      auto r = [&] {
        py::gil_scoped_release nogil;
        return algo::personalized_pagerank(M, sets, o);
      }();
      d["iterations"] = r.iterations;
      d["converged"] = r.converged;
      d["delta"] = r.delta;
      ranks = py::cast(Exported::from_dense(std::move(r.ranks.storage())));
      return 0;
    });
  }
  return info ? py::object(py::make_tuple(ranks, d)) : ranks;
}

py::object dense_levels(Vector<algo::VertexId>& v) {
  const algo::VertexId fill = -1;
  return py::cast(Exported::from_vector(detail::to_dense_storage(v.storage(), &fill)));
}

py::object alg_bfs(PyMatrix& A, py::object source, bool parents, const std::string& direction) {
  algo::BfsOptions o;
  if (direction == "automatic") o.direction = algo::BfsDirection::automatic;
  else if (direction == "push") o.direction = algo::BfsDirection::push;
  else if (direction == "pull") o.direction = algo::BfsDirection::pull;
  else throw InvalidValue("bfs: direction must be 'automatic', 'push' or 'pull', got '" + direction + "'");
  if (py::isinstance<py::int_>(source) || !py::hasattr(source, "__len__")) {
    const Index s = arg_as<Index>(source, "bfs: source", "an int or a list of ints");
    return with_types<GEBLAS_PY_GRAPH_TYPES>(A, "bfs", [&](const auto& M) -> py::object {
      algo::BfsResult r = [&] {
        py::gil_scoped_release nogil;
        return algo::bfs(M, s, o);
      }();
      py::object levels = dense_levels(r.levels);
      if (!parents) return levels;
      return py::make_tuple(levels, dense_levels(r.parents));
    });
  }
  const auto sources = arg_as<std::vector<Index>>(source, "bfs: source", "an int or a list of ints");
  return with_types<GEBLAS_PY_GRAPH_TYPES>(A, "bfs", [&](const auto& M) -> py::object {
    algo::MultiBfsResult r = [&] {
      py::gil_scoped_release nogil;
      return algo::bfs(M, sources, o);
    }();
    py::object levels = py::cast(Exported::from_dense(std::move(r.levels.storage())));
    if (!parents) return levels;
    return py::make_tuple(levels, py::cast(Exported::from_dense(std::move(r.parents.storage()))));
  });
}

py::object alg_sssp(PyMatrix& A, py::object source, bool allow_negative) {
  algo::SsspOptions o;
  o.allow_negative = allow_negative;
  if (py::isinstance<py::int_>(source) || !py::hasattr(source, "__len__")) {
    const Index s = arg_as<Index>(source, "sssp: source", "an int or a list of ints");
    return with_types<float, double>(A, "sssp", [&](const auto& M) -> py::object {
      auto r = [&] {
        py::gil_scoped_release nogil;
        return algo::sssp(M, s, o);
      }();
      return py::cast(Exported::from_vector(std::move(r.distances.storage())));
    });
  }
  const auto sources = arg_as<std::vector<Index>>(source, "sssp: source", "an int or a list of ints");
  return with_types<float, double>(A, "sssp", [&](const auto& M) -> py::object {
    auto r = [&] {
      py::gil_scoped_release nogil;
      return algo::sssp(M, sources, o);
    }();
    return py::cast(Exported::from_dense(std::move(r.distances.storage())));
  });
}

py::object alg_components(PyMatrix& A) {
  return with_types<GEBLAS_PY_GRAPH_TYPES>(A, "connected_components", [&](const auto& M) -> py::object {
    algo::ComponentsResult r = [&] {
      py::gil_scoped_release nogil;
      return algo::connected_components(M);
    }();
    return py::cast(Exported::from_vector(std::move(r.labels.storage())));
  });
}

// order[new] = old, as algo::locality_order; an int64 array on the host (the order is
// computed there whatever A's device).
py::object alg_locality_order(PyMatrix& A) {
  return with_types<GEBLAS_PY_GRAPH_TYPES>(A, "locality_order", [&](const auto& M) -> py::object {
    std::vector<Index> order = [&] {
      py::gil_scoped_release nogil;
      return algo::locality_order(M);
    }();
    return py::cast(Exported::from_vector(std::move(Vector<Index>::from_dense(order).storage())));
  });
}

std::int64_t alg_triangles(PyMatrix& A) {
  return with_types<GEBLAS_PY_GRAPH_TYPES>(A, "triangle_count", [&](const auto& M) {
    py::gil_scoped_release nogil;
    return algo::triangle_count(M);
  });
}

// GNN aggregations: Y = agg(A, X) for a dense X (array), into `out` or a new array.
template <class Agg>
py::object gnn_aggregate(PyMatrix& A, py::object x, py::object out, const char* what, Agg agg) {
  Operand X = operand(x, "X");
  if (X.kind != Operand::Kind::dense) throw DimensionMismatch(std::string(what) + ": X must be a 2-D array");
  DenseOut Y = dense_out(out, A.s().nrows, X.dense.ncols, A.s().type, A.s().device, what);
  return with_types<float, double>(A, what, [&](const auto& M) -> py::object {
    using T = typename std::decay_t<decltype(M)>::value_type;
    return finish_dense(Y, [&](DenseStorage& ys) {
      // The typed façades own their storage: move the borrowed storages in and back out.
      DenseMatrix<T> Yt(std::move(ys));
      DenseMatrix<T> Xt(std::move(X.dense));
      struct Restore {
        DenseStorage& y;
        DenseMatrix<T>& yt;
        DenseStorage& x;
        DenseMatrix<T>& xt;
        ~Restore() {
          y = std::move(yt.storage());
          x = std::move(xt.storage());
        }
      } restore{ys, Yt, X.dense, Xt};
      if (Yt.storage().type != type_id<T> || Xt.storage().type != type_id<T>)
        throw DomainMismatch(std::string(what) + ": X and the output must have A's type " + type_name(type_id<T>) +
                             ", X is " + type_name(Xt.storage().type));
      agg(Yt, M, Xt);
    });
  });
}

// --- exceptions -----------------------------------------------------------------------

struct ErrorTypes {
  PyObject* base = nullptr;
  PyObject* by_info[static_cast<int>(Info::panic) + 1] = {};
};
ErrorTypes& error_types() {
  static ErrorTypes t;
  return t;
}

PyObject* new_error(py::module_& m, const char* name, PyObject* builtin, PyObject* base, const char* doc) {
  py::tuple bases = py::make_tuple(py::handle(base), py::handle(builtin));
  const std::string full = std::string("geblas.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(full.c_str(), doc, bases.ptr(), nullptr);
  if (!type) throw py::error_already_set();
  m.attr(name) = py::handle(type);  // the module keeps a reference; `type` is kept for the translator
  return type;
}

void register_errors(py::module_& m) {
  ErrorTypes& t = error_types();
  t.base = PyErr_NewExceptionWithDoc("geblas.Error", "Base of every error geblas raises; the message is the C++ one.",
                                     PyExc_Exception, nullptr);
  m.attr("Error") = py::handle(t.base);
  auto set = [&](Info info, PyObject* type) { t.by_info[static_cast<int>(info)] = type; };
  PyObject* value = new_error(m, "InvalidValue", PyExc_ValueError, t.base, "An argument has a value geblas rejects.");
  set(Info::invalid_value, value);
  set(Info::null_pointer, value);
  set(Info::uninitialized_object, value);
  set(Info::output_not_empty, value);
  set(Info::empty_object, value);
  set(Info::insufficient_space, value);
  set(Info::invalid_index, new_error(m, "InvalidIndex", PyExc_IndexError, t.base, "An index outside its dimension."));
  set(Info::index_out_of_bounds,
      new_error(m, "IndexOutOfBounds", PyExc_IndexError, t.base, "An index outside the object."));
  set(Info::dimension_mismatch,
      new_error(m, "DimensionMismatch", PyExc_ValueError, t.base, "Operand shapes do not fit together."));
  set(Info::domain_mismatch,
      new_error(m, "DomainMismatch", PyExc_TypeError, t.base, "A value type geblas cannot use here."));
  set(Info::device_mismatch,
      new_error(m, "DeviceMismatch", PyExc_ValueError, t.base, "Operands on different devices (no hidden copies)."));
  set(Info::not_implemented,
      new_error(m, "NotImplementedError", PyExc_NotImplementedError, t.base, "Not supported for these operands."));
  set(Info::invalid_object,
      new_error(m, "InvalidObject", PyExc_ValueError, t.base, "Malformed input data (e.g. CSR arrays)."));
  set(Info::out_of_memory, new_error(m, "OutOfMemory", PyExc_MemoryError, t.base, "An allocation failed."));
  set(Info::io_error, new_error(m, "IoError", PyExc_OSError, t.base, "A file could not be read or written."));
  set(Info::parse_error, new_error(m, "ParseError", PyExc_ValueError, t.base, "A malformed input file."));
  PyObject* runtime =
      new_error(m, "ExecutionError", PyExc_RuntimeError, t.base, "A failure while running (CUDA, internal).");
  set(Info::cuda_error, runtime);
  set(Info::panic, runtime);
  for (auto& p : t.by_info)
    if (!p) p = runtime;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const geblas::Error& e) {
      PyErr_SetString(error_types().by_info[static_cast<int>(e.info())], e.what());
    } catch (const py::cast_error& e) {
      // A conversion no argument check named: still a geblas error, and a TypeError.
      PyErr_SetString(error_types().by_info[static_cast<int>(Info::domain_mismatch)],
                      (std::string("geblas: an argument has the wrong type (") + e.what() + ")").c_str());
    }
  });
}

}  // namespace
}  // namespace geblas::python

PYBIND11_MODULE(_geblas, m) {
  using namespace geblas;
  using namespace geblas::python;
  m.doc() = "geblas: GraphBLAS-style semiring sparse linear algebra (CPU and CUDA). Use the geblas package.";
  register_errors(m);

  m.attr("__version__") = GEBLAS_VERSION_STRING;
  // The built-in semirings' names in the library's order, from its one list
  // (GEBLAS_SEMIRINGS in geblas/semiring.hpp), so that Python never types it again.
  py::tuple semiring_names(semiring_count);
  for (int k = 0; k < semiring_count; ++k) semiring_names[static_cast<std::size_t>(k)] = semiring_table[k].name;
  m.attr("SEMIRINGS") = semiring_names;
  m.def("cuda_compiled", &cuda_compiled);
  m.def("cuda_device_count", &cuda_device_count);
  m.def("default_device", [] { return default_device().str(); });
  m.def(
      "synchronize",
      [](const std::string& d) {
        const Device dev = device_from_name(d);
        py::gil_scoped_release nogil;
        synchronize(dev);
      },
      py::arg("device") = "cuda:0");
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
  m.def("transfer_counts", [] {
    const TransferCounts t = transfer_counts();
    py::dict d;
    d["host_to_device_bytes"] = t.host_to_device_bytes;
    d["device_to_host_bytes"] = t.device_to_host_bytes;
    d["host_to_device_copies"] = t.host_to_device_copies;
    d["device_to_host_copies"] = t.device_to_host_copies;
    return d;
  });
  m.def("reset_transfer_counts", &reset_transfer_counts);

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

  py::class_<PyMatrix>(m, "Matrix", "A sparse matrix (CSR) on one device.", py::dynamic_attr())
      .def(py::init([](Index nrows, Index ncols, const std::string& dtype, const std::string& device) {
             return PyMatrix(detail::make_sparse(nrows, ncols, type_from_name(dtype), device_from_name(device)));
           }),
           py::arg("nrows"), py::arg("ncols"), py::arg("dtype") = "float32", py::arg("device") = "cpu")
      .def_property_readonly("nrows", [](PyMatrix& A) { return A.unchecked().nrows; })
      .def_property_readonly("ncols", [](PyMatrix& A) { return A.unchecked().ncols; })
      .def_property_readonly("shape",
                             [](PyMatrix& A) { return py::make_tuple(A.unchecked().nrows, A.unchecked().ncols); })
      .def_property_readonly("nvals", [](PyMatrix& A) { return A.unchecked().nvals; })
      .def_property_readonly("dtype", [](PyMatrix& A) { return type_name(A.unchecked().type); })
      .def_property_readonly("device", [](PyMatrix& A) { return A.unchecked().device.str(); })
      .def_property_readonly(
          "borrowed",
          [](PyMatrix& A) {
            const SparseStorage& s = A.unchecked();
            return s.values.borrowed() || s.col_indices.borrowed() || s.row_offsets.borrowed();
          },
          "True when the matrix uses another library's arrays in place.")
      .def(
          "to",
          [](PyMatrix& A, const std::string& device) {
            const Device d = device_from_name(device);
            py::gil_scoped_release nogil;
            SparseStorage s = detail::to_device(A.s(), d);
            py::gil_scoped_acquire gil;
            return PyMatrix(std::move(s));
          },
          py::arg("device"), "A copy on `device` (\"cpu\", \"cuda:0\").")
      .def(
          "dup", [](PyMatrix& A) { return PyMatrix(SparseStorage(A.s())); }, "An independent copy (owned memory).")
      .def("clear_cache", &clear_cache,
           "Drops cached derived data (transpose, plans) and checks the CSR arrays again: call it after "
           "changing borrowed arrays in place, before the next use. Arrays that no longer form a valid "
           "matrix raise InvalidObject / InvalidIndex, and the matrix refuses every use until a later "
           "clear_cache() finds them valid.")
      .def("_csr",
           [](PyMatrix& A) {
             // Copies (the matrix keeps its own arrays), exported without a further copy.
             SparseStorage& s = A.s();
             detail::RawBuffer ro(s.row_offsets), ci(s.col_indices), v(s.values);
             return py::make_tuple(Exported(std::move(ro), TypeId::int64, {s.nrows + 1}, {1}),
                                   Exported(std::move(ci), TypeId::int32, {s.nvals}, {1}),
                                   Exported(std::move(v), s.type, {s.nvals}, {1}));
           })
      .def("_data_ptrs",
           [](PyMatrix& A) {
             SparseStorage& s = A.s();
             return py::make_tuple(reinterpret_cast<std::uintptr_t>(s.row_offsets.data()),
                                   reinterpret_cast<std::uintptr_t>(s.col_indices.data()),
                                   reinterpret_cast<std::uintptr_t>(s.values.data()));
           })
      .def("__repr__", [](PyMatrix& A) {
        const SparseStorage& s = A.unchecked();
        return "geblas.Matrix(" + std::to_string(s.nrows) + " x " + std::to_string(s.ncols) +
               ", nvals=" + std::to_string(s.nvals) + ", dtype=" + type_name(s.type) + ", device=" + s.device.str() +
               ")";
      });

  py::class_<PyVector>(m, "Vector", "A vector on one device, stored dense or sparse.", py::dynamic_attr())
      .def(py::init([](Index size, const std::string& dtype, const std::string& device) {
             return PyVector(detail::make_sparse_vector(size, type_from_name(dtype), device_from_name(device)));
           }),
           py::arg("size"), py::arg("dtype") = "float32", py::arg("device") = "cpu")
      .def_property_readonly("size", [](PyVector& v) { return v.s().size; })
      .def_property_readonly("shape", [](PyVector& v) { return py::make_tuple(v.s().size); })
      .def_property_readonly("nvals", [](PyVector& v) { return v.s().nvals; })
      .def_property_readonly("dtype", [](PyVector& v) { return type_name(v.s().type); })
      .def_property_readonly("device", [](PyVector& v) { return v.s().device.str(); })
      .def_property_readonly("is_dense", [](PyVector& v) { return v.s().dense; })
      .def(
          "to",
          [](PyVector& v, const std::string& device) {
            const Device d = device_from_name(device);
            py::gil_scoped_release nogil;
            VectorStorage s = detail::to_device(v.s(), d);
            py::gil_scoped_acquire gil;
            return PyVector(std::move(s));
          },
          py::arg("device"))
      .def("dup", [](PyVector& v) { return PyVector(VectorStorage(v.s())); })
      .def(
          "_dense",
          [](PyVector& v, py::object fill) {
            const VectorStorage& s = v.s();
            const ScalarValue f = scalar_of(s.type, fill, "fill");
            VectorStorage d = s.dense ? VectorStorage(s) : detail::to_dense_storage(s, f.data());
            return Exported::from_vector(std::move(d));
          },
          py::arg("fill"))
      .def("_sparse_parts",
           [](PyVector& v) {
             VectorStorage s = detail::to_sparse_storage(v.s());
             const Index n = s.nvals;
             return py::make_tuple(Exported(std::move(s.indices), TypeId::int32, {n}, {1}),
                                   Exported(std::move(s.values), s.type, {n}, {1}));
           })
      .def("__repr__", [](PyVector& v) {
        const VectorStorage& s = v.s();
        return "geblas.Vector(size=" + std::to_string(s.size) + ", nvals=" + std::to_string(s.nvals) +
               ", dtype=" + type_name(s.type) + ", device=" + s.device.str() + (s.dense ? ", dense)" : ", sparse)");
      });

  // --- construction ---------------------------------------------------------------------
  m.def(
      "_matrix_from_csr",
      [](Index nrows, Index ncols, py::object indptr, py::object indices, py::object values, bool validate, bool copy) {
        const ArrayView ro = view_of(indptr, "indptr"), ci = view_of(indices, "indices"),
                        va = view_of(values, "values");
        SparseStorage s;
        {
          py::gil_scoped_release nogil;
          s = checks::csr_from_views(nrows, ncols, ro, ci, va, validate, copy);
        }
        return PyMatrix(std::move(s));
      },
      py::arg("nrows"), py::arg("ncols"), py::arg("indptr"), py::arg("indices"), py::arg("values"),
      py::arg("validate") = true, py::arg("copy") = false);

  m.def("_matrix_from_coo", [](Index nrows, Index ncols, py::object rows, py::object cols, py::object values,
                               py::object dup, const std::string& device) {
    const ArrayView r = view_of(rows, "rows"), c = view_of(cols, "cols"), v = view_of(values, "values");
    Duplicates d;
    if (!dup.is_none()) d.op = binary_op(arg_as<std::string>(dup, "Matrix.from_coo: dup", "None or an operator name"));
    const Device dev = device_from_name(device);
    SparseStorage s;
    {
      py::gil_scoped_release nogil;
      s = checks::coo_from_views(nrows, ncols, r, c, v, d, dev);
    }
    return PyMatrix(std::move(s));
  });

  m.def(
      "_vector_from_dense",
      [](py::object values, bool copy) {
        VectorStorage s = vector_from_view(view_of(values, "values"), "values");
        if (copy) s = VectorStorage(s);
        return PyVector(std::move(s));
      },
      py::arg("values"), py::arg("copy") = true);

  m.def("_vector_from_tuples",
        [](Index size, py::object indices, py::object values, py::object dup, const std::string& device) {
          ArrayView i = view_of(indices, "indices"), v = view_of(values, "values");
          if (!i.device.is_cpu() || !v.device.is_cpu())
            throw DeviceMismatch("Vector.from_tuples: the tuples must be host arrays");
          if (i.type != TypeId::int64) throw DomainMismatch("Vector.from_tuples: indices must be int64");
          detail::RawBuffer ib = buffer_from_view(i, "indices"), vb = buffer_from_view(v, "values");
          if (i.shape[0] != v.shape[0])
            throw DimensionMismatch("Vector.from_tuples: " + std::to_string(i.shape[0]) + " indices but " +
                                    std::to_string(v.shape[0]) + " values");
          Duplicates d;
          if (!dup.is_none())
            d.op = binary_op(arg_as<std::string>(dup, "Vector.from_tuples: dup", "None or an operator name"));
          VectorStorage s = detail::build_sparse_vector(size, ib.as<Index>(), vb.data(), i.shape[0], v.type, d,
                                                        device_from_name(device));
          return PyVector(std::move(s));
        });

  m.def("_dense_view", [](py::object x) {
    // What geblas sees of an array, without copying: for tests of the zero-copy path.
    Operand op = operand(x, "x");
    const void* p = op.kind == Operand::Kind::dense ? op.dense.data.data() : op.dense_vec.values.data();
    return reinterpret_cast<std::uintptr_t>(p);
  });

  // --- I/O --------------------------------------------------------------------------------
  m.def(
      "read_matrix_market",
      [](const std::string& path, const std::string& dtype, const std::string& device, py::object duplicates,
         bool drop_zeros) {
        io::ReadOptions o;
        if (!duplicates.is_none()) o.duplicates.op = binary_op(duplicates.cast<std::string>());
        o.drop_zeros = drop_zeros;
        const TypeId t = type_from_name(dtype);
        const Device dev = device_from_name(device);
        py::gil_scoped_release nogil;
        SparseStorage s = io::detail::read_matrix_market(path, t, o);
        if (!dev.is_cpu()) s = detail::to_device(s, dev);
        py::gil_scoped_acquire gil;
        return PyMatrix(std::move(s));
      },
      py::arg("path"), py::arg("dtype") = "float32", py::arg("device") = "cpu", py::arg("duplicates") = py::none(),
      py::arg("drop_zeros") = false, "Reads a Matrix Market file (plain or gzip) into a geblas.Matrix.");
  m.def(
      "read_graph",
      [](const std::string& path, const std::string& dtype, const std::string& device, bool undirected, int base) {
        io::ReadOptions o;
        o.undirected = undirected;
        o.base = base;
        const TypeId t = type_from_name(dtype);
        const Device dev = device_from_name(device);
        py::gil_scoped_release nogil;
        SparseStorage s = io::detail::read_graph(path, t, o, io::Format::automatic);
        if (!dev.is_cpu()) s = detail::to_device(s, dev);
        py::gil_scoped_acquire gil;
        return PyMatrix(std::move(s));
      },
      py::arg("path"), py::arg("dtype") = "float32", py::arg("device") = "cpu", py::arg("undirected") = false,
      py::arg("base") = 0, "Reads any graph file geblas knows (Matrix Market, binary, edge list, CSV).");
  m.def(
      "write_matrix_market",
      [](const std::string& path, PyMatrix& A) {
        py::gil_scoped_release nogil;
        io::detail::write_matrix_market(path, A.s());
      },
      py::arg("path"), py::arg("A"));
  m.def("read_matrix_market_header", [](const std::string& path) {
    const io::MatrixMarketHeader h = io::read_matrix_market_header(path);
    py::dict d;
    d["format"] = h.format;
    d["field"] = h.field;
    d["symmetry"] = h.symmetry;
    d["nrows"] = h.nrows;
    d["ncols"] = h.ncols;
    d["stored_entries"] = h.stored_entries;
    return d;
  });

  // --- operations -------------------------------------------------------------------------
  m.def("mxm", &op_mxm, py::arg("A"), py::arg("B"), py::arg("semiring") = "plus_times", py::arg("out") = py::none());
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
        finish_dense(Y, [&](DenseStorage& ys) { detail::mxm(ys, A.s(), X.dense, sid, o); });
      },
      py::arg("A"), py::arg("X"), py::arg("Y"), py::arg("semiring"), py::arg("transpose_a"), py::arg("stream"));
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
        detail::cuda_spmm_arg_extreme(A.s(), X.dense, Y.dense, G.dense, reduce == "max");
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
        detail::cuda_spmm_arg_scatter(G.dense, D.dense, X.dense, weights);
      },
      py::arg("arg"), py::arg("grad"), py::arg("dX"), py::arg("stream") = py::none(), py::arg("A") = py::none());

  // --- run-time semirings (<geblas/jit.hpp>) -----------------------------------------------
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
             const jit::monoid mo = identity.is_none() ? jit::monoid(add) : jit::monoid(add, text(identity), text(terminal));
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
  m.def(
      "mxv",
      [](py::object a, py::object u, const std::string& s, py::object out, py::kwargs kw) {
        return op_mxv(a, u, s, out, kw, false);
      },
      py::arg("A"), py::arg("u"), py::arg("semiring") = "plus_times", py::arg("out") = py::none());
  m.def(
      "vxm",
      [](py::object u, py::object a, const std::string& s, py::object out, py::kwargs kw) {
        return op_mxv(a, u, s, out, kw, true);
      },
      py::arg("u"), py::arg("A"), py::arg("semiring") = "plus_times", py::arg("out") = py::none());
  m.def(
      "ewise_add",
      [](py::object a, py::object b, const std::string& op, py::object out, py::kwargs kw) {
        return op_ewise(a, b, op, out, kw, detail::EwiseKind::add);
      },
      py::arg("A"), py::arg("B"), py::arg("op") = "plus", py::arg("out") = py::none());
  m.def(
      "ewise_mult",
      [](py::object a, py::object b, const std::string& op, py::object out, py::kwargs kw) {
        return op_ewise(a, b, op, out, kw, detail::EwiseKind::mult);
      },
      py::arg("A"), py::arg("B"), py::arg("op") = "times", py::arg("out") = py::none());
  m.def("apply", &op_apply, py::arg("A"), py::arg("op"), py::arg("scalar") = py::none(), py::arg("out") = py::none());
  m.def("select", &op_select, py::arg("A"), py::arg("op"), py::arg("thunk") = py::none(), py::arg("out") = py::none());
  m.def("reduce", &op_reduce, py::arg("A"), py::arg("monoid") = "plus", py::arg("axis") = py::none(),
        py::arg("out") = py::none());
  m.def("transpose", &op_transpose, py::arg("A"), py::arg("out") = py::none());
  m.def("extract", &op_extract, py::arg("A"), py::arg("rows") = py::none(), py::arg("cols") = py::none(),
        py::arg("out") = py::none());
  m.def("extract_column", &op_extract_column, py::arg("A"), py::arg("col"), py::arg("rows") = py::none(),
        py::arg("out") = py::none());
  m.def("assign", &op_assign, py::arg("C"), py::arg("A"), py::arg("rows") = py::none(), py::arg("cols") = py::none());
  m.def("convert", &op_convert, py::arg("A"), py::arg("dtype"));

  // --- algorithms -------------------------------------------------------------------------
  m.def("pagerank", &alg_pagerank, py::arg("A"), py::arg("damping") = 0.85, py::arg("tolerance") = 1e-6,
        py::arg("max_iterations") = 100, py::arg("weighted") = false, py::arg("seeds") = py::none(),
        py::arg("info") = false);
  m.def("bfs", &alg_bfs, py::arg("A"), py::arg("source"), py::arg("parents") = false,
        py::arg("direction") = "automatic");
  m.def("sssp", &alg_sssp, py::arg("A"), py::arg("source"), py::arg("allow_negative") = false);
  m.def("connected_components", &alg_components, py::arg("A"));
  m.def("triangle_count", &alg_triangles, py::arg("A"));
  m.def("locality_order", &alg_locality_order, py::arg("A"));
  m.def(
      "gcn_normalize",
      [](PyMatrix& A) {
        return with_types<float, double>(A, "gcn_normalize", [&](const auto& M) {
          auto r = [&] {
            py::gil_scoped_release nogil;
            return algo::gcn_normalize(M);
          }();
          return PyMatrix(std::move(r.storage()));
        });
      },
      py::arg("A"));
  m.def(
      "gcn_aggregate",
      [](PyMatrix& A, py::object X, py::object out) {
        return gnn_aggregate(A, X, out, "gcn_aggregate",
                             [](auto& Y, const auto& M, const auto& Xt) { algo::gcn_aggregate(Y, M, Xt); });
      },
      py::arg("A_hat"), py::arg("X"), py::arg("out") = py::none());
  m.def(
      "sage_mean_aggregate",
      [](PyMatrix& A, py::object X, py::object out) {
        return gnn_aggregate(A, X, out, "sage_mean_aggregate",
                             [](auto& Y, const auto& M, const auto& Xt) { algo::sage_mean_aggregate(Y, M, Xt); });
      },
      py::arg("A"), py::arg("X"), py::arg("out") = py::none());
  m.def(
      "sage_max_aggregate",
      [](PyMatrix& A, py::object X, py::object out) {
        return gnn_aggregate(A, X, out, "sage_max_aggregate",
                             [](auto& Y, const auto& M, const auto& Xt) { algo::sage_max_aggregate(Y, M, Xt); });
      },
      py::arg("A"), py::arg("X"), py::arg("out") = py::none());
}
