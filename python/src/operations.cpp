// The operations for Python (mxm, sddmm, mxv, vxm, ewise_add, ewise_mult, apply, select, reduce,
// transpose, extract, extract_column, assign, convert): operands are geblas objects or
// borrowed arrays, results the caller's out= or a new object.
#include <variant>

#include "common.hpp"

namespace geblas::python {
namespace {

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

// The result's rows (cols: rows of the transpose) of a matrix operand, transposed or not.
Index rows_of(const Operand& x, bool transposed) {
  if (x.kind == Operand::Kind::sparse) return transposed ? x.sparse_s().ncols : x.sparse_s().nrows;
  return transposed ? x.dense.ncols : x.dense.nrows;
}
Index cols_of(const Operand& x, bool transposed) { return rows_of(x, !transposed); }

py::object op_mxm(py::object a, py::object b, py::object semiring_obj, py::object out, py::kwargs kw) {
  Operand A = operand(a, "A"), B = operand(b, "B");
  if (A.kind == Operand::Kind::vector || B.kind == Operand::Kind::vector)
    throw DimensionMismatch("mxm: A and B must be matrices (2-D arrays or geblas.Matrix); use mxv / vxm for vectors");
  if (is_runtime_semiring(semiring_obj)) return mxm_runtime_semiring(A, B, semiring_obj, out, kw);
  if (!py::isinstance<py::str>(semiring_obj))
    throw InvalidValue("mxm: semiring must be a name (e.g. 'max_plus') or a geblas.Semiring");
  const std::string semiring = semiring_obj.cast<std::string>();
  const SemiringId sid = semiring_from_string(semiring.c_str());
  CallOptions c;
  parse_options(c, kw, A.type(), "mxm");
  const Index m = rows_of(A, c.o.transpose_a), n = cols_of(B, c.o.transpose_b);
  if (A.kind == Operand::Kind::sparse && B.kind == Operand::Kind::sparse)
    return sparse_result(out, m, n, A.type(), A.device(), "mxm",
                         [&](SparseStorage& cs) { lib::mxm(cs, A.sparse_s(), B.sparse_s(), sid, c.o); });
  // dense x dense into a geblas.Matrix: the sampled product at the (sparse) mask's entries
  if (A.kind == Operand::Kind::dense && B.kind == Operand::Kind::dense && py::isinstance<PyMatrix>(out))
    return sparse_result(out, m, n, A.type(), A.device(), "mxm",
                         [&](SparseStorage& cs) { lib::mxm(cs, A.dense, B.dense, sid, c.o); });
  DenseOut C = dense_out(out, m, n, A.type(), A.device(), "mxm");
  return finish_dense(C, [&](DenseStorage& cs) {
    if (A.kind == Operand::Kind::sparse) lib::mxm(cs, A.sparse_s(), B.dense, sid, c.o);
    else if (B.kind == Operand::Kind::sparse) lib::mxm(cs, A.dense, B.sparse_s(), sid, c.o);
    else lib::mxm(cs, A.dense, B.dense, sid, c.o);
  });
}

// sddmm(X, Y, pattern): the sampled product X (+).(x) Y' at the entries of `pattern` (its
// structure), as a new Matrix with pattern's shape or into out; transpose_b=False takes Y
// as k x n instead. scale=alpha or leaky_relu=slope fuses that op into the write of each
// entry (geblas::SampledOp).
py::object op_sddmm(py::object x, py::object y, py::object pattern, const std::string& semiring, py::object out,
                    py::kwargs kw) {
  Operand A = operand(x, "X"), B = operand(y, "Y");
  if (A.kind != Operand::Kind::dense || B.kind != Operand::Kind::dense)
    throw InvalidValue("sddmm: X and Y must be dense (2-D arrays)");
  if (!py::isinstance<PyMatrix>(pattern)) throw InvalidValue("sddmm: pattern must be a geblas.Matrix");
  for (const char* taken : {"mask", "structural_mask", "complement_mask"})
    if (kw.contains(taken))
      throw InvalidValue(std::string("sddmm: the pattern is the mask; ") + taken + "= is not taken");
  const SemiringId sid = semiring_from_string(semiring.c_str());
  SampledOp f;
  for (const char* name : {"scale", "leaky_relu"}) {
    if (!kw.contains(name)) continue;
    const py::object v = kw.attr("pop")(name);
    if (v.is_none()) continue;
    if (f.kind != SampledOp::Kind::identity)
      throw InvalidValue("sddmm: scale= and leaky_relu= are one fused op each; give one of them");
    const double alpha = v.cast<double>();
    f = std::string(name) == "scale" ? SampledOp::scale(alpha) : SampledOp::leaky_relu(alpha);
  }
  CallOptions c;
  parse_options(c, kw, A.type(), "sddmm");
  if (!kw.contains("transpose_b")) c.o.transpose_b = true;
  PyMatrix& P = pattern.cast<PyMatrix&>();
  c.o.mask = std::visit([](const auto& M) { return Mask::structure(M); }, P.typed_matrix());
  const Index m = rows_of(A, c.o.transpose_a), n = cols_of(B, c.o.transpose_b);
  return sparse_result(out, m, n, A.type(), A.device(), "sddmm",
                       [&](SparseStorage& cs) { lib::mxm(cs, A.dense, B.dense, sid, c.o, f); });
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
    if (vxm) lib::vxm(ws, u.vec_s(), A.s(), sid, c.o);
    else lib::mxv(ws, A.s(), u.vec_s(), sid, c.o);
  });
}

py::object op_ewise(py::object a, py::object b, const std::string& op, py::object out, py::kwargs kw,
                    lib::EwiseKind kind) {
  const char* name = kind == lib::EwiseKind::add ? "ewise_add" : "ewise_mult";
  Operand A = operand(a, "A"), B = operand(b, "B");
  const BinaryOpId bop = binary_op(op);
  CallOptions c;
  parse_options(c, kw, A.type(), name);
  if (A.kind == Operand::Kind::vector && B.kind == Operand::Kind::vector) {
    VectorOut w = vector_out(out, A.vec_s().size, A.type(), A.device(), A.is_array() && B.is_array(), name);
    return finish_vector(w, [&](VectorStorage& ws) { lib::ewise(ws, A.vec_s(), B.vec_s(), bop, kind, c.o); });
  }
  const bool t = c.o.transpose_a;
  if (A.kind == Operand::Kind::sparse && B.kind == Operand::Kind::sparse)
    return sparse_result(out, rows_of(A, t), cols_of(A, t), A.type(), A.device(), name,
                         [&](SparseStorage& cs) { lib::ewise(cs, A.sparse_s(), B.sparse_s(), bop, kind, c.o); });
  if (A.kind == Operand::Kind::dense && B.kind == Operand::Kind::dense) {
    DenseOut C = dense_out(out, rows_of(A, t), cols_of(A, t), A.type(), A.device(), name);
    return finish_dense(C, [&](DenseStorage& cs) { lib::ewise(cs, A.dense, B.dense, bop, kind, c.o); });
  }
  throw InvalidValue(std::string(name) +
                     ": A and B must be of one kind: two geblas.Matrix, two 2-D arrays, or two vectors "
                     "(geblas.Vector or 1-D arrays)");
}

py::object op_apply(py::object a, const std::string& op, py::object scalar, py::object out, py::kwargs kw) {
  Operand A = operand(a, "A");
  CallOptions c;
  parse_options(c, kw, A.type(), "apply");
  lib::ApplyOp f;
  ScalarValue s;
  if (scalar.is_none()) {
    f.unary = unary_op(op);
  } else {
    f.binary = binary_op(op);
    s = scalar_of(A.type(), scalar, "apply: scalar");
    f.scalar = s.data();
  }
  const bool t = c.o.transpose_a;
  switch (A.kind) {
    case Operand::Kind::sparse:
      return sparse_result(out, rows_of(A, t), cols_of(A, t), A.type(), A.device(), "apply",
                           [&](SparseStorage& cs) { lib::apply(cs, A.sparse_s(), f, c.o); });
    case Operand::Kind::dense: {
      DenseOut C = dense_out(out, rows_of(A, t), cols_of(A, t), A.type(), A.device(), "apply");
      return finish_dense(C, [&](DenseStorage& cs) { lib::apply(cs, A.dense, f, c.o); });
    }
    case Operand::Kind::vector: break;
  }
  VectorOut w = vector_out(out, A.vec_s().size, A.type(), A.device(), A.is_array(), "apply");
  return finish_vector(w, [&](VectorStorage& ws) { lib::apply(ws, A.vec_s(), f, c.o); });
}

py::object op_select(py::object a, const std::string& op, py::object thunk, py::object out, py::kwargs kw) {
  Operand A = operand(a, "A");
  CallOptions c;
  parse_options(c, kw, A.type(), "select");
  const SelectName& sel = select_op(op);
  lib::SelectArgs p{sel.id, 0, nullptr};
  ScalarValue threshold;
  if (sel.value) {
    threshold = scalar_of(A.type(), thunk.is_none() ? py::int_(0) : thunk, "select: threshold");
    p.value_thunk = threshold.data();
  } else if (!thunk.is_none()) {
    p.index_thunk = thunk.cast<Index>();
  }
  if (A.kind == Operand::Kind::sparse) {
    const bool t = c.o.transpose_a;
    return sparse_result(out, rows_of(A, t), cols_of(A, t), A.type(), A.device(), "select",
                         [&](SparseStorage& cs) { lib::select(cs, A.sparse_s(), p, c.o); });
  }
  if (A.kind != Operand::Kind::vector)
    throw InvalidValue("select: A must be a geblas.Matrix, a geblas.Vector or a 1-D array");
  VectorOut w = vector_out(out, A.vec_s().size, A.type(), A.device(), A.is_array(), "select");
  return finish_vector(w, [&](VectorStorage& ws) { lib::select(ws, A.vec_s(), p, c.o); });
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
      if (A.kind == Operand::Kind::sparse) lib::reduce_scalar(r.data(), A.sparse_s(), mid);
      else if (A.kind == Operand::Kind::dense) lib::reduce_scalar(r.data(), A.dense, mid);
      else lib::reduce_scalar(r.data(), A.vec_s(), mid);
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
  VectorOut w = vector_out(out, rows_of(A, c.o.transpose_a), A.type(), A.device(), true, "reduce");
  return finish_vector(w, [&](VectorStorage& ws) {
    if (A.kind == Operand::Kind::sparse) lib::reduce_rows(ws, A.sparse_s(), mid, c.o);
    else lib::reduce_rows(ws, A.dense, mid, c.o);
  });
}

py::object op_transpose(py::object a, py::object out, py::kwargs kw) {
  Operand A = operand(a, "A");
  CallOptions c;
  parse_options(c, kw, A.type(), "transpose");
  if (A.kind == Operand::Kind::sparse)
    return sparse_result(out, cols_of(A, false), rows_of(A, false), A.type(), A.device(), "transpose",
                         [&](SparseStorage& cs) { lib::transpose(cs, A.sparse_s(), c.o); });
  if (A.kind != Operand::Kind::dense) throw InvalidValue("transpose: A must be a matrix");
  DenseOut C = dense_out(out, A.dense.ncols, A.dense.nrows, A.type(), A.device(), "transpose");
  return finish_dense(C, [&](DenseStorage& cs) { lib::transpose(cs, A.dense, c.o); });
}

py::object op_extract(py::object a, py::object rows, py::object cols, py::object out, py::kwargs kw) {
  Operand A = operand(a, "A");
  CallOptions c;
  parse_options(c, kw, A.type(), "extract");
  const IndexList r = index_list(rows, "rows"), k = index_list(cols, "cols");
  if (A.kind == Operand::Kind::sparse) {
    const bool t = c.o.transpose_a;
    return sparse_result(out, r.size(rows_of(A, t)), k.size(cols_of(A, t)), A.type(), A.device(), "extract",
                         [&](SparseStorage& cs) { lib::extract(cs, A.sparse_s(), r, k, c.o); });
  }
  if (A.kind != Operand::Kind::vector) throw InvalidValue("extract: A must be a geblas.Matrix or a vector");
  if (!cols.is_none()) throw InvalidValue("extract: a vector takes one index list (rows)");
  VectorOut w = vector_out(out, r.size(A.vec_s().size), A.type(), A.device(), A.is_array(), "extract");
  return finish_vector(w, [&](VectorStorage& ws) { lib::extract(ws, A.vec_s(), r, c.o); });
}

py::object op_extract_column(py::object a, Index col, py::object rows, py::object out, py::kwargs kw) {
  PyMatrix& A = matrix_arg(a, "A", "extract_column");
  CallOptions c;
  parse_options(c, kw, A.s().type, "extract_column");
  const IndexList r = index_list(rows, "rows");
  const Index size = r.size(c.o.transpose_a ? A.s().ncols : A.s().nrows);
  VectorOut w = vector_out(out, size, A.s().type, A.s().device, false, "extract_column");
  return finish_vector(w, [&](VectorStorage& ws) { lib::extract_column(ws, A.s(), r, col, c.o); });
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
      lib::assign_scalar(C.matrix->s(), v.data(), r, k, c.o);
    } else {
      PyMatrix& A = matrix_arg(a, "A", "assign");
      py::gil_scoped_release nogil;
      lib::assign(C.matrix->s(), A.s(), r, k, c.o);
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
    lib::assign_scalar(w, v.data(), r, c.o);
  } else {
    Operand u = operand(a, "A");
    if (u.kind != Operand::Kind::vector) throw InvalidValue("assign: into a vector, A must be a vector");
    py::gil_scoped_release nogil;
    lib::assign(w, u.vec_s(), r, c.o);
  }
  if (C.is_array() && w.values.data() != before) {
    if (!w.dense) throw InvalidValue("geblas: internal: a dense output vector became sparse");
    lib::copy_bytes(before, w.device, w.values.data(), w.device, w.values.bytes());
  }
  return c_obj;
}

py::object op_convert(py::object a, const std::string& dtype) {
  Operand A = operand(a, "A");
  const TypeId to = type_from_name(dtype);
  std::variant<SparseStorage, DenseStorage, VectorStorage> r;
  {
    py::gil_scoped_release nogil;
    if (A.kind == Operand::Kind::sparse) r = lib::convert(A.sparse_s(), to);
    else if (A.kind == Operand::Kind::dense) r = lib::convert(A.dense, to);
    else r = lib::convert(A.vec_s(), to);
  }
  if (auto* s = std::get_if<SparseStorage>(&r)) return py::cast(PyMatrix(std::move(*s)));
  if (auto* d = std::get_if<DenseStorage>(&r)) return py::cast(Exported::from_dense(std::move(*d)));
  auto& v = std::get<VectorStorage>(r);
  if (v.dense && A.is_array()) return py::cast(Exported::from_vector(std::move(v)));
  return py::cast(PyVector(std::move(v)));
}

}  // namespace

void bind_operations(py::module_& m) {
  m.def("mxm", &op_mxm, py::arg("A"), py::arg("B"), py::arg("semiring") = "plus_times", py::arg("out") = py::none());
  m.def("sddmm", &op_sddmm, py::arg("X"), py::arg("Y"), py::arg("pattern"), py::arg("semiring") = "plus_times",
        py::arg("out") = py::none());
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
        return op_ewise(a, b, op, out, kw, lib::EwiseKind::add);
      },
      py::arg("A"), py::arg("B"), py::arg("op") = "plus", py::arg("out") = py::none());
  m.def(
      "ewise_mult",
      [](py::object a, py::object b, const std::string& op, py::object out, py::kwargs kw) {
        return op_ewise(a, b, op, out, kw, lib::EwiseKind::mult);
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
}

}  // namespace geblas::python
