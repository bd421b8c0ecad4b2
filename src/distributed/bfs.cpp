// Breadth-first search on a distributed matrix, level-synchronous in the GraphBLAS form:
// the frontier of each source is a column of F (F(j, c) = j where j is on column c's
// frontier, the min identity elsewhere), and one distributed product Y = A' min.second F
// per level gives every vertex its smallest in-neighbour on the frontier, which is the
// parent algo::bfs defines (one source and many alike), so levels and parents equal the
// single-device result exactly whatever the split. A' is the cached distributed
// transpose, kept once more as a pattern of 64-bit integers (min_second needs the
// operands' type to be the vertex ids'). The per-level update (new vertices, the next
// frontier, their count) runs on each rank's rows on the host: one copy of F and Y per
// rank and level, the step to move onto the devices next (docs/DISTRIBUTED.md).
#include <cstring>
#include <limits>

#include "distributed/internal.hpp"
#include "distributed/matrices.hpp"
#include "geblas/detail/host_buffer.hpp"

namespace geblas::dist::detail {

namespace {

using V = std::int64_t;
constexpr V kNone = std::numeric_limits<V>::max();  // min's identity: not on the frontier

// A' as a pattern of int64 ones, rows split like A's, cached with A.
const DistSparse& transpose_pattern(const DistSparse& A) {
  {
    std::lock_guard<std::mutex> lock(A.plans->mutex);
    if (A.plans->transpose_pattern) return *A.plans->transpose_pattern;
  }
  const DistSparse& AT = cached_transpose(A);
  Transport& t = A.comm.transport();
  auto P = std::make_shared<DistSparse>(DistSparse{A.comm, AT.rows, AT.ncols, TypeId::int64, {}, std::make_shared<SparsePlanCache>()});
  P->parts.resize(AT.parts.size());
  agree(t, "dist::bfs (pattern of A')", [&](int k) {
    const gd::SparseStorage& part = AT.parts[static_cast<std::size_t>(k)];
    const gd::SparseStorage H = part.device.is_cpu() ? part : gd::to_device(part, Device::cpu());
    std::vector<V> ones(static_cast<std::size_t>(H.nvals), 1);
    gd::SparseStorage S = gd::adopt_csr(H.nrows, H.ncols, H.row_offsets, H.col_indices, gd::host_buffer_from(ones),
                                        TypeId::int64, Device::cpu());
    const Device dev = t.device(t.local_ranks()[static_cast<std::size_t>(k)]);
    P->parts[static_cast<std::size_t>(k)] = dev.is_cpu() ? std::move(S) : gd::to_device(S, dev);
  });
  std::lock_guard<std::mutex> lock(A.plans->mutex);
  if (!A.plans->transpose_pattern) A.plans->transpose_pattern = std::move(P);
  return *A.plans->transpose_pattern;
}

void to_part(gd::DenseStorage& dst, const std::vector<V>& src) {
  if (!src.empty()) gd::copy_bytes(dst.data.data(), dst.device, src.data(), Device::cpu(), src.size() * sizeof(V));
}

}  // namespace

DistBfs bfs(const DistSparse& A, const std::vector<Index>& sources) {
  const char* where = "dist::bfs";
  Transport& t = A.comm.transport();
  t.check_usable(where);
  const Index n = A.rows.size(), k = static_cast<Index>(sources.size());
  agree(t, where, [&](int r) {
    if (r != 0) return;
    if (n != A.ncols)
      throw DimensionMismatch(std::string(where) + ": the adjacency matrix must be square, got " + std::to_string(n) + " x " +
                              std::to_string(A.ncols));
    if (sources.empty()) throw InvalidValue(std::string(where) + ": no sources given");
    for (Index s : sources)
      if (s < 0 || s >= n)
        throw IndexOutOfBounds(std::string(where) + ": source " + std::to_string(s) + " is outside the graph's vertices [0, " +
                               std::to_string(n) + ")");
  });
  const auto& locals = t.local_ranks();
  const std::size_t L = locals.size();
  const DistSparse& P = transpose_pattern(A);
  DistDense F = make_dense(A.comm, A.rows, k, TypeId::int64), Y = make_dense(A.comm, A.rows, k, TypeId::int64);
  // per local rank, row-major m x k on the host
  std::vector<std::vector<V>> lev(L), par(L), f(L), y(L);
  for (std::size_t q = 0; q < L; ++q) {
    const int r = locals[q];
    const auto m = static_cast<std::size_t>(A.rows.count(r));
    lev[q].assign(m * static_cast<std::size_t>(k), -1);
    par[q].assign(m * static_cast<std::size_t>(k), -1);
    f[q].assign(m * static_cast<std::size_t>(k), kNone);
    y[q].resize(m * static_cast<std::size_t>(k));
    for (Index c = 0; c < k; ++c) {
      const Index s = sources[static_cast<std::size_t>(c)];
      if (s < A.rows.begin(r) || s >= A.rows.end(r)) continue;
      const auto at = static_cast<std::size_t>((s - A.rows.begin(r)) * k + c);
      lev[q][at] = 0;
      par[q][at] = s;
      f[q][at] = s;
    }
  }
  DistBfs res{make_dense(A.comm, A.rows, k, TypeId::int64), make_dense(A.comm, A.rows, k, TypeId::int64), 0};
  for (V level = 1;; ++level) {
    for (std::size_t q = 0; q < L; ++q) to_part(F.parts[q], f[q]);
    mxm(Y, P, F, SemiringId::min_second, DistMxmOptions{});
    std::vector<double> reached(L, 0);
    for (std::size_t q = 0; q < L; ++q) {
      if (!y[q].empty())
        gd::copy_bytes(y[q].data(), Device::cpu(), Y.parts[q].data.data(), Y.parts[q].device, y[q].size() * sizeof(V));
      const Index b = A.rows.begin(locals[q]);
      for (std::size_t e = 0; e < y[q].size(); ++e) {
        f[q][e] = kNone;
        if (y[q][e] == kNone || lev[q][e] >= 0) continue;
        lev[q][e] = level;
        par[q][e] = y[q][e];
        f[q][e] = b + static_cast<Index>(e / static_cast<std::size_t>(k));
        ++reached[q];
      }
    }
    if (sum_over_ranks(t, reached) == 0) break;
    res.depth = static_cast<int>(level);
  }
  for (std::size_t q = 0; q < L; ++q) {
    to_part(res.levels.parts[q], lev[q]);
    to_part(res.parents.parts[q], par[q]);
  }
  return res;
}

}  // namespace geblas::dist::detail
