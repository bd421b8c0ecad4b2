// The last step of every operation on the host: C<M, replace> = accum(C, T), with the
// GraphBLAS rules. For a dense C an absent entry is written as the identity the caller
// passes (dense storage has no absent entries).
#include <cstdint>
#include <span>
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

namespace {

// Which columns of one row a mask allows, asked in increasing column order: a sparse
// mask's row is walked alongside the caller's columns (its length, not ncols, per row);
// other masks are expanded into flags.
class RowPermits {
 public:
  RowPermits(const MaskRows& mask, const Mask& m, Index ncols)
      : mask_(mask), sparse_(m.kind() == Mask::Kind::sparse), complement_(m.complemented()), ncols_(ncols) {}
  void start(Index i) {
    if (mask_.empty()) return;
    if (sparse_) {
      row_ = mask_.listed(i, buf_);
      at_ = 0;
    } else {
      if (flags_.empty()) flags_.resize(static_cast<std::size_t>(ncols_));
      mask_.fill(i, flags_.data(), ncols_);
    }
  }
  bool allows(ColIndex j) {
    if (mask_.empty()) return true;
    if (!sparse_) return flags_[static_cast<std::size_t>(j)] != 0;
    while (at_ < row_.size() && row_[at_] < j) ++at_;
    return (at_ < row_.size() && row_[at_] == j) != complement_;
  }

 private:
  const MaskRows& mask_;
  bool sparse_, complement_;
  Index ncols_;
  std::vector<ColIndex> buf_;
  std::span<const ColIndex> row_;
  std::size_t at_ = 0;
  std::vector<std::uint8_t> flags_;
};

// C<M> = T for an empty C without accumulator: T's entries outside the mask dropped, in
// T's own arrays (a kernel that already skipped them, as mxm's does, drops none and
// nothing moves).
void keep_masked(SparseStorage& C, SparseStorage& T, const Options& o) {
  const Index m = T.nrows;
  const MaskRows mask(o.mask);
  Index* ro = T.row_offsets.as<Index>();
  ColIndex* ci = T.col_indices.as<ColIndex>();
  std::vector<Index> kept(static_cast<std::size_t>(m) + 1, 0);
  Index total = 0;
#pragma omp parallel if (parallel_rows(m)) reduction(+ : total)
  {
    RowPermits permits(mask, o.mask, T.ncols);
#pragma omp for schedule(dynamic, 256)
    for (Index i = 0; i < m; ++i) {
      if (ro[i] == ro[i + 1]) continue;  // an empty row of T needs no mask row
      permits.start(i);
      Index k = 0;
      for (Index q = ro[i]; q < ro[i + 1]; ++q) k += permits.allows(ci[q]);
      kept[static_cast<std::size_t>(i) + 1] = k;
      total += k;
    }
  }
  if (total != T.nvals) {
    // rows only move towards the front, so one forward pass compacts in place
    visit_type(T.type, [&]<class V>() {
      V* v = T.values.as<V>();
      RowPermits permits(mask, o.mask, T.ncols);
      Index out = 0;
      for (Index i = 0; i < m; ++i) {
        permits.start(i);
        const Index b = ro[i], e = ro[i + 1];
        ro[i] = out;
        for (Index q = b; q < e; ++q)
          if (permits.allows(ci[q])) {
            ci[out] = ci[q];
            v[out] = v[q];
            ++out;
          }
      }
      ro[m] = out;
      T.nvals = out;
    });
  }
  C = std::move(T);
}

}  // namespace

void write_sparse(SparseStorage& C, SparseStorage& T, const Options& o) {
  const Index m = C.nrows, n = C.ncols;
  // Without mask and accumulator the result is T itself.
  if (o.mask.empty() && o.accum.empty()) {
    C = std::move(T);
    return;
  }
  if (C.nvals == 0 && o.accum.empty()) {
    keep_masked(C, T, o);
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
        RowPermits permits(mask, o.mask, n);
#pragma omp for schedule(dynamic, 256)
        for (Index i = 0; i < m; ++i) {
          permits.start(i);
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
            const bool allowed = permits.allows(j);
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
