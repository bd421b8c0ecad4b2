// PageRank iterations on the host (core/graph_kernels.hpp): one pass over A' per
// iteration that writes the next iterate, its scaled copy and the L1 change at once.
// Rows are independent (pull), so the loop is a plain OpenMP loop with a sum reduction.
#include <cmath>

#include "cpu/graph/graph.hpp"
#include "cpu/parallel.hpp"
#include "geblas/error.hpp"

namespace geblas::detail::cpu::graph {
namespace {

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
    V acc = V(0);
    if (w)
      for (Index p = ro[i]; p < ro[i + 1]; ++p) acc += w[p] * xs[ci[p]];
    else
      for (Index p = ro[i]; p < ro[i + 1]; ++p) acc += xs[ci[p]];
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
