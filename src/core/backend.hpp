// The interface every backend provides, declared once. The core validates a call,
// picks the backend from the operands' device and calls through this table; a backend
// that does not provide an operation leaves its entry null, and the core reports that
// as NotImplemented naming the operation and the device (never a silent fallback).
// Backends work on storage and plain views, never on the public classes.
//
// Each entry's signature is written once, as its field of Backend below;
// GEBLAS_BACKEND_ENTRIES names the fields in order, and each backend declares its
// functions and fills its table from that list (as core/graph_kernels.hpp does for the
// graph entries), so a backend that disagrees with the table does not build.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

#include "core/graph_kernels.hpp"
#include "core/row_stats.hpp"
#include "geblas/detail/storage.hpp"
#include "geblas/monoid.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/sampled_op.hpp"
#include "geblas/options.hpp"
#include "geblas/select_op.hpp"
#include "geblas/semiring.hpp"
#include "geblas/tensor_cores.hpp"
#include "geblas/trace.hpp"
#include "geblas/unary_op.hpp"

namespace geblas::detail {

// C = A (+).(x) B with A sparse, B and C dense, all on the backend's device. Rows of A
// with no entries give the identity, or leave C alone when accumulating. With
// `accumulate`, C = C (+) T using the semiring's own add (the fused accumulator case).
// The backend handles either layout of B and C, fills record->variant and ->reason.
struct SpmmArgs {
  const SparseStorage* A = nullptr;
  const DenseStorage* B = nullptr;
  DenseStorage* C = nullptr;
  SemiringId semiring = SemiringId::plus_times;
  bool accumulate = false;
  std::string_view variant{};  // forced variant; empty: the backend chooses
  DispatchRecord* record = nullptr;
  bool allow_tf32 = false;  // Options::allow_tf32: float may run on tensor cores in TF32
};

// A dense product T (row-major, on the backend's device) and which of its entries are
// present in the GraphBLAS sense: all of them, those in rows where `rows_of` has
// entries (sparse x dense), or those in columns where `cols_of` has entries
// (dense x sparse).
struct DenseProduct {
  const DenseStorage* T = nullptr;
  const SparseStorage* rows_of = nullptr;
  const SparseStorage* cols_of = nullptr;
};

// One value of any supported type, passed by address to type-erased code.
struct ScalarBytes {
  alignas(8) unsigned char bytes[8] = {};
  const void* data() const { return bytes; }
  void* data() { return bytes; }
};

// ---------------------------------------------------------------------------------
// Shared conventions of the non-mxm entries below (mxv, ewise, apply, reduce, select,
// assign, extract and the vector write-back):
//  * Every storage and every pointer an entry receives is on the backend's device
//    (device index = the operands' `device.ordinal()`), except ScalarBytes, which are
//    host values passed by value, and `Index` counts / `nvals` fields, which are host
//    numbers. The core never reads device memory; an entry that needs a device value on
//    the host (a count, a reduced scalar) reads it itself.
//  * Outputs: a sparse result is *replaced* by the entry (it assigns a fresh
//    SparseStorage / VectorStorage of the right shape, type and device, with `nvals`
//    set); a dense matrix result is allocated by the core (row-major, ld = ncols) and
//    the entry writes every element. Sparse results always hold sorted, unique
//    indices per row.
//  * Index lists (`IndexArray`) are int64 arrays the core has checked (in range; unique
//    for assign) and copied to the device; `all` means 0, 1, ..., count - 1 and then
//    `data` is null.
//  * Identity for dense outputs: the core passes the write-back the value an absent
//    entry of a dense output takes: the semiring's / monoid's identity for mxv, vxm and
//    reduce, and zero (T{}, false) for the operations without one (ewise, apply,
//    select, extract, assign, transpose).
//  * Operator arguments are ids of built-ins; the core has checked that the (semiring,
//    type) pair is supported (supports_semiring) and that every type matches.
//  * Masks are never required: entries take a mask only where skipping work pays; the
//    write-back applies the mask exactly, so what an entry computes for a position the
//    mask excludes is never read.
// ---------------------------------------------------------------------------------

// A vector result before the write-back. Either sparse (`t.dense == false`: exactly the
// present entries, sorted unique indices) or dense (`t.dense == true`, `size` values)
// with `present` holding one uint8 per entry (1 = present in the GraphBLAS sense, 0 =
// absent: its value is then unspecified); an empty `present` buffer means every entry
// is present. The producing entry chooses the form; write_vector accepts both.
struct VectorResult {
  VectorStorage t;
  RawBuffer present;
};

// An index list on the device, see the conventions above.
struct IndexArray {
  const Index* data = nullptr;  // device array of `count` indices; null when `all`
  Index count = 0;
  bool all = true;
};

// t = M (+).(x) u for mxv_pull / mxv_push. M is m x n; t has size m.
struct MxvArgs {
  // mxv_pull: M itself in CSR (m x n); row i of M gives t(i).
  // mxv_push: M' in CSR (n x m); row k of M' is scattered, scaled by u(k).
  const SparseStorage* A = nullptr;
  const VectorStorage* u = nullptr;  // size n; dense or sparse (push: always sparse)
  SemiringId semiring = SemiringId::plus_times;
  // The multiply's operand order: false computes mul(M(i,k), u(k)) (mxv); true
  // computes mul(u(k), M(i,k)) (vxm, which the core runs as mxv over A'). It matters
  // for the semirings whose multiply is not symmetric (min_second, any_second,
  // plus_second: "second" is then u(k) for mxv and M(i,k) for vxm).
  bool u_first = false;
  // The output mask (a Vector mask of size m, value/structural, maybe complemented) or
  // null. The entry MAY skip every i the mask excludes (pull: skip the row; push: drop
  // the update); its result there is never read. Needed for the BFS pull step, where a
  // complemented "visited" mask removes most rows.
  const Mask* mask = nullptr;
  VectorResult* t = nullptr;  // output, any form (see VectorResult)
  DispatchRecord* record = nullptr;  // the entry fills ->variant and ->reason
};

// What apply() does to one value x: unary(x) or, when binary != none, binary(x, scalar).
struct ApplyArgs {
  UnaryOpId unary = UnaryOpId::identity;
  BinaryOpId binary = BinaryOpId::none;
  ScalarBytes scalar{};  // of the operands' type; bound as the second operand
};

// A select() predicate on entry (i, j, x): see include/geblas/select_op.hpp. For a
// vector, i is the index and j is 0 (the vector is an n x 1 column, as GraphBLAS).
struct SelectPredicate {
  SelectOpId op = SelectOpId::nonzero;
  Index k = 0;            // the offset of position predicates
  ScalarBytes threshold{};  // of the operand's type, for value predicates
};

// ---- graph attention (GAT, Velickovic et al. 2018), fused per row of A's pattern:
//   e_ij^h = leaky_relu(el_i^h + er_j^h),  alpha_i.^h = softmax over row i's stored j,
//   Y_i^h  = sum_j alpha_ij^h V_j^h.
// Dense arrays are row-major and contiguous, of `type` (float32 or float64): el, er
// and d_el, d_er n x H; V, Y, dY and dV n x (H F), head h in columns h F .. h F + F - 1;
// alpha (nnz x H) in A's CSR order. A's values are not read. A row of A without entries
// gives Y_i = 0; a row whose scores are all -inf gives alpha = 0 and Y_i = 0 (as
// softmax_rows does); NaN propagates. gat_forward writes Y and alpha; gat_backward
// reads alpha (the forward's) and dY and writes every element of dV, d_el and d_er.
struct GatAttention {
  const SparseStorage* A = nullptr;  // n x n
  TypeId type = TypeId::float32;
  Index heads = 1;
  Index features = 1;
  double negative_slope = 0.2;
  const void* el = nullptr;
  const void* er = nullptr;
  const void* V = nullptr;
  void* Y = nullptr;         // forward
  void* alpha = nullptr;     // written by the forward, read by the backward
  const void* dY = nullptr;  // backward
  void* dV = nullptr;
  void* d_el = nullptr;
  void* d_er = nullptr;
};

struct Backend {
  const char* name;

  // memory (ordinal: the device's index; ignored on the CPU). On CUDA every entry works on
  // the calling thread's current stream for the device (cuda::stream(), which honours
  // geblas::cuda::StreamGuard); a free is ordered after the work of the stream that
  // allocated by the guards' own ordering (<geblas/stream.hpp>).
  void* (*allocate)(std::size_t bytes, int ordinal);
  void (*deallocate)(void* ptr, int ordinal) noexcept;
  void (*zero)(void* ptr, std::size_t bytes, int ordinal);
  // Copies where either side is on this backend's devices (the CPU backend: host only).
  void (*copy)(void* dst, Device dst_device, const void* src, Device src_device, std::size_t bytes);
  // Waits for the calling thread's current stream for the device.
  void (*synchronize)(int ordinal);

  // products
  void (*mxm_sparse_dense)(const SpmmArgs& args);
  void (*mxm_sparse_sparse)(SparseStorage& T, const SparseStorage& A, const SparseStorage& B,
                            SemiringId s, const Options& o);  // o.mask honoured during the product
  void (*mxm_dense_sparse)(DenseStorage& T, const DenseStorage& A, const SparseStorage& B, SemiringId s);
  void (*mxm_dense_dense)(DenseStorage& T, const DenseStorage& A, const DenseStorage& B, SemiringId s);
  // The sampled dense x dense product (SDDMM): T = op(A) (+).(x) op(B) at the entries the
  // sparse, uncomplemented mask o.mask lists (every stored one when structural, the
  // nonzero ones otherwise), in M's order; op() is o.transpose_a / o.transpose_b, read in
  // place (no transposed copy), and f applied to each computed entry. No other entry is
  // computed. f has been checked against T's type (SampledOp's rules).
  void (*mxm_sampled)(SparseStorage& T, const DenseStorage& A, const DenseStorage& B, SemiringId s, const Options& o,
                      const SampledOp& f);

  // Row-length statistics of A (max, empty rows, mean, standard deviation).
  void (*row_stats)(RowStats& out, const SparseStorage& A);

  // layout and transposes
  void (*transpose_sparse)(SparseStorage& T, const SparseStorage& A);
  void (*transpose_dense)(DenseStorage& T, const DenseStorage& A);  // T row-major
  void (*relayout_dense)(DenseStorage& T, const DenseStorage& A, Layout layout);

  // ---- mxv / vxm (the core runs vxm as mxv over the cached A', with u_first = true)
  // Pull: t(i) = add_k mul(M(i,k), u(k)) over row i of M (args.A = M), u dense or
  // sparse (the entry may build a dense copy or bitmap of a sparse u). A row with no
  // k where both M(i,k) and u(k) are present gives an absent t(i). With a dense u this
  // is one SpMV: the natural result is dense t with present(i) = row i non-empty.
  void (*mxv_pull)(const MxvArgs& args);
  // Push: for every present u(k), scatter row k of M' (args.A = M', n x m) into t:
  // t(i) = add over those k of mul(M(i,k), u(k)). u is sparse (the frontier). Entries
  // that receive no update are absent. The add order is unspecified (plus on floating
  // point may round differently from pull; any_second may pick any term).
  void (*mxv_push)(const MxvArgs& args);

  // ---- element-wise. ewise_add: union of the patterns, op(a, b) where both are
  // present, the present value alone elsewhere. ewise_mult: intersection, op(a, b).
  // T = A op B, both sparse m x n; T is replaced by the sparse result.
  void (*ewise_sparse)(SparseStorage& T, const SparseStorage& A, const SparseStorage& B, BinaryOpId op,
                       EwiseKind kind);
  // T(i,j) = op(A(i,j), B(i,j)) for every entry (dense has no absent entries, so add and
  // mult agree). A and B may have either layout; T is core-allocated row-major.
  void (*ewise_dense)(DenseStorage& T, const DenseStorage& A, const DenseStorage& B, BinaryOpId op);
  // t = u op v, each dense or sparse, with the add / mult pattern rule (a dense vector
  // has every entry present). Result in any VectorResult form.
  void (*ewise_vector)(VectorResult& t, const VectorStorage& u, const VectorStorage& v, BinaryOpId op,
                       EwiseKind kind);

  // ---- apply: out[k] = f(in[k]) for k < count, on a flat array of `type`, in place
  // allowed (out == in). The core uses it on a sparse matrix's or vector's values
  // (pattern copied unchanged) and on a dense matrix's data (ld = inner size).
  void (*apply_values)(void* out, const void* in, Index count, TypeId type, const ApplyArgs& f, int ordinal);

  // ---- convert: out[k] = in[k] converted from `from` to `to` for k < count, every
  // stored type including the 16-bit ones, with geblas/detail/value_convert.hpp's
  // rounding (the CPU and GPU results are bit-identical).
  void (*convert_values)(void* out, TypeId to, const void* in, TypeId from, Index count, int ordinal);

  // ---- reduce over a monoid.
  // t(i) = add of row i of A (sparse m x n); an empty row gives an absent t(i). Any
  // VectorResult form (dense + present = "row non-empty" is natural for one kernel).
  void (*reduce_rows_sparse)(VectorResult& t, const SparseStorage& A, MonoidId m);
  // t(i) = add of row i of A (dense, either layout; a row of a 0-column matrix is the
  // identity). t is dense with every entry present; the entry replaces `t`.
  void (*reduce_rows_dense)(VectorStorage& t, const DenseStorage& A, MonoidId m);
  // The add of values[0 .. count) (identity when count == 0), returned on the host in
  // *result (one value of `type`). The core reduces a sparse matrix's or a vector's
  // values and a dense matrix's data with it.
  void (*reduce_values)(ScalarBytes& result, const void* values, Index count, TypeId type, MonoidId m,
                        int ordinal);

  // ---- select: keep the entries where the predicate holds, same shape.
  void (*select_sparse)(SparseStorage& T, const SparseStorage& A, const SelectPredicate& p);
  // t = the kept entries of u (dense or sparse); t is replaced by a sparse vector.
  void (*select_vector)(VectorStorage& t, const VectorStorage& u, const SelectPredicate& p);

  // ---- extract: T(a, b) = A(rows[a], cols[b]), T is |rows| x |cols|, replaced by a
  // sparse result (lists may repeat and be unsorted; each row of T sorted by b).
  void (*extract_sparse)(SparseStorage& T, const SparseStorage& A, const IndexArray& rows,
                         const IndexArray& cols);
  // t(a) = u(indices[a]) (absent where u(indices[a]) is absent); t has size |indices|;
  // any VectorResult form.
  void (*extract_vector)(VectorResult& t, const VectorStorage& u, const IndexArray& indices);

  // ---- assign, the region step (GrB_assign without its mask): Z = C, except on the
  // region R = rows x cols, where Z(rows[a], cols[b]) = accum(C(rows[a], cols[b]),
  // S(a, b)) with S = A (or, when A is null, every (a, b) holding *scalar). Without an
  // accumulator (accum == none) Z on R is S alone: entries of C on R with no S entry
  // are deleted. With one, Z on R is the union (accum where both exist). rows / cols
  // hold no repeats. Z is replaced by a sparse result; the core then applies the mask
  // with write_sparse (no accumulator).
  void (*assign_sparse)(SparseStorage& Z, const SparseStorage& C, const SparseStorage* A,
                        const ScalarBytes& scalar, const IndexArray& rows, const IndexArray& cols,
                        BinaryOpId accum);
  // The same for vectors: Z = w except Z(indices[a]) = accum(w(indices[a]), u(a)) (or
  // the scalar when u is null) on the region. w and u dense or sparse. Any
  // VectorResult form; for a dense w the natural one is dense + present.
  void (*assign_vector)(VectorResult& Z, const VectorStorage& w, const VectorStorage* u,
                        const ScalarBytes& scalar, const IndexArray& indices, BinaryOpId accum);

  // C<M, replace> = accum(C, T): the last step of every operation with a dense output.
  void (*write_dense)(DenseStorage& C, const DenseProduct& T, const Options& o, const ScalarBytes& identity);
  // The same for a sparse output; T's pattern is exactly the entries it holds.
  void (*write_sparse)(SparseStorage& C, SparseStorage& T, const Options& o);  // T is consumed
  // w<m, replace> = accum(w, t): the last step of every operation with a vector output.
  // o.mask is empty or a Vector mask of w's size (dense or sparse storage; value or
  // structural; maybe complemented); o.accum is none or an operator of w's type.
  // w keeps its storage kind:
  //  * sparse w: exactly GraphBLAS (Z = accum ? union with accum where both : t; then
  //    w(i) = Z(i) where the mask allows, old w(i) elsewhere unless replace, where it is
  //    absent). w is replaced by a fresh sparse storage with sorted indices.
  //  * dense w: where the mask allows, w(i) = accum(w(i), t(i)) (or t(i)) when t(i) is
  //    present; when t(i) is absent, w(i) is kept with an accumulator and set to
  //    `identity` without one. Where the mask excludes i: `identity` under replace, else
  //    w(i) is kept. t's values at excluded or absent positions are never read.
  // t is consumed (the entry may move its buffers into w).
  void (*write_vector)(VectorStorage& w, VectorResult& t, const Options& o, const ScalarBytes& identity);

  // ---- softmax over each row's stored entries (geblas/operations/softmax.hpp): out[k]
  // for S's nvals entries, S float32 or float64 (the core widens the 16-bit types);
  // out may be S's own values. A row whose values are all -inf gives zeros.
  void (*softmax_rows)(void* out, const SparseStorage& S);
  // out[k] = P[k] (dP[k] - sum over k's row of P dP); dP holds P.nvals values in P's order.
  void (*softmax_rows_backward)(void* out, const SparseStorage& P, const void* dP);
  // The fused GAT aggregation and its backward (see GatAttention).
  void (*gat_forward)(const GatAttention& args);
  void (*gat_backward)(const GatAttention& args);

  // The iteration kernels of the graph algorithms (core/graph_kernels.hpp).
  const GraphKernels* graph;
};

// The entries of Backend, in its order (every field but `name` and `graph`). A backend
// declares them in its namespace with GEBLAS_DECLARE_BACKEND_ENTRY (each takes its
// field's signature) and fills its table with GEBLAS_BACKEND_TABLE_FIELD:
//   GEBLAS_BACKEND_ENTRIES(GEBLAS_DECLARE_BACKEND_ENTRY)            // its header
//   Backend{.name = "x", GEBLAS_BACKEND_ENTRIES(GEBLAS_BACKEND_TABLE_FIELD) .graph = ...}
// A name missing from the list fails the size check below; a list out of the fields'
// order fails the designated initializers; a definition with another signature leaves
// the declared function undefined (a link error).
// clang-format off
#define GEBLAS_BACKEND_ENTRIES(X)                                                                    \
  X(allocate) X(deallocate) X(zero) X(copy) X(synchronize)                                           \
  X(mxm_sparse_dense) X(mxm_sparse_sparse) X(mxm_dense_sparse) X(mxm_dense_dense) X(mxm_sampled)     \
  X(row_stats) X(transpose_sparse) X(transpose_dense) X(relayout_dense)                              \
  X(mxv_pull) X(mxv_push)                                                                            \
  X(ewise_sparse) X(ewise_dense) X(ewise_vector) X(apply_values) X(convert_values)                   \
  X(reduce_rows_sparse) X(reduce_rows_dense) X(reduce_values)                                        \
  X(select_sparse) X(select_vector) X(extract_sparse) X(extract_vector) X(assign_sparse)             \
  X(assign_vector) X(write_dense) X(write_sparse) X(write_vector)                                    \
  X(softmax_rows) X(softmax_rows_backward) X(gat_forward) X(gat_backward)
// clang-format on
#define GEBLAS_DECLARE_BACKEND_ENTRY(entry) std::remove_pointer_t<decltype(::geblas::detail::Backend::entry)> entry;
#define GEBLAS_BACKEND_TABLE_FIELD(entry) .entry = entry,

#define GEBLAS_COUNT_BACKEND_ENTRY(entry) +1
static_assert(sizeof(Backend) == sizeof(const char*) + sizeof(const GraphKernels*) +
                                     (0 GEBLAS_BACKEND_ENTRIES(GEBLAS_COUNT_BACKEND_ENTRY)) * sizeof(void (*)()),
              "GEBLAS_BACKEND_ENTRIES must name every entry of Backend");
#undef GEBLAS_COUNT_BACKEND_ENTRY

GEBLAS_API const Backend& cpu_backend();
// Null when libgeblas.so was built without CUDA.
const Backend* cuda_backend();
// The backend for `device`; throws InvalidValue when it is not available (no CUDA
// backend compiled, no such device).
GEBLAS_API const Backend& backend_for(Device device);

// The hooks of geblas::cuda::StreamGuard (src/core/stream.cpp), defined by src/cuda or
// src/cuda_off: the device's own stream (as void*; set up on first use), and the same
// after checking that `stream` is a stream of device `ordinal` (InvalidValue otherwise).
// cuda_stream_wait (geblas/detail/stream_state.hpp) orders a guard's stream with the one
// it replaces.
void* cuda_own_stream(int ordinal);
void* cuda_check_stream(int ordinal, void* stream);

// Calls through an entry, or throws NotImplemented("<op> on <device>").
template <class Fn>
Fn required(Fn fn, const char* op, Device device) {
  if (!fn) throw NotImplemented(std::string(op) + " is not implemented on " + device.str());
  return fn;
}

}  // namespace geblas::detail
