// select on the host: keep the entries where an index-unary predicate holds (GraphBLAS
// GrB_select). Sparse matrices count and fill each row; vectors (an n x 1 column, so
// j = 0) compact into a sparse result.
#include <algorithm>
#include <utility>
#include <vector>

#include <omp.h>

#include "cpu/csr_builder.hpp"
#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"

namespace geblas::detail::cpu {
namespace {

// Calls f(pred) with a lambda (i, j, x) -> bool for the predicate, specialised per id
// so that the inner loops carry no switch.
template <class V, class F>
void with_predicate(const SelectPredicate& p, F&& f) {
  const Index k = p.k;
  const V y = *static_cast<const V*>(p.threshold.data());
  switch (p.op) {
    case SelectOpId::tril: return f([k](Index i, Index j, V) { return j <= i + k; });
    case SelectOpId::triu: return f([k](Index i, Index j, V) { return j >= i + k; });
    case SelectOpId::diag: return f([k](Index i, Index j, V) { return j == i + k; });
    case SelectOpId::offdiag: return f([k](Index i, Index j, V) { return j != i + k; });
    case SelectOpId::row_le: return f([k](Index i, Index, V) { return i <= k; });
    case SelectOpId::row_gt: return f([k](Index i, Index, V) { return i > k; });
    case SelectOpId::col_le: return f([k](Index, Index j, V) { return j <= k; });
    case SelectOpId::col_gt: return f([k](Index, Index j, V) { return j > k; });
    case SelectOpId::value_eq: return f([y](Index, Index, V x) { return x == y; });
    case SelectOpId::value_ne: return f([y](Index, Index, V x) { return x != y; });
    case SelectOpId::value_lt: return f([y](Index, Index, V x) { return x < y; });
    case SelectOpId::value_le: return f([y](Index, Index, V x) { return x <= y; });
    case SelectOpId::value_gt: return f([y](Index, Index, V x) { return x > y; });
    case SelectOpId::value_ge: return f([y](Index, Index, V x) { return x >= y; });
    case SelectOpId::nonzero: return f([](Index, Index, V x) { return x != V(0); });
  }
  throw InvalidValue("select: unknown predicate id");
}

}  // namespace

void select_sparse(SparseStorage& T, const SparseStorage& A, const SelectPredicate& p) {
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  visit_type(A.type, [&]<class V>() {
    const V* av = A.values.as<V>();
    with_predicate<V>(p, [&](auto keep) {
      T = build_csr_rows<V>(
          A.nrows, A.ncols, A.type,
          [&](Index i) {
            Index c = 0;
            for (Index q = ro[i]; q < ro[i + 1]; ++q) c += keep(i, ci[q], av[q]);
            return c;
          },
          [&](Index i, ColIndex* cols, V* vals) {
            for (Index q = ro[i]; q < ro[i + 1]; ++q)
              if (keep(i, ci[q], av[q])) {
                *cols++ = ci[q];
                *vals++ = av[q];
              }
          });
    });
  });
}

void select_vector(VectorStorage& t, const VectorStorage& u, const SelectPredicate& p) {
  visit_type(u.type, [&]<class V>() {
    const V* uv = u.values.as<V>();
    const ColIndex* ui = u.dense ? nullptr : u.indices.as<ColIndex>();
    with_predicate<V>(p, [&](auto keep) {
      // Two passes over `parts` equal ranges (count, then write at each range's offset)
      // rather than growing index lists: the kept entries are written once, straight
      // into the result's buffers, and large vectors use every thread.
      const Index nv = u.nvals;
      const int parts = parallel_elements(nv) ? std::max(1, omp_get_max_threads()) : 1;
      std::vector<Index> offset(static_cast<std::size_t>(parts) + 1, 0);
      auto range = [&](int r) { return std::pair<Index, Index>{nv * r / parts, nv * (r + 1) / parts}; };
#pragma omp parallel for schedule(static, 1) num_threads(parts) if (parts > 1)
      for (int r = 0; r < parts; ++r) {
        const auto [lo, hi] = range(r);
        Index c = 0;
        for (Index q = lo; q < hi; ++q) c += keep(ui ? ui[q] : q, 0, uv[q]) ? 1 : 0;
        offset[static_cast<std::size_t>(r) + 1] = c;
      }
      for (int r = 0; r < parts; ++r) offset[static_cast<std::size_t>(r) + 1] += offset[static_cast<std::size_t>(r)];
      const Index kept = offset.back();
      VectorStorage out = make_sparse_vector(u.size, u.type, Device::cpu());
      out.nvals = kept;
      out.indices = RawBuffer(static_cast<std::size_t>(kept) * sizeof(ColIndex), Device::cpu());
      out.values = RawBuffer(static_cast<std::size_t>(kept) * sizeof(V), Device::cpu());
      ColIndex* oi = out.indices.as<ColIndex>();
      V* ov = out.values.as<V>();
#pragma omp parallel for schedule(static, 1) num_threads(parts) if (parts > 1)
      for (int r = 0; r < parts; ++r) {
        const auto [lo, hi] = range(r);
        Index at = offset[static_cast<std::size_t>(r)];
        for (Index q = lo; q < hi; ++q) {
          const Index i = ui ? ui[q] : q;
          if (keep(i, 0, uv[q])) {
            oi[at] = static_cast<ColIndex>(i);
            ov[at++] = uv[q];
          }
        }
      }
      t = std::move(out);
    });
  });
}

}  // namespace geblas::detail::cpu
