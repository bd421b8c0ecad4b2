// Multi-source shortest paths on a distributed matrix: Bellman-Ford rounds over min_plus,
// as algo::sssp runs them for many sources, by the same loop (algorithms/
// bellman_ford_loop.hpp: the callback, the stop at the first round that changes nothing,
// the negative cycle): a round is D = min(D, A' min.+ D) with A' from dist::transpose,
// the count of changed entries summed over ranks. Weights must not be NaN, and >= 0
// unless allow_negative (checked once per matrix on every rank, agreed on before any
// round).
#include <cmath>
#include <cstring>
#include <limits>

#include "algorithms/bellman_ford_loop.hpp"
#include "distributed/internal.hpp"
#include "distributed/matrices.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/reduce.hpp"

namespace geblas::dist::detail {

namespace {

template <class T>
DistSssp sssp_typed(const DistSparse& A, const std::vector<Index>& sources, const algo::SsspOptions& o) {
  const char* where = "dist::sssp";
  Transport& t = A.comm.transport();
  const auto& locals = t.local_ranks();
  const std::size_t L = locals.size();
  const Index n = A.rows.size(), k = static_cast<Index>(sources.size());
  // the weights are read back once per matrix (A is not modified after construction)
  WeightSigns signs = WeightSigns::unknown;
  {
    std::lock_guard<std::mutex> lock(A.plans->mutex);
    signs = A.plans->weight_signs;
  }
  if (signs == WeightSigns::unknown) {
    std::vector<std::vector<std::int64_t>> negative(L, std::vector<std::int64_t>(1, 0));
    agree(t, where, [&](int r) {
      const gd::SparseStorage& part = A.parts[static_cast<std::size_t>(r)];
      const gd::SparseStorage P = part.device.is_cpu() ? part : gd::to_device(part, Device::cpu());
      const T* v = P.values.as<T>();
      for (Index e = 0; e < P.nvals; ++e) {
        if (std::isnan(v[e]))
          throw InvalidValue(std::string(where) + ": a NaN weight on rank " +
                             std::to_string(locals[static_cast<std::size_t>(r)]));
        if (v[e] < T(0)) negative[static_cast<std::size_t>(r)][0] = 1;
      }
    });
    signs = t.max_over_ranks(negative).at(0) ? WeightSigns::some_negative : WeightSigns::nonnegative;
    std::lock_guard<std::mutex> lock(A.plans->mutex);
    A.plans->weight_signs = signs;
  }
  if (signs == WeightSigns::some_negative && !o.allow_negative)
    throw InvalidValue(
        std::string(where) +
        ": the graph has a negative edge weight; set allow_negative to run with negative-cycle detection");
  const DistSparse& AT = cached_transpose(A);
  DistDense D = make_dense(A.comm, A.rows, k, A.type), T2 = make_dense(A.comm, A.rows, k, A.type);
  std::vector<gd::DenseStorage> changed(L);
  agree(t, where, [&](int r) {
    const int rank = locals[static_cast<std::size_t>(r)];
    const Index b = A.rows.begin(rank), rows = A.rows.count(rank);
    std::vector<T> d0(static_cast<std::size_t>(rows * k), std::numeric_limits<T>::infinity());
    for (Index j = 0; j < k; ++j)
      if (sources[static_cast<std::size_t>(j)] >= b && sources[static_cast<std::size_t>(j)] < b + rows)
        d0[static_cast<std::size_t>((sources[static_cast<std::size_t>(j)] - b) * k + j)] = T(0);
    gd::DenseStorage h = gd::make_dense(rows, k, Layout::row_major, A.type, Device::cpu());
    if (!d0.empty()) std::memcpy(h.data.data(), d0.data(), d0.size() * sizeof(T));
    const Device dev = t.device(rank);
    D.parts[static_cast<std::size_t>(r)] = dev.is_cpu() ? std::move(h) : gd::to_device(h, dev);
    changed[static_cast<std::size_t>(r)] = gd::make_dense(rows, k, Layout::row_major, A.type, dev);
  });
  DistSssp res{std::move(D), 0};
  DistDense& X = res.distances;
  res.rounds = algo::detail::bellman_ford_loop(
      [&] {
        mxm(T2, AT, X, SemiringId::min_plus, DistMxmOptions{});
        std::vector<double> count(L, 0);
        for (std::size_t r = 0; r < L; ++r) {
          if (X.parts[r].nrows == 0 || k == 0) continue;
          gd::ewise(T2.parts[r], T2.parts[r], X.parts[r], BinaryOpId::min, gd::EwiseKind::mult, Options{});
          gd::ewise(changed[r], T2.parts[r], X.parts[r], BinaryOpId::ne, gd::EwiseKind::mult, Options{});
          T c{};
          gd::reduce_scalar(&c, changed[r], MonoidId::plus);
          count[r] = static_cast<double>(c);
        }
        std::swap(X.parts, T2.parts);
        return sum_over_ranks(t, count);
      },
      n, o.on_iteration, where);
  return res;
}

}  // namespace

DistSssp sssp(const DistSparse& A, const std::vector<Index>& sources, const algo::SsspOptions& o) {
  const char* where = "dist::sssp";
  if (A.rows.size() != A.ncols)
    throw DimensionMismatch(std::string(where) + ": A is " + std::to_string(A.rows.size()) + " x " + std::to_string(A.ncols) +
                            ", not square");
  if (sources.empty()) throw InvalidValue(std::string(where) + ": no sources");
  for (Index s : sources)
    if (s < 0 || s >= A.ncols)
      throw IndexOutOfBounds(std::string(where) + ": source " + std::to_string(s) + " outside [0, " + std::to_string(A.ncols) + ")");
  if (A.type == TypeId::float32) return sssp_typed<float>(A, sources, o);
  if (A.type == TypeId::float64) return sssp_typed<double>(A, sources, o);
  throw NotImplemented(std::string(where) + ": float and double only");
}

}  // namespace geblas::dist::detail
