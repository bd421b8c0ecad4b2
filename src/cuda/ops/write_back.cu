// The last step of every operation on the GPU: C<M, replace> = accum(C, T) for dense,
// sparse and vector outputs, with exactly the rules of the CPU backend (see
// core/backend.hpp). Dense outputs are one pass over C; sparse outputs merge each row of
// C with the row of T (a count pass, a prefix sum, a fill pass); vectors are decided
// entry by entry on dense (value, presence) arrays and compacted when w is sparse.
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "cuda/ops/runtime_ops.cuh"

namespace geblas::detail::cuda::ops {
namespace {

template <class V>
void write_dense_typed(DenseStorage& C, const DenseStorage& T, const Index* rows_ro, const std::uint8_t* col_present,
                       const MaskView mask, BinaryOpId accum, bool replace, const ScalarBytes& identity,
                       cudaStream_t s) {
  const V id = *static_cast<const V*>(identity.data());
  const DenseView<V> c = dense_view<V>(C);
  const DenseView<V> t = dense_view<V>(T);
  const Index n = C.ncols;
  const bool has_accum = accum != BinaryOpId::none;
  for_each(C.nrows * n, s, [=] __device__(Index idx) {
    const Index i = idx / n, j = idx % n;
    V& cij = c(i, j);
    if (mask.allows(i, j)) {
      const bool present = (!rows_ro || rows_ro[i + 1] > rows_ro[i]) && (!col_present || col_present[j]);
      if (present) cij = has_accum ? binop_apply<V>(accum, cij, t(i, j)) : t(i, j);
      else if (!has_accum) cij = id;
    } else if (replace) {
      cij = id;
    }
  });
}

// The rows of Z = C<M, replace> accum T (sparse_from_rows): row i of C merged with row i
// of T in column order.
template <class V>
struct MergeRows {
  Index n;
  CsrView<V> c, t;
  MaskView mask;
  BinaryOpId accum;
  bool replace;

  template <class Emit>
  __device__ void operator()(Index i, Emit&& emit) const {
    const bool has_accum = accum != BinaryOpId::none;
    Index pc = c.row_offsets[i], pt = t.row_offsets[i];
    const Index ec = c.row_offsets[i + 1], et = t.row_offsets[i + 1];
    while (pc < ec || pt < et) {
      const Index jc = pc < ec ? c.col_indices[pc] : n;
      const Index jt = pt < et ? t.col_indices[pt] : n;
      const Index j = jc < jt ? jc : jt;
      const bool in_c = jc == j, in_t = jt == j;
      if (mask.allows(i, j)) {
        if (in_t && in_c && has_accum) emit(j, binop_apply<V>(accum, c.values[pc], t.values[pt]));
        else if (in_t) emit(j, t.values[pt]);
        else if (in_c && has_accum) emit(j, c.values[pc]);
      } else if (in_c && !replace) {
        emit(j, c.values[pc]);
      }
      if (in_c) ++pc;
      if (in_t) ++pt;
    }
  }
};

template <class V>
void write_sparse_typed(SparseStorage& C, const SparseStorage& T, const MaskView mask, BinaryOpId accum,
                        bool replace, const Ctx& c) {
  C = sparse_from_rows<V>(C.nrows, C.ncols, C.type, c,
                          MergeRows<V>{C.ncols, csr_view<V>(C), csr_view<V>(T), mask, accum, replace});
}

// Decides every entry of w from (w, t): out_values / out_present get the result.
template <class V>
void write_vector_typed(const DenseVec& w, const DenseVec& t, void* out_values, std::uint8_t* out_present, Index n,
                        const MaskView mask, BinaryOpId accum, bool replace, bool w_dense,
                        const ScalarBytes& identity, cudaStream_t s) {
  const V id = *static_cast<const V*>(identity.data());
  const V* wv = static_cast<const V*>(w.values);
  const std::uint8_t* wp = w.present;
  const V* tv = static_cast<const V*>(t.values);
  const std::uint8_t* tp = t.present;
  V* ov = static_cast<V*>(out_values);
  const bool has_accum = accum != BinaryOpId::none;
  for_each(n, s, [=] __device__(Index i) {
    const bool in_w = !wp || wp[i];
    const bool in_t = !tp || tp[i];
    const V old = in_w ? wv[i] : V{};
    bool present = false;
    V x{};
    if (w_dense) {
      // dense w: every entry stays present; absent results become the identity
      present = true;
      if (mask.allows(i, 0)) {
        if (in_t) x = has_accum ? binop_apply<V>(accum, old, tv[i]) : tv[i];
        else x = has_accum ? old : id;
      } else {
        x = replace ? id : old;
      }
    } else if (mask.allows(i, 0)) {
      if (in_t && in_w && has_accum) { present = true; x = binop_apply<V>(accum, old, tv[i]); }
      else if (in_t) { present = true; x = tv[i]; }
      else if (in_w && has_accum) { present = true; x = old; }
    } else if (in_w && !replace) {
      present = true;
      x = old;
    }
    if (present) ov[i] = x;
    if (out_present) out_present[i] = present;
  });
}

}  // namespace

void write_dense(DenseStorage& C, const DenseProduct& P, const Options& o, const ScalarBytes& identity) {
  if (C.nrows == 0 || C.ncols == 0) return;
  Ctx c(C.device);
  RawBuffer col_present_buf;
  const std::uint8_t* col_present = nullptr;
  if (P.cols_of) {
    col_present_buf = temp<std::uint8_t>(C.ncols, c.device);
    auto* cp = col_present_buf.as<std::uint8_t>();
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(cp, 0, col_present_buf.bytes(), c.stream));
    const ColIndex* ci = P.cols_of->col_indices.as<ColIndex>();
    for_each(P.cols_of->nvals, c.stream, [=] __device__(Index k) { cp[ci[k]] = 1; });
    col_present = cp;
  }
  const Index* rows_ro = P.rows_of ? P.rows_of->row_offsets.as<Index>() : nullptr;
  const MaskView mask = mask_view(o.mask);
  visit_type(C.type, [&]<class V>() {
    write_dense_typed<V>(C, *P.T, rows_ro, col_present, mask, o.accum.op, o.replace, identity, c.stream);
  });
}

void write_sparse(SparseStorage& C, SparseStorage& T, const Options& o) {
  if (o.mask.empty() && o.accum.empty()) {
    C = std::move(T);
    return;
  }
  Ctx c(C.device);
  const MaskView mask = mask_view(o.mask);
  visit_type(C.type, [&]<class V>() { write_sparse_typed<V>(C, T, mask, o.accum.op, o.replace, c); });
}

void write_vector(VectorStorage& w, VectorResult& t, const Options& o, const ScalarBytes& identity) {
  const Index n = w.size;
  const bool no_mask_no_accum = o.mask.empty() && o.accum.empty();
  // Without mask and accumulator the result is t itself, when its form matches w's.
  if (no_mask_no_accum && !w.dense && !t.t.dense) {
    VectorStorage out = std::move(t.t);
    out.size = n;
    w = std::move(out);
    return;
  }
  if (no_mask_no_accum && w.dense && t.t.dense && t.present.bytes() == 0) {
    w.values = std::move(t.t.values);
    w.nvals = n;
    return;
  }
  Ctx c(w.device);
  const MaskView mask = mask_view(o.mask);
  DenseVec wd = densify(w, c);
  DenseVec td = densify(t, c);
  if (w.dense) {
    // in place: each entry reads and writes only itself
    visit_type(w.type, [&]<class V>() {
      write_vector_typed<V>(wd, td, w.values.data(), nullptr, n, mask, o.accum.op, o.replace, true, identity,
                            c.stream);
    });
    return;
  }
  RawBuffer vals = temp_bytes(n, size_of(w.type), c.device);
  RawBuffer present = temp<std::uint8_t>(n, c.device);
  visit_type(w.type, [&]<class V>() {
    write_vector_typed<V>(wd, td, vals.data(), present.as<std::uint8_t>(), n, mask, o.accum.op, o.replace, false,
                          identity, c.stream);
  });
  w = compact_vector(n, vals.data(), present.as<std::uint8_t>(), w.type, c);
}

}  // namespace geblas::detail::cuda::ops
