// assign's region step on the GPU: Z = C outside the region rows x cols, and on it S
// (= A, or the scalar everywhere), combined with C by the accumulator where both hold
// an entry. Every output entry is found independently: the entries of C outside the
// region (or, with an accumulator, inside it without an S entry) are kept; every S entry
// is placed at (rows[a], cols[b]), looking its C partner up by binary search. The
// entries are then put in order by the key sort of csr_from_keys. Vectors are the same
// on dense (value, presence) arrays.
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "cuda/ops/runtime_ops.cuh"

namespace geblas::detail::cuda::ops {
namespace {

// pos[x] = a where list[a] == x, else -1; `all` maps x to itself.
RawBuffer inverse_positions(const IndexArray& list, Index n, const Ctx& c) {
  RawBuffer buf = temp<Index>(n, c.device);
  Index* pos = buf.as<Index>();
  if (list.all) {
    for_each(n, c.stream, [=] __device__(Index x) { pos[x] = x; });
  } else {
    if (n > 0) GEBLAS_CUDA_CHECK(cudaMemsetAsync(pos, 0xff, static_cast<std::size_t>(n) * sizeof(Index), c.stream));
    const Index* l = list.data;
    for_each(list.count, c.stream, [=] __device__(Index a) { pos[l[a]] = a; });
  }
  return buf;
}

template <class V>
void assign_sparse_typed(SparseStorage& Z, const SparseStorage& C, const SparseStorage* A, const ScalarBytes& scalar,
                         const IndexArray& rows, const IndexArray& cols, BinaryOpId accum, const Ctx& c) {
  const cudaStream_t s = c.stream;
  const Index m = C.nrows, n = C.ncols;
  const Index R = rows.all ? m : rows.count, NC = cols.all ? n : cols.count;
  RawBuffer rowpos_buf = inverse_positions(rows, m, c), colpos_buf = inverse_positions(cols, n, c);
  const Index* rowpos = rowpos_buf.as<Index>();
  const Index* colpos = colpos_buf.as<Index>();
  const Index* rl = rows.all ? nullptr : rows.data;
  const Index* cl = cols.all ? nullptr : cols.data;
  const bool has_accum = accum != BinaryOpId::none;
  const V sv = *static_cast<const V*>(scalar.data());

  const Index* cro = C.row_offsets.as<Index>();
  const ColIndex* cci = C.col_indices.as<ColIndex>();
  const V* cv = C.values.as<V>();
  const Index* aro = A ? A->row_offsets.as<Index>() : nullptr;
  const ColIndex* aci = A ? A->col_indices.as<ColIndex>() : nullptr;
  const V* av = A ? A->values.as<V>() : nullptr;
  const Index KC = C.nvals;
  const Index KS = A ? A->nvals : R * NC;

  // which entries of C survive
  const KeptPlaces kept = kept_places(KC, c, [=] __device__(Index p) {
    const Index i = row_of_entry(cro, m, p);
    const Index a = rowpos[i], b = colpos[cci[p]];
    if (a < 0 || b < 0) return true;  // outside the region
    if (!has_accum) return false;
    if (!aro) return false;  // the scalar covers the whole region: the S side emits it
    return search_sorted<ColIndex>(aci, aro[a], aro[a + 1], static_cast<ColIndex>(b)) < 0;
  });
  const Index* keep = kept.pos();
  KeyedEntries<V> entries(m, n, kept.count + KS, c.device);
  const KeyedEntryView<V> from_c = entries.view();
  for_each(KC, s, [=] __device__(Index p) {
    if (keep[p + 1] != keep[p]) from_c.put(keep[p], row_of_entry(cro, m, p), cci[p], cv[p]);
  });
  // the S entries, after the kept C entries
  const KeyedEntryView<V> from_s = entries.view(kept.count);
  for_each(KS, s, [=] __device__(Index q) {
    Index a, b;
    V x;
    if (aro) {
      a = row_of_entry(aro, R, q);
      b = aci[q];
      x = av[q];
    } else {
      a = q / NC;
      b = q % NC;
      x = sv;
    }
    const Index i = rl ? rl[a] : a, j = cl ? cl[b] : b;
    if (has_accum) {
      const Index pc = search_sorted<ColIndex>(cci, cro[i], cro[i + 1], static_cast<ColIndex>(j));
      if (pc >= 0) x = binop_apply<V>(accum, cv[pc], x);
    }
    from_s.put(q, i, j, x);
  });
  Z = entries.to_csr(C.type, c);
}

template <class V>
void assign_vector_typed(V* zv, std::uint8_t* zp, const DenseVec& w, const DenseVec* u, const ScalarBytes& scalar,
                         const IndexArray& idx, Index n, BinaryOpId accum, cudaStream_t s) {
  const V* wv = static_cast<const V*>(w.values);
  const std::uint8_t* wp = w.present;
  for_each(n, s, [=] __device__(Index i) {
    const bool in = !wp || wp[i];
    zp[i] = in;
    if (in) zv[i] = wv[i];
  });
  const Index count = idx.all ? n : idx.count;
  const Index* list = idx.all ? nullptr : idx.data;
  const V* uv = u ? static_cast<const V*>(u->values) : nullptr;
  const std::uint8_t* up = u ? u->present : nullptr;
  const V sv = *static_cast<const V*>(scalar.data());
  const bool has_accum = accum != BinaryOpId::none;
  for_each(count, s, [=] __device__(Index a) {
    const Index i = list ? list[a] : a;
    const bool in_s = !uv || !up || up[a];
    const V x = uv ? (in_s ? uv[a] : V{}) : sv;
    if (!has_accum) {
      zp[i] = in_s;
      if (in_s) zv[i] = x;
    } else if (in_s) {
      zv[i] = zp[i] ? binop_apply<V>(accum, zv[i], x) : x;
      zp[i] = 1;
    }
  });
}

}  // namespace

void assign_sparse(SparseStorage& Z, const SparseStorage& C, const SparseStorage* A, const ScalarBytes& scalar,
                   const IndexArray& rows, const IndexArray& cols, BinaryOpId accum) {
  Ctx c(C.device);
  visit_type(C.type, [&]<class V>() { assign_sparse_typed<V>(Z, C, A, scalar, rows, cols, accum, c); });
}

void assign_vector(VectorResult& Z, const VectorStorage& w, const VectorStorage* u, const ScalarBytes& scalar,
                   const IndexArray& indices, BinaryOpId accum) {
  Ctx c(w.device);
  const Index n = w.size;
  DenseVec wd = densify(w, c);
  DenseVec ud;
  if (u) ud = densify(*u, c);
  VectorResult r = dense_result(n, w.type, true, c);
  visit_type(w.type, [&]<class V>() {
    assign_vector_typed<V>(r.t.values.as<V>(), r.present.as<std::uint8_t>(), wd, u ? &ud : nullptr, scalar, indices,
                           n, accum, c.stream);
  });
  Z = std::move(r);
}

}  // namespace geblas::detail::cuda::ops
