// The objects of the Python module: the error types, the stored types and semirings (from
// the library's tables), devices, geblas.Matrix and geblas.Vector with their construction
// from arrays, and Matrix Market / graph file I/O.
#include <memory>

#include "common.hpp"
#include "geblas/device.hpp"
#include "geblas/version.hpp"

namespace geblas::python {
namespace {

// --- errors ---------------------------------------------------------------------------

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

// --- the library's tables ---------------------------------------------------------------

// The stored types' names in the library's order, and per type (name, bytes, whether
// every operation computes on it: the 16-bit types are storage types, docs/TYPES.md).
void bind_types(py::module_& m) {
  py::tuple names(checks::stored_type_count), table(checks::stored_type_count);
  for (int k = 0; k < checks::stored_type_count; ++k) {
    const TypeId t = checks::stored_type(k);
    names[static_cast<std::size_t>(k)] = type_name(t);
    table[static_cast<std::size_t>(k)] = py::make_tuple(type_name(t), size_of(t), !is_16bit_float(t));
  }
  m.attr("TYPES") = names;
  m.attr("_TYPE_TABLE") = table;
}

// The built-in semirings' names in the library's order, from its one list
// (GEBLAS_SEMIRINGS in geblas/semiring.hpp), so that Python never types it again; and per
// semiring (name, add monoid, multiply, the stored types it computes on).
void bind_semirings(py::module_& m) {
  py::tuple names(semiring_count), table(semiring_count);
  for (int k = 0; k < semiring_count; ++k) {
    const SemiringInfo& s = semiring_table[k];
    py::list types;
    for (int j = 0; j < checks::stored_type_count; ++j)
      if (supports_semiring(static_cast<SemiringId>(k), checks::stored_type(j)))
        types.append(type_name(checks::stored_type(j)));
    names[static_cast<std::size_t>(k)] = s.name;
    table[static_cast<std::size_t>(k)] = py::make_tuple(s.name, to_string(s.add), to_string(s.mul), py::tuple(types));
  }
  m.attr("SEMIRINGS") = names;
  m.attr("_SEMIRING_TABLE") = table;
}

// --- devices ------------------------------------------------------------------------------

void bind_devices(py::module_& m) {
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
}

// --- Matrix and Vector ------------------------------------------------------------------

// Matrix.clear_cache(): the derived data is dropped and the CSR arrays, which a caller
// may have changed in place (copy=False), pass adopt_csr's full check again over the same
// memory (on a GPU: over host copies of the index arrays). A failure is raised and kept,
// so that no later call hands the arrays to a kernel.
void clear_cache(PyMatrix& A) {
  SparseStorage& s = A.unchecked();
  s.derived.reset();
  const auto keep = std::make_shared<int>(0);  // borrow() needs an owner; the matrix owns the memory
  const bool host = s.device.is_cpu();
  auto on_host = [&](RawBuffer& b) {
    return host ? RawBuffer::borrow(b.data(), b.bytes(), Device::cpu(), keep) : b.to(Device::cpu());
  };
  try {
    py::gil_scoped_release nogil;
    // adopt_csr checks only the values' length: a host stand-in of the right byte count.
    RawBuffer values = RawBuffer::borrow(host ? s.values.data() : nullptr, s.values.bytes(), Device::cpu(), keep);
    lib::adopt_csr(s.nrows, s.ncols, on_host(s.row_offsets), on_host(s.col_indices), std::move(values), s.type,
                   Device::cpu());
  } catch (const geblas::Error& e) {
    A.invalid = e.what();
    throw;
  }
  A.invalid.clear();
}

void bind_matrix(py::module_& m) {
  py::class_<PyMatrix>(m, "Matrix", "A sparse matrix (CSR) on one device.", py::dynamic_attr())
      .def(py::init([](Index nrows, Index ncols, const std::string& dtype, const std::string& device) {
             return PyMatrix(lib::make_sparse(nrows, ncols, type_from_name(dtype), device_from_name(device)));
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
            SparseStorage s = lib::to_device(A.s(), d);
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
             RawBuffer ro(s.row_offsets), ci(s.col_indices), v(s.values);
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
}

void bind_vector(py::module_& m) {
  py::class_<PyVector>(m, "Vector", "A vector on one device, stored dense or sparse.", py::dynamic_attr())
      .def(py::init([](Index size, const std::string& dtype, const std::string& device) {
             return PyVector(lib::make_sparse_vector(size, type_from_name(dtype), device_from_name(device)));
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
            VectorStorage s = lib::to_device(v.s(), d);
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
            VectorStorage d = s.dense ? VectorStorage(s) : lib::to_dense_storage(s, f.data());
            return Exported::from_vector(std::move(d));
          },
          py::arg("fill"))
      .def("_sparse_parts",
           [](PyVector& v) {
             VectorStorage s = lib::to_sparse_storage(v.s());
             const Index n = s.nvals;
             return py::make_tuple(Exported(std::move(s.indices), TypeId::int32, {n}, {1}),
                                   Exported(std::move(s.values), s.type, {n}, {1}));
           })
      .def("__repr__", [](PyVector& v) {
        const VectorStorage& s = v.s();
        return "geblas.Vector(size=" + std::to_string(s.size) + ", nvals=" + std::to_string(s.nvals) +
               ", dtype=" + type_name(s.type) + ", device=" + s.device.str() + (s.dense ? ", dense)" : ", sparse)");
      });
}

// The constructors from arrays, which geblas/__init__.py wraps as Matrix.from_csr,
// Matrix.from_coo, Vector.from_numpy and Vector.from_tuples.
void bind_construction(py::module_& m) {
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
          RawBuffer ib = buffer_from_view(i, "indices"), vb = buffer_from_view(v, "values");
          if (i.shape[0] != v.shape[0])
            throw DimensionMismatch("Vector.from_tuples: " + std::to_string(i.shape[0]) + " indices but " +
                                    std::to_string(v.shape[0]) + " values");
          Duplicates d;
          if (!dup.is_none())
            d.op = binary_op(arg_as<std::string>(dup, "Vector.from_tuples: dup", "None or an operator name"));
          VectorStorage s = lib::build_sparse_vector(size, ib.as<Index>(), vb.data(), i.shape[0], v.type, d,
                                                     device_from_name(device));
          return PyVector(std::move(s));
        });
}

// --- files ----------------------------------------------------------------------------------

void bind_io(py::module_& m) {
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
        SparseStorage s = lib::read_matrix_market(path, t, o);
        if (!dev.is_cpu()) s = lib::to_device(s, dev);
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
        SparseStorage s = lib::read_graph(path, t, o, io::Format::automatic);
        if (!dev.is_cpu()) s = lib::to_device(s, dev);
        py::gil_scoped_acquire gil;
        return PyMatrix(std::move(s));
      },
      py::arg("path"), py::arg("dtype") = "float32", py::arg("device") = "cpu", py::arg("undirected") = false,
      py::arg("base") = 0, "Reads any graph file geblas knows (Matrix Market, binary, edge list, CSV).");
  m.def(
      "write_matrix_market",
      [](const std::string& path, PyMatrix& A) {
        py::gil_scoped_release nogil;
        lib::write_matrix_market(path, A.s());
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
}

}  // namespace

void bind_objects(py::module_& m) {
  register_errors(m);
  m.attr("__version__") = GEBLAS_VERSION_STRING;
  bind_types(m);
  bind_semirings(m);
  bind_devices(m);
  bind_matrix(m);
  bind_vector(m);
  bind_construction(m);
  bind_io(m);
}

}  // namespace geblas::python
