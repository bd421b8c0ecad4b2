// T = diag(row) * A * diag(col) on the CPU, over A's pattern or that of A + I: the
// degree scalings of GCN (D^-1/2 (A + I) D^-1/2) and GraphSAGE's mean (D^-1 A), built
// in one pass over the entries so that the product that uses T does the averaging.
#include <algorithm>
#include <cstring>
#include <string>

#include "cpu/graph/graph.hpp"
#include "cpu/parallel.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu::graph {
namespace {

// Whether row i (sorted columns [b, e)) stores column i.
bool has_diagonal(const ColIndex* ci, Index b, Index e, Index i) {
  return std::binary_search(ci + b, ci + e, static_cast<ColIndex>(i));
}

template <class V>
V times(V a, V b) {
  if constexpr (std::is_same_v<V, bool>) return a && b;
  else return a * b;
}

}  // namespace

void scale_sparse(SparseStorage& T, const SparseStorage& A, TypeId type, const void* row, const void* col,
                  bool pattern_only, bool unit_diagonal) {
  if (!pattern_only && A.type != type)
    throw InvalidValue("scale_sparse on cpu: A holds " + std::string(to_string(A.type)) + " values but T is " +
                       std::string(to_string(type)) + " (only a pattern may change type)");
  const Index m = A.nrows, n = A.ncols;
  const Index* aro = A.row_offsets.as<Index>();
  const ColIndex* aci = A.col_indices.as<ColIndex>();
  const Index diagonal = std::min(m, n);
  const bool parallel = parallel_rows(m);
  // Row offsets of T: A's, plus one in every row that gains its diagonal entry.
  RawBuffer ro_buf(static_cast<std::size_t>(m + 1) * sizeof(Index), Device::cpu());
  Index* tro = ro_buf.as<Index>();
  tro[0] = 0;
#pragma omp parallel for schedule(static) if (parallel)
  for (Index i = 0; i < m; ++i)
    tro[i + 1] = aro[i + 1] - aro[i] +
                 ((unit_diagonal && i < diagonal && !has_diagonal(aci, aro[i], aro[i + 1], i)) ? 1 : 0);
  for (Index i = 0; i < m; ++i) tro[i + 1] += tro[i];
  const Index nvals = tro[m];
  SparseStorage out;
  out.nrows = m;
  out.ncols = n;
  out.nvals = nvals;
  out.type = type;
  out.device = Device::cpu();
  out.row_offsets = std::move(ro_buf);
  out.col_indices = RawBuffer(static_cast<std::size_t>(nvals) * sizeof(ColIndex), Device::cpu());
  out.values = RawBuffer(static_cast<std::size_t>(nvals) * size_of(type), Device::cpu());
  ColIndex* tci = out.col_indices.as<ColIndex>();
  visit_type(type, [&]<class V>() {
    const V* av = pattern_only ? nullptr : A.values.as<V>();
    const V* r = static_cast<const V*>(row);
    const V* c = static_cast<const V*>(col);
    V* tv = out.values.as<V>();
    auto value = [&](Index i, Index j, V a) {
      if (r) a = times(r[i], a);
      if (c) a = times(a, c[j]);
      return a;
    };
#pragma omp parallel for schedule(static) if (parallel)
    for (Index i = 0; i < m; ++i) {
      Index p = tro[i];
      const bool insert = tro[i + 1] - tro[i] != aro[i + 1] - aro[i];
      bool inserted = false;
      for (Index k = aro[i]; k < aro[i + 1]; ++k) {
        if (insert && !inserted && aci[k] > i) {
          tci[p] = static_cast<ColIndex>(i);
          tv[p++] = value(i, i, V(1));
          inserted = true;
        }
        tci[p] = aci[k];
        tv[p++] = value(i, aci[k], av ? av[k] : V(1));
      }
      if (insert && !inserted) {
        tci[p] = static_cast<ColIndex>(i);
        tv[p] = value(i, i, V(1));
      }
    }
  });
  T = std::move(out);
}

}  // namespace geblas::detail::cpu::graph
