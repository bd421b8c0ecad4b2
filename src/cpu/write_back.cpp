// The last step of every operation on the host: C<M, replace> = accum(C, T), with the
// GraphBLAS rules. For a dense C an absent entry is written as the identity the caller
// passes (dense storage has no absent entries).
#include <cstdint>
#include <vector>

#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/mask_rows.hpp"

namespace geblas::detail::cpu {
namespace {

// Calls f(accum_op_type) with the accumulator operator, or with binop::second when
// there is none (then C = T on the written entries).
template <class V, class F>
void with_accum(const Options& o, F&& f) {
  if (o.accum.empty()) f.template operator()<binop::second<V>>();
  else visit_binary_op<V>(o.accum.op, std::forward<F>(f));
}

}  // namespace

void write_dense(DenseStorage& C, const DenseProduct& P, const Options& o, const ScalarBytes& identity) {
  const DenseStorage& T = *P.T;
  const Index m = C.nrows, n = C.ncols;
  // Presence of T's entries, by row or by column.
  std::vector<std::uint8_t> col_present;
  if (P.cols_of) {
    col_present.assign(static_cast<std::size_t>(n), 0);
    const SparseStorage& B = *P.cols_of;
    for (Index k = 0; k < B.nvals; ++k) col_present[static_cast<std::size_t>(B.col_indices.as<ColIndex>()[k])] = 1;
  }
  const Index* rows_ro = P.rows_of ? P.rows_of->row_offsets.as<Index>() : nullptr;
  MaskRows mask(o.mask);
  const bool has_accum = !o.accum.empty();
  visit_type(C.type, [&]<class V>() {
    const V id = *static_cast<const V*>(identity.data());
    const auto c = dense_view<V>(C);
    const auto t = dense_view<V>(T);
    with_accum<V>(o, [&]<class Op>() {
#pragma omp parallel if (parallel_elements(m * n))
      {
        std::vector<std::uint8_t> flags(static_cast<std::size_t>(n), 1);
#pragma omp for schedule(static)
        for (Index i = 0; i < m; ++i) {
          if (!mask.empty()) mask.fill(i, flags.data(), n);
          const bool row_present = !rows_ro || rows_ro[i + 1] > rows_ro[i];
          for (Index j = 0; j < n; ++j) {
            V& cij = c(i, j);
            if (flags[static_cast<std::size_t>(j)]) {
              const bool present = row_present && (col_present.empty() || col_present[static_cast<std::size_t>(j)]);
              if (present) cij = has_accum ? Op::apply(cij, t(i, j)) : t(i, j);
              else if (!has_accum) cij = id;
            } else if (o.replace) {
              cij = id;
            }
          }
        }
      }
    });
  });
}

void write_sparse(SparseStorage& C, SparseStorage& T, const Options& o) {
  const Index m = C.nrows, n = C.ncols;
  // Without mask and accumulator the result is T itself.
  if (o.mask.empty() && o.accum.empty()) {
    C = std::move(T);
    return;
  }
  MaskRows mask(o.mask);
  const bool has_accum = !o.accum.empty();
  std::vector<std::vector<ColIndex>> rows_c(static_cast<std::size_t>(m));
  visit_type(C.type, [&]<class V>() {
    std::vector<std::vector<V>> rows_v(static_cast<std::size_t>(m));
    const CsrView<V> c = csr_view<V>(C), t = csr_view<V>(T);
    with_accum<V>(o, [&]<class Op>() {
#pragma omp parallel if (parallel_rows(m))
      {
        std::vector<std::uint8_t> flags(static_cast<std::size_t>(n), 1);
#pragma omp for schedule(dynamic, 256)
        for (Index i = 0; i < m; ++i) {
          if (!mask.empty()) mask.fill(i, flags.data(), n);
          auto& oc = rows_c[static_cast<std::size_t>(i)];
          auto& ov = rows_v[static_cast<std::size_t>(i)];
          Index pc = c.row_offsets[i], pt = t.row_offsets[i];
          const Index ec = c.row_offsets[i + 1], et = t.row_offsets[i + 1];
          // Merge the two sorted rows; z = accum(C, T) where both exist, else the one present.
          while (pc < ec || pt < et) {
            const ColIndex jc = pc < ec ? c.col_indices[pc] : ColIndex(n);
            const ColIndex jt = pt < et ? t.col_indices[pt] : ColIndex(n);
            const ColIndex j = jc < jt ? jc : jt;
            const bool in_c = jc == j, in_t = jt == j;
            const bool allowed = flags[static_cast<std::size_t>(j)] != 0;
            if (allowed) {
              // Z = accum ? C (+) T : T
              if (in_t && in_c && has_accum) {
                oc.push_back(j);
                ov.push_back(Op::apply(c.values[pc], t.values[pt]));
              } else if (in_t) {
                oc.push_back(j);
                ov.push_back(t.values[pt]);
              } else if (in_c && has_accum) {
                oc.push_back(j);
                ov.push_back(c.values[pc]);
              }
            } else if (in_c && !o.replace) {
              oc.push_back(j);
              ov.push_back(c.values[pc]);
            }
            if (in_c) ++pc;
            if (in_t) ++pt;
          }
        }
      }
    });
    SparseStorage out = make_sparse(m, n, C.type, Device::cpu());
    Index* ro = out.row_offsets.as<Index>();
    for (Index i = 0; i < m; ++i) ro[i + 1] = ro[i] + static_cast<Index>(rows_c[static_cast<std::size_t>(i)].size());
    out.nvals = ro[m];
    out.col_indices = RawBuffer(static_cast<std::size_t>(out.nvals) * sizeof(ColIndex), Device::cpu());
    out.values = RawBuffer(static_cast<std::size_t>(out.nvals) * sizeof(V), Device::cpu());
    for (Index i = 0; i < m; ++i) {
      std::copy(rows_c[static_cast<std::size_t>(i)].begin(), rows_c[static_cast<std::size_t>(i)].end(),
                out.col_indices.as<ColIndex>() + ro[i]);
      std::copy(rows_v[static_cast<std::size_t>(i)].begin(), rows_v[static_cast<std::size_t>(i)].end(),
                out.values.as<V>() + ro[i]);
    }
    C = std::move(out);
  });
}

}  // namespace geblas::detail::cpu
