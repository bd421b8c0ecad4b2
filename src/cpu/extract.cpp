// extract on the host: T = A(rows, cols) and t = u(indices). Column lists may repeat
// and be unsorted, so each column of A maps to the (sorted) list of output columns it
// feeds, a small CSR of its own; a row of T is then gathered and, only when the column
// list is not increasing, sorted.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "cpu/csr_builder.hpp"
#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/vector_bitmap.hpp"

namespace geblas::detail::cpu {

void extract_sparse(SparseStorage& T, const SparseStorage& A, const IndexArray& rows, const IndexArray& cols) {
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  const Index nc = A.ncols;
  // feeds[feeds_at[j] .. feeds_at[j + 1]) are the output columns b with cols[b] == j.
  std::vector<Index> feeds_at, feeds;
  bool increasing = true;
  if (!cols.all) {
    feeds_at.assign(static_cast<std::size_t>(nc + 1), 0);
    for (Index b = 0; b < cols.count; ++b) ++feeds_at[static_cast<std::size_t>(cols.data[b] + 1)];
    std::partial_sum(feeds_at.begin(), feeds_at.end(), feeds_at.begin());
    feeds.resize(static_cast<std::size_t>(cols.count));
    std::vector<Index> next(feeds_at.begin(), feeds_at.end() - 1);
    for (Index b = 0; b < cols.count; ++b) {
      feeds[static_cast<std::size_t>(next[static_cast<std::size_t>(cols.data[b])]++)] = b;
      if (b > 0 && cols.data[b] <= cols.data[b - 1]) increasing = false;
    }
  }
  const Index out_rows = rows.count, out_cols = cols.count;
  auto source_row = [&](Index a) { return rows.all ? a : rows.data[a]; };
  visit_type(A.type, [&]<class V>() {
    const V* av = A.values.as<V>();
    T = build_csr_rows<V>(
        out_rows, out_cols, A.type,
        [&](Index a) {
          const Index r = source_row(a);
          if (cols.all) return ro[r + 1] - ro[r];
          Index c = 0;
          for (Index q = ro[r]; q < ro[r + 1]; ++q)
            c += feeds_at[static_cast<std::size_t>(ci[q]) + 1] - feeds_at[static_cast<std::size_t>(ci[q])];
          return c;
        },
        [&](Index a, ColIndex* out_c, V* out_v) {
          const Index r = source_row(a);
          if (cols.all) {
            std::copy(ci + ro[r], ci + ro[r + 1], out_c);
            std::copy(av + ro[r], av + ro[r + 1], out_v);
            return;
          }
          Index c = 0;
          for (Index q = ro[r]; q < ro[r + 1]; ++q) {
            const auto j = static_cast<std::size_t>(ci[q]);
            for (Index f = feeds_at[j]; f < feeds_at[j + 1]; ++f) {
              out_c[c] = static_cast<ColIndex>(feeds[static_cast<std::size_t>(f)]);
              out_v[c++] = av[q];
            }
          }
          if (!increasing) {
            std::vector<std::pair<ColIndex, V>> row(static_cast<std::size_t>(c));
            for (Index k = 0; k < c; ++k) row[static_cast<std::size_t>(k)] = {out_c[k], out_v[k]};
            std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
            for (Index k = 0; k < c; ++k) {
              out_c[k] = row[static_cast<std::size_t>(k)].first;
              out_v[k] = row[static_cast<std::size_t>(k)].second;
            }
          }
        });
  });
}

void extract_vector(VectorResult& t, const VectorStorage& u, const IndexArray& indices) {
  const Index n = indices.count;
  visit_type(u.type, [&]<class V>() {
    const BitmapRead<V> ub(u);
    t = make_bitmap_result(n, u.type);
    V* tv = t.t.values.as<V>();
    std::uint8_t* tp = t.present.as<std::uint8_t>();
#pragma omp parallel for schedule(static) if (parallel_elements(n))
    for (Index a = 0; a < n; ++a) {
      const Index i = indices.all ? a : indices.data[a];
      if (ub.has(i)) {
        tv[a] = ub.value(i);
        tp[a] = 1;
      }
    }
  });
}

}  // namespace geblas::detail::cpu
