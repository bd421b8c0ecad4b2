// Matrix-vector products on the host. Pull walks the rows of M (one dot product per
// output entry, parallel over rows, skipping rows the mask excludes: the BFS pull step
// with a complemented "visited" mask). Push scatters the rows of M' picked by the
// sparse u (the BFS frontier); it runs on one thread, because its work is the
// frontier's out-degree and a parallel scatter would need atomics per semiring.
#include <cstdint>
#include <vector>

#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/mask_rows.hpp"
#include "cpu/vector_bitmap.hpp"
#include "geblas/detail/nan_rule.hpp"

namespace geblas::detail::cpu {
namespace {

template <class S, bool UFirst>
typename S::value_type multiply(typename S::value_type a, typename S::value_type u) {
  if constexpr (UFirst) return S::mul(u, a);
  else return S::mul(a, u);
}

// Flags of the rows the mask allows, or empty when there is no mask.
std::vector<std::uint8_t> allowed_rows(const Mask* mask, Index m) {
  std::vector<std::uint8_t> allowed;
  if (mask && !mask->empty()) {
    allowed.assign(static_cast<std::size_t>(m), 1);
    MaskRows(*mask).fill(0, allowed.data(), m);
  }
  return allowed;
}

}  // namespace

void mxv_pull(const MxvArgs& args) {
  const SparseStorage& M = *args.A;
  const Index m = M.nrows;
  const std::vector<std::uint8_t> allowed = allowed_rows(args.mask, m);
  *args.t = make_bitmap_result(m, M.type);
  if (args.record) {
    args.record->variant = "pull";
    args.record->reason = std::string(args.u->dense ? "dense u" : "sparse u read as a bitmap") +
                          (allowed.empty() ? "" : ", masked rows skipped");
  }
  const Index* ro = M.row_offsets.as<Index>();
  const ColIndex* ci = M.col_indices.as<ColIndex>();
  visit_type(M.type, [&]<class V>() {
    const BitmapRead<V> u(*args.u);
    const V* av = M.values.as<V>();
    V* tv = args.t->t.values.as<V>();
    std::uint8_t* tp = args.t->present.as<std::uint8_t>();
    with_semiring<V>(args.semiring, [&]<class S>() {
      auto run = [&]<bool UFirst>() {
#pragma omp parallel for schedule(dynamic, 512) if (parallel_rows(m))
        for (Index i = 0; i < m; ++i) {
          if (!allowed.empty() && !allowed[static_cast<std::size_t>(i)]) continue;
          V acc = S::identity();
          bool found = false;
          for (Index k = ro[i]; k < ro[i + 1]; ++k) {
            const ColIndex j = ci[k];
            if (!u.has(j)) continue;
            const V p = multiply<S, UFirst>(av[k], u.value(j));
            acc = found ? S::add(acc, p) : first_term_for<S>(p);
            found = true;
            if constexpr (S::has_terminal) {
              if (acc == S::terminal()) break;
            }
          }
          tv[i] = acc;
          tp[i] = found;
        }
      };
      if (args.u_first) run.template operator()<true>();
      else run.template operator()<false>();
    });
  });
}

void mxv_push(const MxvArgs& args) {
  const SparseStorage& MT = *args.A;  // M' : n x m
  const Index m = MT.ncols;
  const std::vector<std::uint8_t> allowed = allowed_rows(args.mask, m);
  *args.t = make_bitmap_result(m, MT.type);
  if (args.record) {
    args.record->variant = "push";
    args.record->reason = "sparse u with " + std::to_string(args.u->nvals) + " of " + std::to_string(args.u->size) +
                          " entries";
  }
  const Index* ro = MT.row_offsets.as<Index>();
  const ColIndex* ci = MT.col_indices.as<ColIndex>();
  visit_type(MT.type, [&]<class V>() {
    const V* av = MT.values.as<V>();
    V* tv = args.t->t.values.as<V>();
    std::uint8_t* tp = args.t->present.as<std::uint8_t>();
    const VectorStorage& u = *args.u;
    const V* uv = u.values.as<V>();
    const ColIndex* ui = u.dense ? nullptr : u.indices.as<ColIndex>();
    with_semiring<V>(args.semiring, [&]<class S>() {
      auto run = [&]<bool UFirst>() {
        for (Index q = 0; q < u.nvals; ++q) {
          const Index k = ui ? ui[q] : q;
          for (Index p = ro[k]; p < ro[k + 1]; ++p) {
            const ColIndex i = ci[p];
            if (!allowed.empty() && !allowed[static_cast<std::size_t>(i)]) continue;
            const V x = multiply<S, UFirst>(av[p], uv[q]);
            tv[i] = tp[i] ? S::add(tv[i], x) : first_term_for<S>(x);
            tp[i] = 1;
          }
        }
      };
      if (args.u_first) run.template operator()<true>();
      else run.template operator()<false>();
    });
  });
}

}  // namespace geblas::detail::cpu
