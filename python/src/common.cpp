// The shared argument and result conversions of the binding files (common.hpp).
#include "common.hpp"

#include <climits>
#include <vector>

namespace geblas::python {

PyMatrix::PyMatrix(SparseStorage s) : m(typed<SparseMatrix>(std::move(s))) {}

void PyMatrix::check_valid() const {
  if (!invalid.empty())
    throw InvalidObject("Matrix: its borrowed CSR arrays were changed into an invalid matrix (" + invalid +
                        "); repair them and call clear_cache() again before using it");
}

PyVector::PyVector(VectorStorage s) : v(typed<Vector>(std::move(s))) {}

// --- scalars ------------------------------------------------------------------------------

namespace {
template <class T>
void store(ScalarValue& out, T v) {
  std::memcpy(out.data(), &v, sizeof(T));
}
}  // namespace

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

namespace {
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
}  // namespace

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

// --- operands -------------------------------------------------------------------------

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

PyMatrix& matrix_arg(py::handle obj, const char* what, const char* op) {
  if (!py::isinstance<PyMatrix>(obj))
    throw DomainMismatch(std::string(op) + ": " + what + " must be a geblas.Matrix, got " +
                         py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
  return obj.cast<PyMatrix&>();
}

IndexList index_list(py::handle obj, const std::string& what) {
  if (obj.is_none()) return IndexList::all();
  return IndexList(arg_as<std::vector<Index>>(obj, what, "None or a list of ints"));
}

// --- options ------------------------------------------------------------------------------

namespace {
template <class V>
Mask mask_from(const V& typed_variant, bool structural, bool complement) {
  Mask m = std::visit([&](const auto& x) { return structural ? Mask::structure(x) : Mask(x); }, typed_variant);
  return complement ? m.complement() : m;
}

bool flag(const py::kwargs& kw, const char* name) { return kw.contains(name) ? kw[name].cast<bool>() : false; }
}  // namespace

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

void enter_stream(std::optional<cuda::StreamGuard>& guard, Device device, const py::object& stream) {
  if (stream.is_none() || !device.is_cuda()) return;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): Python passes stream handles as integers
  guard.emplace(device, reinterpret_cast<void*>(stream.cast<std::uintptr_t>()));
}

// --- outputs ------------------------------------------------------------------------------

DenseOut dense_out(py::object out, Index nrows, Index ncols, TypeId t, Device dev, const char* op) {
  DenseOut d;
  if (out.is_none()) {
    d.fresh = lib::make_dense(nrows, ncols, Layout::row_major, t, dev);
    return d;
  }
  d.given.emplace(operand(out, "out"));
  if (d.given->kind != Operand::Kind::dense || !d.given->is_array())
    throw InvalidValue(std::string(op) + ": out must be a 2-D array here");
  check_writable(*d.given, "out");
  return d;
}

VectorOut vector_out(py::object out, Index size, TypeId t, Device dev, bool dense, const char* op) {
  VectorOut d;
  if (out.is_none()) {
    d.fresh = dense ? lib::make_dense_vector(size, t, dev) : lib::make_sparse_vector(size, t, dev);
    return d;
  }
  d.given.emplace(operand(out, "out"));
  if (d.given->kind != Operand::Kind::vector)
    throw InvalidValue(std::string(op) + ": out must be a Vector or a 1-D array");
  check_writable(*d.given, "out");
  return d;
}

}  // namespace geblas::python
