// assign's region step on the host (see assign_sparse / assign_vector in
// core/backend.hpp): Z = C outside rows x cols, and accum(C, S) or S alone inside it.
// Index lists are unique, so each row / column of C maps to at most one position of
// the list, stored in an inverse table.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "cpu/csr_builder.hpp"
#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/vector_bitmap.hpp"

namespace geblas::detail::cpu {
namespace {

// position[i] = a where list[a] == i, or -1; for `all`, the identity.
std::vector<Index> inverse_of(const IndexArray& list, Index n) {
  std::vector<Index> position(static_cast<std::size_t>(n), -1);
  for (Index a = 0; a < list.count; ++a) position[static_cast<std::size_t>(list.all ? a : list.data[a])] = a;
  return position;
}

}  // namespace

void assign_sparse(SparseStorage& Z, const SparseStorage& C, const SparseStorage* A, const ScalarBytes& scalar,
                   const IndexArray& rows, const IndexArray& cols, BinaryOpId accum) {
  const std::vector<Index> row_pos = inverse_of(rows, C.nrows);
  const std::vector<Index> col_pos = inverse_of(cols, C.ncols);
  const Index* cr = C.row_offsets.as<Index>();
  const ColIndex* cc = C.col_indices.as<ColIndex>();
  const Index* ar = A ? A->row_offsets.as<Index>() : nullptr;
  const ColIndex* ac = A ? A->col_indices.as<ColIndex>() : nullptr;
  const bool has_accum = accum != BinaryOpId::none;
  visit_type(C.type, [&]<class V>() {
    const V* cv = C.values.as<V>();
    const V* av = A ? A->values.as<V>() : nullptr;
    const V s = *static_cast<const V*>(scalar.data());
    with_accum_op<V>(accum, [&]<class Op>() {
      // Row i of Z as (column, value) pairs, sorted by column.
      auto row_of_z = [&](Index i, std::vector<std::pair<ColIndex, V>>& out) {
        out.clear();
        const Index a = row_pos[static_cast<std::size_t>(i)];
        if (a < 0) {
          for (Index q = cr[i]; q < cr[i + 1]; ++q) out.emplace_back(cc[q], cv[q]);
          return;
        }
        // C's entries outside the region stay; inside it they meet S's.
        std::vector<std::pair<ColIndex, V>> region;
        for (Index q = cr[i]; q < cr[i + 1]; ++q) {
          if (col_pos[static_cast<std::size_t>(cc[q])] < 0) out.emplace_back(cc[q], cv[q]);
          else if (has_accum) region.emplace_back(cc[q], cv[q]);
        }
        std::vector<std::pair<ColIndex, V>> from_s;
        if (A) {
          for (Index q = ar[a]; q < ar[a + 1]; ++q)
            from_s.emplace_back(static_cast<ColIndex>(cols.all ? ac[q] : cols.data[ac[q]]), av[q]);
        } else {
          for (Index b = 0; b < cols.count; ++b) from_s.emplace_back(static_cast<ColIndex>(cols.all ? b : cols.data[b]), s);
        }
        std::sort(from_s.begin(), from_s.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        // Merge C's region entries (only kept with an accumulator) with S's.
        std::size_t p = 0, q = 0;
        while (p < region.size() || q < from_s.size()) {
          if (q == from_s.size() || (p < region.size() && region[p].first < from_s[q].first)) {
            out.push_back(region[p++]);
          } else if (p == region.size() || from_s[q].first < region[p].first) {
            out.push_back(from_s[q++]);
          } else {
            out.emplace_back(region[p].first, Op::apply(region[p].second, from_s[q].second));
            ++p;
            ++q;
          }
        }
        std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      };
      Z = build_csr_rows<V>(
          C.nrows, C.ncols, C.type,
          [&](Index i) {
            thread_local std::vector<std::pair<ColIndex, V>> buf;
            row_of_z(i, buf);
            return static_cast<Index>(buf.size());
          },
          [&](Index i, ColIndex* out_c, V* out_v) {
            thread_local std::vector<std::pair<ColIndex, V>> buf;
            row_of_z(i, buf);
            for (std::size_t k = 0; k < buf.size(); ++k) {
              out_c[k] = buf[k].first;
              out_v[k] = buf[k].second;
            }
          });
    });
  });
}

void assign_vector(VectorResult& Z, const VectorStorage& w, const VectorStorage* u, const ScalarBytes& scalar,
                   const IndexArray& indices, BinaryOpId accum) {
  const Index n = w.size;
  const bool has_accum = accum != BinaryOpId::none;
  visit_type(w.type, [&]<class V>() {
    const BitmapRead<V> wb(w);
    Z = make_bitmap_result(n, w.type);
    V* zv = Z.t.values.as<V>();
    std::uint8_t* zp = Z.present.as<std::uint8_t>();
#pragma omp parallel for schedule(static) if (parallel_elements(n))
    for (Index i = 0; i < n; ++i) {
      zp[i] = wb.has(i);
      if (zp[i]) zv[i] = wb.value(i);
    }
    const V s = *static_cast<const V*>(scalar.data());
    std::optional<BitmapRead<V>> ub;
    if (u) ub.emplace(*u);
    with_accum_op<V>(accum, [&]<class Op>() {
#pragma omp parallel for schedule(static) if (parallel_elements(indices.count))
      for (Index a = 0; a < indices.count; ++a) {
        const Index i = indices.all ? a : indices.data[a];
        const bool in_s = !ub || ub->has(a);
        const V x = ub ? (in_s ? ub->value(a) : V{}) : s;
        if (in_s && zp[i] && has_accum) zv[i] = Op::apply(zv[i], x);
        else if (in_s) { zv[i] = x; zp[i] = 1; }
        else if (!has_accum) zp[i] = 0;
      }
    });
  });
}

}  // namespace geblas::detail::cpu
