// Breadth-first search on a distributed matrix, level-synchronous in the GraphBLAS form:
// the frontier of each source is a column of F (F(j, c) = j where j is on column c's
// frontier, the min identity elsewhere), and one distributed product Y = A' min.second F
// per level gives every vertex its smallest in-neighbour on the frontier, which is the
// parent algo::bfs defines (one source and many alike), so levels and parents equal the
// single-device result exactly whatever the split. A' is the cached distributed
// transpose, kept once more as a pattern of 64-bit integers (min_second needs the
// operands' type to be the vertex ids'). The per-level update (new vertices, the next
// frontier, their count) is the backend's bfs_level_step on each rank's rows, and the
// counts are summed over ranks on the devices: one read-back per level.
#include <algorithm>
#include <cstring>
#include <limits>

#include "core/backend.hpp"
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
  auto P = std::make_shared<DistSparse>(
      DistSparse{A.comm, AT.rows, AT.ncols, TypeId::int64, {}, std::make_shared<SparsePlanCache>()});
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

// Sets every element of `d` to `value` where it lives: on a GPU one pass of apply
// (second(x, value) over the zeroed storage), so that a level's arrays never cross the
// host link (three of rows x sources int64 values per rank, 100-300 MB per rank at R-MAT
// scale 22 with 4 sources over 2 GPUs).
void fill(gd::DenseStorage& d, V value) {
  const Index count = d.nrows * d.ncols;
  if (count == 0) return;
  if (d.device.is_cpu()) {
    std::fill_n(d.data.as<V>(), count, value);
    return;
  }
  gd::ApplyArgs f;
  f.binary = BinaryOpId::second;
  std::memcpy(f.scalar.data(), &value, sizeof value);
  gd::backend_for(d.device).apply_values(d.data.data(), d.data.data(), count, TypeId::int64, f, d.device.ordinal());
}

void put(gd::DenseStorage& d, Index at, V value) {
  gd::copy_bytes(d.data.as<V>() + at, d.device, &value, Device::cpu(), sizeof value);
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
      throw DimensionMismatch(std::string(where) + ": the adjacency matrix must be square, got " + std::to_string(n) +
                              " x " + std::to_string(A.ncols));
    if (sources.empty()) throw InvalidValue(std::string(where) + ": no sources given");
    for (Index s : sources)
      if (s < 0 || s >= n)
        throw IndexOutOfBounds(std::string(where) + ": source " + std::to_string(s) +
                               " is outside the graph's vertices [0, " + std::to_string(n) + ")");
  });
  const auto& locals = t.local_ranks();
  const std::size_t L = locals.size();
  const DistSparse& P = transpose_pattern(A);
  // Levels, parents and the first frontier are set on each rank's device; every level
  // runs there too: the product, the backend's update of each rank's rows (which
  // writes the next frontier into F), the counts summed over ranks on the devices and
  // read back once, the only host wait of a level besides the product's exchange.
  DistBfs res{make_dense(A.comm, A.rows, k, TypeId::int64), make_dense(A.comm, A.rows, k, TypeId::int64), 0};
  DistDense F = make_dense(A.comm, A.rows, k, TypeId::int64), Y = make_dense(A.comm, A.rows, k, TypeId::int64);
  std::vector<gd::RawBuffer> counts(L);
  std::vector<double*> count_ptrs(L);
  agree(t, where, [&](int q) {
    const std::size_t u = static_cast<std::size_t>(q);
    const int r = locals[u];
    fill(res.levels.parts[u], -1);
    fill(res.parents.parts[u], -1);
    fill(F.parts[u], kNone);
    for (Index c = 0; c < k; ++c) {
      const Index s = sources[static_cast<std::size_t>(c)];
      if (s < A.rows.begin(r) || s >= A.rows.end(r)) continue;
      const Index at = (s - A.rows.begin(r)) * k + c;
      put(res.levels.parts[u], at, 0);
      put(res.parents.parts[u], at, s);
      put(F.parts[u], at, s);
    }
    counts[u] = gd::RawBuffer(sizeof(double), t.device(r));
    count_ptrs[u] = counts[u].as<double>();
  });
  for (V level = 1;; ++level) {
    mxm(Y, P, F, SemiringId::min_second, DistMxmOptions{});
    for (std::size_t q = 0; q < L; ++q) {
      const int r = locals[q];
      gd::BfsLevelStep step;
      step.device = t.device(r);
      step.m = A.rows.count(r);
      step.k = k;
      step.first_row = A.rows.begin(r);
      step.level = level;
      step.candidates = Y.parts[q].data.as<V>();
      step.levels = res.levels.parts[q].data.as<V>();
      step.parents = res.parents.parts[q].data.as<V>();
      step.frontier = F.parts[q].data.as<V>();
      step.reached = count_ptrs[q];
      gd::backend_for(step.device).graph->bfs_level_step(step);
    }
    if (t.sum_doubles(count_ptrs, 1).at(0) == 0) break;
    res.depth = static_cast<int>(level);
  }
  return res;
}

}  // namespace geblas::dist::detail
