// PageRank iterations on the host (core/graph_kernels.hpp): one pass over A' per
// iteration that writes the next iterate, its scaled copy and the L1 change at once.
// Rows are independent (pull), so the loop is a plain OpenMP loop with a sum reduction.
#include <cmath>

#include "cpu/graph/graph.hpp"
#include "cpu/parallel.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu::graph {
namespace {

// sum_p w[p] * xs[ci[p]] over [begin, end). Four partial sums: a single one is a chain of
// dependent additions (about four cycles each), which on a mesh or road graph's short
// rows costs more than the gathers; four let the loads of the next entries overlap.
template <bool weighted, class V>
V row_sum(Index begin, Index end, const ColIndex* ci, const V* w, const V* xs) {
  auto term = [&](Index p) { return weighted ? w[p] * xs[ci[p]] : xs[ci[p]]; };
  V s0 = V(0), s1 = V(0), s2 = V(0), s3 = V(0);
  Index p = begin;
  for (; p + 4 <= end; p += 4) {
    s0 += term(p);
    s1 += term(p + 1);
    s2 += term(p + 2);
    s3 += term(p + 3);
  }
  for (; p < end; ++p) s0 += term(p);
  return (s0 + s1) + (s2 + s3);
}

template <class V>
double one_iteration(const PageRankIterate& a, int from) {
  const SparseStorage& At = *a.At;
  const Index n = At.nrows;
  const Index* ro = At.row_offsets.as<Index>();
  const ColIndex* ci = At.col_indices.as<ColIndex>();
  const V* w = a.weighted ? At.values.as<V>() : nullptr;
  const V* scale = static_cast<const V*>(a.scale);
  const V* tele = static_cast<const V*>(a.teleport);
  const V uniform = static_cast<V>(a.teleport_uniform);
  const V* x = static_cast<const V*>(a.x[from]);
  const V* xs = static_cast<const V*>(a.xs[from]);
  V* xn = static_cast<V*>(a.x[1 - from]);
  V* xsn = static_cast<V*>(a.xs[1 - from]);
  double delta = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : delta) if (parallel_rows(n))
  for (Index i = 0; i < n; ++i) {
    const V acc = w ? row_sum<true>(ro[i], ro[i + 1], ci, w, xs) : row_sum<false>(ro[i], ro[i + 1], ci, w, xs);
    const V y = (tele ? tele[i] : uniform) + acc;
    xn[i] = y;
    xsn[i] = y * scale[i];
    delta += std::fabs(static_cast<double>(y) - static_cast<double>(x[i]));
  }
  return delta;
}

template <class V>
void initialise(const PageRankIterate& a, int slot) {
  const Index n = a.At->nrows;
  const V* start = static_cast<const V*>(a.start);
  const V* scale = static_cast<const V*>(a.scale);
  V* x = static_cast<V*>(a.x[slot]);
  V* xs = static_cast<V*>(a.xs[slot]);
  const V uniform = static_cast<V>(a.start_uniform);
#pragma omp parallel for schedule(static) if (parallel_elements(n))
  for (Index i = 0; i < n; ++i) {
    x[i] = start ? start[i] : uniform;
    xs[i] = x[i] * scale[i];
  }
}

}  // namespace

PageRankBatch pagerank_iterate(const PageRankIterate& a, int current, int count) {
  PageRankBatch out;
  out.current = current;
  if (a.initialise) {
    if (a.At->type == TypeId::float32) initialise<float>(a, current);
    else if (a.At->type == TypeId::float64) initialise<double>(a, current);
  }
  for (int it = 0; it < count; ++it) {
    double delta = 0;
    switch (a.At->type) {
      case TypeId::float32: delta = one_iteration<float>(a, out.current); break;
      case TypeId::float64: delta = one_iteration<double>(a, out.current); break;
      default: throw InvalidValue("pagerank iterations on cpu: the matrix must hold float or double");
    }
    out.current = 1 - out.current;
    if (a.deltas_on_device) {
      a.deltas_on_device[it] = delta;  // the host is this backend's device
      continue;
    }
    out.deltas.push_back(delta);
    if (delta < a.tolerance) break;
  }
  return out;
}

}  // namespace geblas::detail::cpu::graph
