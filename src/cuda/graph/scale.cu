// T = diag(row) * A * diag(col) on the GPU, over A's pattern or that of A + I: the
// degree scalings of GCN (D^-1/2 (A + I) D^-1/2) and GraphSAGE's mean (D^-1 A), built
// once so that the SpMM that uses T does the averaging. The pattern is copied (or, with
// the diagonal added, shifted: an entry moves by the diagonals inserted in the rows
// above it and in its own row before it), the values are written entry by entry.
#include <string>

#include "cuda/graph/entries.cuh"
#include "cuda/graph/graph.hpp"

namespace geblas::detail::cuda::graph {
namespace {

using ops::Ctx;

template <class V>
__device__ inline V times(V a, V b) {
  if constexpr (std::is_same_v<V, bool>) return a && b;
  else return a * b;
}

// Whether row i (sorted columns ci[b, e)) stores column i.
__device__ inline bool stores_diagonal(const ColIndex* ci, Index b, Index e, Index i) {
  return ops::search_sorted<ColIndex>(ci, b, e, static_cast<ColIndex>(i)) >= 0;
}

template <class V>
void write_values(SparseStorage& T, const SparseStorage& A, const V* row, const V* col, bool pattern_only,
                  bool unit_diagonal, const Ctx& c) {
  const Index m = A.nrows, diagonal = A.nrows < A.ncols ? A.nrows : A.ncols;
  const Index* aro = A.row_offsets.as<Index>();
  const ColIndex* aci = A.col_indices.as<ColIndex>();
  const V* av = pattern_only ? nullptr : A.values.as<V>();
  const Index* tro = T.row_offsets.as<Index>();
  ColIndex* tci = T.col_indices.as<ColIndex>();
  V* tv = T.values.as<V>();
  for_each_entry(aro, m, A.nvals, c.stream, [=] __device__(Index i, Index k) {
    const ColIndex j = aci[k];
    // Entries of T before this one: those of A, plus the diagonals inserted above row i
    // (tro[i] - aro[i]), plus row i's own when it sorts before column j.
    const bool inserted = unit_diagonal && tro[i + 1] - tro[i] != aro[i + 1] - aro[i];
    const Index p = k + (tro[i] - aro[i]) + (inserted && j > i ? 1 : 0);
    V v = av ? av[k] : V(1);
    if (row) v = times(row[i], v);
    if (col) v = times(v, col[j]);
    tci[p] = j;
    tv[p] = v;
  });
  if (!unit_diagonal) return;
  ops::for_each(diagonal, c.stream, [=] __device__(Index i) {
    if (tro[i + 1] - tro[i] == aro[i + 1] - aro[i]) return;  // A stores (i, i)
    // Position: after row i's entries with a smaller column.
    Index lo = aro[i], hi = aro[i + 1];
    while (lo < hi) {
      const Index mid = lo + (hi - lo) / 2;
      if (aci[mid] < i) lo = mid + 1;
      else hi = mid;
    }
    const Index p = tro[i] + (lo - aro[i]);
    V v = V(1);
    if (row) v = times(row[i], v);
    if (col) v = times(v, col[i]);
    tci[p] = static_cast<ColIndex>(i);
    tv[p] = v;
  });
}

}  // namespace

void scale_sparse(SparseStorage& T, const SparseStorage& A, TypeId type, const void* row, const void* col,
                  bool pattern_only, bool unit_diagonal) {
  if (!pattern_only && A.type != type)
    throw InvalidValue("scale_sparse on cuda: A holds " + std::string(to_string(A.type)) + " values but T is " +
                       std::string(to_string(type)) + " (only a pattern may change type)");
  const Ctx c(A.device);
  const Index m = A.nrows, diagonal = A.nrows < A.ncols ? A.nrows : A.ncols;
  const Index* aro = A.row_offsets.as<Index>();
  const ColIndex* aci = A.col_indices.as<ColIndex>();
  Index nvals = A.nvals;
  RawBuffer offsets(static_cast<std::size_t>(m + 1) * sizeof(Index), c.device);
  Index* tro = offsets.as<Index>();
  if (unit_diagonal) {
    // Row lengths of A + I, then their prefix sum: the one size read back.
    ops::for_each(m, c.stream, [=] __device__(Index i) {
      const bool add = i < diagonal && !stores_diagonal(aci, aro[i], aro[i + 1], i);
      tro[i] = aro[i + 1] - aro[i] + (add ? 1 : 0);
    });
    nvals = ops::counts_to_offsets(tro, m, c.stream);
  } else {
    GEBLAS_CUDA_CHECK(cudaMemcpyAsync(tro, aro, offsets.bytes(), cudaMemcpyDeviceToDevice, c.stream));
  }
  SparseStorage out;
  out.nrows = m;
  out.ncols = A.ncols;
  out.nvals = nvals;
  out.type = type;
  out.device = c.device;
  out.row_offsets = std::move(offsets);
  out.col_indices = RawBuffer(static_cast<std::size_t>(nvals) * sizeof(ColIndex), c.device);
  out.values = RawBuffer(static_cast<std::size_t>(nvals) * size_of(type), c.device);
  visit_type(type, [&]<class V>() {
    write_values<V>(out, A, static_cast<const V*>(row), static_cast<const V*>(col), pattern_only, unit_diagonal, c);
  });
  T = std::move(out);
}

}  // namespace geblas::detail::cuda::graph
