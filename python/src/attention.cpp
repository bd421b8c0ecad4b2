// Attention over the stored entries of each row: geblas.softmax_rows and its backward on
// Matrix objects, and the one-call forms geblas.torch's edge softmax and GAT layer run
// (values in A's CSR order and dense tensors handed over as arrays or DLPack capsules,
// written in place, on the caller's stream).
#include <memory>
#include <optional>
#include <string>

#include "common.hpp"
#include "geblas/algorithms/gnn.hpp"
#include "geblas/detail/borrowed_pattern.hpp"
#include "geblas/operations/softmax.hpp"

namespace geblas::python {
namespace {

// A 1-D array operand of A.nvals values on A's device.
Operand edge_values(const py::object& obj, const SparseStorage& A, const char* what, const char* op) {
  Operand v = operand(obj, what);
  if (v.kind != Operand::Kind::vector || !v.is_array())
    throw InvalidValue(std::string(op) + ": " + what + " must be a 1-D array (one value per entry of A)");
  if (v.dense_vec.size != A.nvals)
    throw DimensionMismatch(std::string(op) + ": " + what + " has " + std::to_string(v.dense_vec.size) +
                            " values, A has " + std::to_string(A.nvals) + " entries");
  if (v.dense_vec.device != A.device)
    throw DeviceMismatch(std::string(op) + ": " + what + " is on " + v.dense_vec.device.str() + ", A on " +
                         A.device.str());
  return v;
}

Operand dense_arg(const py::object& obj, const char* what, const char* op) {
  Operand d = operand(obj, what);
  if (d.kind != Operand::Kind::dense || !d.is_array())
    throw InvalidValue(std::string(op) + ": " + what + " must be a 2-D array (a torch tensor or NumPy array)");
  return d;
}

}  // namespace

void bind_attention(py::module_& m) {
  m.def(
      "softmax_rows",
      [](const py::object& s, const py::object& out) {
        PyMatrix& S = matrix_arg(s, "S", "softmax_rows");
        return sparse_result(out, S.s().nrows, S.s().ncols, S.s().type, S.s().device, "softmax_rows",
                             [&](SparseStorage& cs) { detail::softmax_rows(cs, S.s()); });
      },
      py::arg("S"), py::arg("out") = py::none(),
      "The softmax of each row of S over its stored entries (S's pattern; an empty row stays empty, a row "
      "of -inf gives zeros, NaN makes its row NaN).");
  m.def(
      "softmax_rows_backward",
      [](const py::object& p, const py::object& dp, const py::object& out) {
        PyMatrix& P = matrix_arg(p, "P", "softmax_rows_backward");
        PyMatrix& dP = matrix_arg(dp, "dP", "softmax_rows_backward");
        return sparse_result(out, P.s().nrows, P.s().ncols, P.s().type, P.s().device, "softmax_rows_backward",
                             [&](SparseStorage& cs) { detail::softmax_rows_backward(cs, P.s(), dP.s()); });
      },
      py::arg("P"), py::arg("dP"), py::arg("out") = py::none(),
      "dS = P * (dP - rowsum(P * dP)) on P's pattern, for P = softmax_rows(S); dP must have P's pattern.");
  m.def(
      "_edge_softmax",
      [](const py::object& a, const py::object& values, const py::object& out, const py::object& dp,
         const py::object& stream) {
        // geblas.torch's edge softmax: out = softmax_rows of `values` (A's CSR order) over A's
        // pattern; with dp given (not None), `values` is the forward's P and out its backward.
        const char* op = "_edge_softmax";
        PyMatrix& A = matrix_arg(a, "A", op);
        std::optional<cuda::StreamGuard> on;
        enter_stream(on, A.s().device, stream);
        Operand v = edge_values(values, A.s(), "values", op), o = edge_values(out, A.s(), "out", op);
        check_writable(o, "out");
        if (o.dense_vec.type != v.dense_vec.type)
          throw DomainMismatch(std::string(op) + ": out and values differ in type");
        const SparseStorage S = detail::borrowed_pattern(A.s(), v.dense_vec.values.data(), v.dense_vec.type);
        if (dp.is_none()) {
          py::gil_scoped_release nogil;
          detail::softmax_rows_values(o.dense_vec.values.data(), S);
        } else {
          Operand g = edge_values(dp, A.s(), "dP", op);
          if (g.dense_vec.type != v.dense_vec.type) throw DomainMismatch(std::string(op) + ": dP and P differ in type");
          py::gil_scoped_release nogil;
          detail::softmax_rows_backward_values(o.dense_vec.values.data(), S, g.dense_vec.values.data());
        }
      },
      py::arg("A"), py::arg("values"), py::arg("out"), py::arg("dP"), py::arg("stream"));
  m.def(
      "_gat_attention",
      [](const py::object& a, const py::object& el, const py::object& er, const py::object& v, const py::object& y,
         const py::object& alpha, double slope, const py::object& stream) {
        // The fused GAT forward into the caller's Y (n x H F) and alpha (nnz x H).
        const char* op = "_gat_attention";
        PyMatrix& A = matrix_arg(a, "A", op);
        std::optional<cuda::StreamGuard> on;
        enter_stream(on, A.s().device, stream);
        Operand L = dense_arg(el, "el", op), R = dense_arg(er, "er", op), V = dense_arg(v, "V", op);
        Operand Y = dense_arg(y, "Y", op), P = dense_arg(alpha, "alpha", op);
        check_writable(Y, "Y");
        check_writable(P, "alpha");
        py::gil_scoped_release nogil;
        detail::gat_attention(Y.dense, P.dense, A.s(), L.dense, R.dense, V.dense, slope);
      },
      py::arg("A"), py::arg("el"), py::arg("er"), py::arg("V"), py::arg("Y"), py::arg("alpha"),
      py::arg("negative_slope"), py::arg("stream"));
  m.def(
      "_gat_attention_backward",
      [](const py::object& a, const py::object& el, const py::object& er, const py::object& v, const py::object& alpha,
         const py::object& dy, const py::object& dv, const py::object& d_el, const py::object& d_er, double slope,
         const py::object& stream) {
        // The fused GAT backward into the caller's dV, d_el and d_er.
        const char* op = "_gat_attention_backward";
        PyMatrix& A = matrix_arg(a, "A", op);
        std::optional<cuda::StreamGuard> on;
        enter_stream(on, A.s().device, stream);
        Operand L = dense_arg(el, "el", op), R = dense_arg(er, "er", op), V = dense_arg(v, "V", op);
        Operand P = dense_arg(alpha, "alpha", op), G = dense_arg(dy, "dY", op);
        Operand DV = dense_arg(dv, "dV", op), DL = dense_arg(d_el, "d_el", op), DR = dense_arg(d_er, "d_er", op);
        for (const auto& [o, name] : {std::pair{&DV, "dV"}, std::pair{&DL, "d_el"}, std::pair{&DR, "d_er"}})
          check_writable(*o, name);
        py::gil_scoped_release nogil;
        detail::gat_attention_backward(DV.dense, DL.dense, DR.dense, A.s(), L.dense, R.dense, V.dense, P.dense, G.dense,
                                       slope);
      },
      py::arg("A"), py::arg("el"), py::arg("er"), py::arg("V"), py::arg("alpha"), py::arg("dY"), py::arg("dV"),
      py::arg("d_el"), py::arg("d_er"), py::arg("negative_slope"), py::arg("stream"));
}

}  // namespace geblas::python
