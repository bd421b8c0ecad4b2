// extract on the GPU. T = A(rows, cols): the column list is inverted into, for every
// column j of A, the positions b with cols[b] == j (counted, prefix-summed, filled);
// each output row a then emits (a, b, A(rows[a], j)) for its entries, and the entries
// are put in row / column order by the key sort of csr_from_keys (lists may repeat and
// be unsorted). With cols = all the rows are copied directly, already sorted.
// t = u(indices) reads a dense (value, presence) form of u.
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"

namespace geblas::detail::cuda::ops {
namespace {

template <class V>
void extract_sparse_typed(SparseStorage& T, const SparseStorage& A, const IndexArray& rows, const IndexArray& cols,
                          const Ctx& c) {
  const cudaStream_t s = c.stream;
  const Index R = rows.all ? A.nrows : rows.count;
  const Index NC = cols.all ? A.ncols : cols.count;
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  const V* av = A.values.as<V>();
  const Index* rlist = rows.all ? nullptr : rows.data;
  const Index* clist = cols.all ? nullptr : cols.data;

  // cmap: for column j of A, the b with cols[b] == j, at cmap_list[cmap_off[j] .. cmap_off[j+1]).
  // Chosen by the `all` flag, not by clist: an empty list has no data (a null pointer) and
  // selects no column, where `all` selects every one.
  RawBuffer cmap_off_buf, cmap_list_buf, cursor_buf;
  const Index* cmap_off = nullptr;
  const Index* cmap_list = nullptr;
  if (!cols.all) {
    const Index ncA = A.ncols;
    cmap_off_buf = temp<Index>(ncA + 1, c.device);
    Index* off = cmap_off_buf.as<Index>();
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(off, 0, static_cast<std::size_t>(ncA + 1) * sizeof(Index), s));
    for_each(NC, s, [=] __device__(Index b) {
      atomicAdd(reinterpret_cast<unsigned long long*>(off + clist[b]), 1ull);
    });
    counts_to_offsets(off, ncA, s);
    cursor_buf = temp<Index>(ncA, c.device);
    Index* cur = cursor_buf.as<Index>();
    GEBLAS_CUDA_CHECK(cudaMemcpyAsync(cur, off, static_cast<std::size_t>(ncA) * sizeof(Index),
                                      cudaMemcpyDeviceToDevice, s));
    cmap_list_buf = temp<Index>(NC, c.device);
    Index* list = cmap_list_buf.as<Index>();
    for_each(NC, s, [=] __device__(Index b) {
      const auto slot = atomicAdd(reinterpret_cast<unsigned long long*>(cur + clist[b]), 1ull);
      list[slot] = b;
    });
    cmap_off = off;
    cmap_list = list;
  }

  // entries per output row
  RawBuffer counts_buf = temp<Index>(R + 1, c.device);
  Index* counts = counts_buf.as<Index>();
  const bool every_column = cols.all;
  for_each(R, s, [=] __device__(Index a) {
    const Index i = rlist ? rlist[a] : a;
    Index k = 0;
    if (every_column) k = ro[i + 1] - ro[i];
    else
      for (Index p = ro[i]; p < ro[i + 1]; ++p) k += cmap_off[ci[p] + 1] - cmap_off[ci[p]];
    counts[a] = k;
  });
  const Index K = counts_to_offsets(counts, R, s);

  if (cols.all) {  // every column, in order: rows copied as they are
    SparseStorage out = new_sparse(R, NC, K, A.type, c.device);
    GEBLAS_CUDA_CHECK(cudaMemcpyAsync(out.row_offsets.data(), counts, static_cast<std::size_t>(R + 1) * sizeof(Index),
                                      cudaMemcpyDeviceToDevice, s));
    ColIndex* oci = out.col_indices.as<ColIndex>();
    V* ov = out.values.as<V>();
    for_each(R, s, [=] __device__(Index a) {
      const Index i = rlist ? rlist[a] : a;
      Index q = counts[a];
      for (Index p = ro[i]; p < ro[i + 1]; ++p, ++q) {
        oci[q] = ci[p];
        ov[q] = av[p];
      }
    });
    T = std::move(out);
    return;
  }
  KeyedEntries<V> entries(R, NC, K, c.device);
  const KeyedEntryView<V> out = entries.view();
  for_each(R, s, [=] __device__(Index a) {
    const Index i = rlist ? rlist[a] : a;
    Index q = counts[a];
    for (Index p = ro[i]; p < ro[i + 1]; ++p)
      for (Index e = cmap_off[ci[p]]; e < cmap_off[ci[p] + 1]; ++e, ++q) out.put(q, a, cmap_list[e], av[p]);
  });
  T = entries.to_csr(A.type, c);
}

template <class V>
void extract_vector_typed(V* out, const DenseVec& u, std::uint8_t* present, const IndexArray& idx, Index n,
                          cudaStream_t s) {
  const V* uv = static_cast<const V*>(u.values);
  const std::uint8_t* up = u.present;
  const Index* list = idx.all ? nullptr : idx.data;
  for_each(n, s, [=] __device__(Index a) {
    const Index i = list ? list[a] : a;
    const bool in = !up || up[i];
    if (in) out[a] = uv[i];
    if (present) present[a] = in;
  });
}

}  // namespace

void extract_sparse(SparseStorage& T, const SparseStorage& A, const IndexArray& rows, const IndexArray& cols) {
  Ctx c(A.device);
  visit_type(A.type, [&]<class V>() { extract_sparse_typed<V>(T, A, rows, cols, c); });
}

void extract_vector(VectorResult& t, const VectorStorage& u, const IndexArray& indices) {
  Ctx c(u.device);
  const Index n = indices.all ? u.size : indices.count;
  DenseVec ud = densify(u, c);
  VectorResult r = dense_result(n, u.type, !u.dense, c);
  visit_type(u.type, [&]<class V>() {
    extract_vector_typed<V>(r.t.values.as<V>(), ud, u.dense ? nullptr : r.present.as<std::uint8_t>(), indices, n,
                            c.stream);
  });
  t = std::move(r);
}

}  // namespace geblas::detail::cuda::ops
