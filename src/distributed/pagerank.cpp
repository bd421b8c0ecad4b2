// PageRank on a distributed matrix, computed as algo::pagerank computes it: the power
// iteration x = (1 - d) / n + d A' (x ./ out-degree) without a dangling term, stopped when
// the L1 change is below the tolerance, then x divided by its sum (which equals spreading
// the dangling vertices' rank uniformly, and gives the same iteration counts as the
// single-device run). Per iteration: one distributed product, rank-local vector steps on
// the library's operations, and the L1 change summed over ranks. A' is built by a
// distributed transpose on the first call and kept with A: each rank sends every entry
// (i, j) to the owner of row j (an all-to-all of the set-up kind, over the host collectives).
#include <algorithm>
#include <cstring>

#include "distributed/internal.hpp"
#include "distributed/matrices.hpp"
#include "geblas/operations/apply.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/reduce.hpp"

namespace geblas::dist::detail {

DistSparse transpose(const DistSparse& A, const Partition& rows) {
  const char* where = "dist::transpose";
  Transport& t = A.comm.transport();
  t.check_usable(where);
  const auto& locals = t.local_ranks();
  agree(t, where, [&](int k) {
    if (k == 0) check_partition(A.comm, rows, A.ncols, where, "result's row");
  });
  check_same_everywhere(t, where, "result's row partition", partition_hash(rows, A.rows.size()));
  const std::size_t es = size_of(A.type);
  // (row of A', column of A', value bits) per entry, to the owner of the row of A'
  std::vector<std::vector<std::vector<std::int64_t>>> lists(locals.size(), std::vector<std::vector<std::int64_t>>(static_cast<std::size_t>(t.size())));
  agree(t, where, [&](int k) {
    const int r = locals[static_cast<std::size_t>(k)];
    const gd::SparseStorage& part = A.parts[static_cast<std::size_t>(k)];
    const gd::SparseStorage P = part.device.is_cpu() ? part : gd::to_device(part, Device::cpu());
    const Index* off = P.row_offsets.as<Index>();
    const ColIndex* col = P.col_indices.as<ColIndex>();
    for (Index i = 0; i < P.nrows; ++i)
      for (Index e = off[i]; e < off[i + 1]; ++e) {
        const Index j = col[e];
        const int owner = static_cast<int>(std::upper_bound(rows.offsets.begin(), rows.offsets.end(), j) - rows.offsets.begin()) - 1;
        std::int64_t bits = 0;
        std::memcpy(&bits, P.values.as<unsigned char>() + static_cast<std::size_t>(e) * es, es);
        auto& l = lists[static_cast<std::size_t>(k)][static_cast<std::size_t>(owner)];
        l.push_back(j);
        l.push_back(A.rows.begin(r) + i);
        l.push_back(bits);
      }
  });
  const auto got = t.alltoall(lists);
  DistSparse out{A.comm, rows, A.rows.size(), A.type, {}, std::make_shared<SparsePlanCache>()};
  out.parts.resize(locals.size());
  agree(t, where, [&](int k) {
    const int r = locals[static_cast<std::size_t>(k)];
    std::vector<Index> ri, ci;
    gd::RawBuffer v(0, Device::cpu());
    std::size_t count = 0;
    for (const auto& l : got[static_cast<std::size_t>(k)]) count += l.size() / 3;
    v = gd::RawBuffer(count * es, Device::cpu());
    std::size_t at = 0;
    for (const auto& l : got[static_cast<std::size_t>(k)])
      for (std::size_t e = 0; e + 2 < l.size(); e += 3) {
        ri.push_back(l[e] - rows.begin(r));
        ci.push_back(l[e + 1]);
        std::memcpy(v.as<unsigned char>() + at++ * es, &l[e + 2], es);
      }
    out.parts[static_cast<std::size_t>(k)] = gd::build_csr(rows.count(r), A.rows.size(), ri.data(), ci.data(), v.data(),
                                                           static_cast<Index>(count), A.type, Duplicates{}, t.device(r));
  });
  return out;
}

const DistSparse& cached_transpose(const DistSparse& A) {
  {
    std::lock_guard<std::mutex> lock(A.plans->mutex);
    if (A.plans->transpose_by_rows) return *A.plans->transpose_by_rows;
  }
  // built outside the lock (a collective of its own); every rank of the process reaches
  // this together, so no second builder races it
  auto AT = std::make_shared<DistSparse>(transpose(A, A.rows));
  std::lock_guard<std::mutex> lock(A.plans->mutex);
  if (!A.plans->transpose_by_rows) A.plans->transpose_by_rows = std::move(AT);
  return *A.plans->transpose_by_rows;
}

// The sum over ranks of one non-negative double per local rank: a maximum over
// per-rank slots (the bit patterns of non-negative doubles order like their values).
double sum_over_ranks(Transport& t, const std::vector<double>& mine) {
  std::vector<std::vector<std::int64_t>> v(mine.size(), std::vector<std::int64_t>(static_cast<std::size_t>(t.size()), 0));
  for (std::size_t k = 0; k < mine.size(); ++k) {
    const double x = std::max(0.0, mine[k]);
    std::memcpy(&v[k][static_cast<std::size_t>(t.local_ranks()[k])], &x, sizeof x);
  }
  double s = 0;
  for (std::int64_t b : t.max_over_ranks(v)) {
    double x;
    std::memcpy(&x, &b, sizeof x);
    s += x;
  }
  return s;
}

namespace {

template <class T>
gd::DenseStorage host_column(const std::vector<T>& v, Device dev) {
  gd::DenseStorage s = gd::make_dense(static_cast<Index>(v.size()), 1, Layout::row_major, type_id<T>, Device::cpu());
  if (!v.empty()) std::memcpy(s.data.data(), v.data(), v.size() * sizeof(T));
  return dev.is_cpu() ? s : gd::to_device(s, dev);
}

template <class T>
double scalar_sum(const gd::DenseStorage& x) {
  T s{};
  if (x.nrows == 0) return 0;
  gd::reduce_scalar(&s, x, MonoidId::plus);
  return static_cast<double>(s);
}

void apply_scalar(gd::DenseStorage& C, const gd::DenseStorage& A, BinaryOpId op, const void* scalar) {
  if (C.nrows) gd::apply(C, A, gd::ApplyOp{UnaryOpId::identity, op, scalar}, Options{});
}

template <class T>
DistPageRank pagerank_typed(const DistSparse& A, const PageRankOptions& o) {
  Transport& t = A.comm.transport();
  const auto& locals = t.local_ranks();
  const Index n = A.rows.size();
  const std::size_t L = locals.size();
  // A' rows split like A's, so x, z and y share one partition and no vector moves
  const DistSparse& AT = cached_transpose(A);
  // 1 / out-degree (0 for dangling rows), per local rank
  std::vector<gd::DenseStorage> inv(L), scratch(L);
  DistDense x = make_dense(A.comm, A.rows, 1, A.type), y = make_dense(A.comm, A.rows, 1, A.type),
            z = make_dense(A.comm, A.rows, 1, A.type);
  agree(t, "dist::pagerank", [&](int k) {
    const int r = locals[static_cast<std::size_t>(k)];
    const gd::SparseStorage& part = A.parts[static_cast<std::size_t>(k)];
    std::vector<Index> off(static_cast<std::size_t>(part.nrows) + 1);
    gd::copy_bytes(off.data(), Device::cpu(), part.row_offsets.data(), part.device, off.size() * sizeof(Index));
    std::vector<T> iv(static_cast<std::size_t>(part.nrows)), x0(iv.size(), T(1) / static_cast<T>(n));
    for (std::size_t i = 0; i < iv.size(); ++i) {
      const Index len = off[i + 1] - off[i];
      iv[i] = len ? T(1) / static_cast<T>(len) : T(0);
    }
    const Device dev = t.device(r);
    inv[static_cast<std::size_t>(k)] = host_column(iv, dev);
    scratch[static_cast<std::size_t>(k)] = gd::make_dense(part.nrows, 1, Layout::row_major, A.type, dev);
    x.parts[static_cast<std::size_t>(k)] = host_column(x0, dev);
  });
  DistPageRank res{std::move(x), 0, false, 0};
  DistDense& X = res.ranks;
  const T d = static_cast<T>(o.damping);
  const T base = static_cast<T>((1 - o.damping) / static_cast<double>(n));
  for (int it = 1; it <= o.max_iterations; ++it) {
    std::vector<double> change(L);
    for (std::size_t k = 0; k < L; ++k)
      if (X.parts[k].nrows) gd::ewise(z.parts[k], X.parts[k], inv[k], BinaryOpId::times, gd::EwiseKind::mult, Options{});
    // unweighted: plus_second reads the pattern of A' only
    mxm(y, AT, z, SemiringId::plus_second, DistMxmOptions{});
    // every rank's vector steps queued before the first reduction waits on the host, so
    // that the GPUs of one process work on them at the same time
    for (std::size_t k = 0; k < L; ++k) {
      if (X.parts[k].nrows == 0) continue;
      apply_scalar(y.parts[k], y.parts[k], BinaryOpId::times, &d);
      apply_scalar(y.parts[k], y.parts[k], BinaryOpId::plus, &base);
      gd::ewise(scratch[k], y.parts[k], X.parts[k], BinaryOpId::minus, gd::EwiseKind::mult, Options{});
      gd::apply(scratch[k], scratch[k], gd::ApplyOp{UnaryOpId::abs, BinaryOpId::none, nullptr}, Options{});
    }
    for (std::size_t k = 0; k < L; ++k)
      if (X.parts[k].nrows) change[k] = scalar_sum<T>(scratch[k]);
    std::swap(X.parts, y.parts);
    res.delta = sum_over_ranks(t, change);
    res.iterations = it;
    if (res.delta < o.tolerance) {
      res.converged = true;
      break;
    }
  }
  std::vector<double> mass(L);
  for (std::size_t k = 0; k < L; ++k) mass[k] = scalar_sum<T>(X.parts[k]);
  const T inv_total = static_cast<T>(1.0 / sum_over_ranks(t, mass));
  for (std::size_t k = 0; k < L; ++k) apply_scalar(X.parts[k], X.parts[k], BinaryOpId::times, &inv_total);
  return res;
}

}  // namespace

DistPageRank pagerank(const DistSparse& A, const PageRankOptions& o) {
  const char* where = "dist::pagerank";
  if (A.rows.size() != A.ncols)
    throw DimensionMismatch(std::string(where) + ": A is " + std::to_string(A.rows.size()) + " x " + std::to_string(A.ncols) +
                            ", not square");
  if (!(o.damping >= 0 && o.damping < 1) || !(o.tolerance >= 0) || o.max_iterations < 1)
    throw InvalidValue(std::string(where) + ": damping must be in [0, 1), tolerance >= 0 (0: run max_iterations) and max_iterations >= 1");
  if (A.type == TypeId::float32) return pagerank_typed<float>(A, o);
  if (A.type == TypeId::float64) return pagerank_typed<double>(A, o);
  throw NotImplemented(std::string(where) + ": float and double only");
}

}  // namespace geblas::dist::detail
