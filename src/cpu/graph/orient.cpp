// The degree orientation of a symmetric pattern on the CPU (triangle counting's
// "sorted by degree" step, as in Schank & Wagner's forward algorithm): each edge is kept
// once, in the row of its lower-ranked end, ranks ordered by (degree, id).
#include <cstring>

#include "cpu/graph/graph.hpp"
#include "cpu/parallel.hpp"

namespace geblas::detail::cpu::graph {

void orient_by_degree(SparseStorage& L, const SparseStorage& S) {
  const Index n = S.nrows;
  const Index* sro = S.row_offsets.as<Index>();
  const ColIndex* sci = S.col_indices.as<ColIndex>();
  const std::size_t width = size_of(S.type);
  const auto* sv = static_cast<const unsigned char*>(S.values.data());
  auto below = [&](Index i, Index j) {  // (deg i, i) < (deg j, j)
    const Index di = sro[i + 1] - sro[i], dj = sro[j + 1] - sro[j];
    return di < dj || (di == dj && i < j);
  };
  const bool parallel = parallel_rows(n);
  RawBuffer ro_buf(static_cast<std::size_t>(n + 1) * sizeof(Index), Device::cpu());
  Index* lro = ro_buf.as<Index>();
  lro[0] = 0;
#pragma omp parallel for schedule(dynamic, 256) if (parallel)
  for (Index i = 0; i < n; ++i) {
    Index kept = 0;
    for (Index k = sro[i]; k < sro[i + 1]; ++k) kept += below(i, sci[k]) ? 1 : 0;
    lro[i + 1] = kept;
  }
  for (Index i = 0; i < n; ++i) lro[i + 1] += lro[i];
  SparseStorage out;
  out.nrows = n;
  out.ncols = S.ncols;
  out.nvals = lro[n];
  out.type = S.type;
  out.device = Device::cpu();
  out.row_offsets = std::move(ro_buf);
  out.col_indices = RawBuffer(static_cast<std::size_t>(out.nvals) * sizeof(ColIndex), Device::cpu());
  out.values = RawBuffer(static_cast<std::size_t>(out.nvals) * width, Device::cpu());
  ColIndex* lci = out.col_indices.as<ColIndex>();
  auto* lv = static_cast<unsigned char*>(out.values.data());
#pragma omp parallel for schedule(dynamic, 256) if (parallel)
  for (Index i = 0; i < n; ++i) {
    Index p = lro[i];
    for (Index k = sro[i]; k < sro[i + 1]; ++k)
      if (below(i, sci[k])) {
        lci[p] = sci[k];
        std::memcpy(lv + p * width, sv + k * width, width);
        ++p;
      }
  }
  L = std::move(out);
}

}  // namespace geblas::detail::cpu::graph
