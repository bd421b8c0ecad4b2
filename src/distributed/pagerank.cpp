// PageRank on a distributed matrix, computed as algo::pagerank computes it and by the same
// code: the iteration control of algorithms/pagerank_loop.hpp and the backend's fused
// step (x = (1 - d) / n + A' xs, xs = x .* d / out, and the L1 change, in one pass over
// the rank's rows of A'), then x divided by its sum (which equals spreading the dangling
// vertices' rank uniformly, and gives the same iteration counts as one device). Per
// iteration and rank: the halo of xs packed and exchanged, the fused step over the rank's
// block of A' (owned columns, then the halo), its change summed over ranks on the devices
// (one NCCL all-reduce), and one read-back for the whole communicator, which the host
// waits for while the devices run the next step. A' is built by a
// distributed transpose on the first call and kept with A: each rank sends every entry
// (i, j) to the owner of row j (an all-to-all of the set-up kind, over the host collectives).
#include <algorithm>
#include <cstring>

#include "algorithms/pagerank_loop.hpp"
#include "core/backend.hpp"
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

// d / out(j) for each local rank's rows (0 where dangling), cached with A per damping.
template <class T>
const std::vector<gd::DenseStorage>& damped_scale(const DistSparse& A, double damping) {
  {
    std::lock_guard<std::mutex> lock(A.plans->mutex);
    const auto it = A.plans->pagerank_scale.find(damping);
    if (it != A.plans->pagerank_scale.end()) return it->second;
  }
  Transport& t = A.comm.transport();
  std::vector<gd::DenseStorage> scales(A.parts.size());
  agree(t, "dist::pagerank (out-degrees)", [&](int k) {
    const gd::SparseStorage& part = A.parts[static_cast<std::size_t>(k)];
    std::vector<Index> off(static_cast<std::size_t>(part.nrows) + 1);
    gd::copy_bytes(off.data(), Device::cpu(), part.row_offsets.data(), part.device, off.size() * sizeof(Index));
    std::vector<T> sc(static_cast<std::size_t>(part.nrows));
    for (std::size_t i = 0; i < sc.size(); ++i) {
      const Index len = off[i + 1] - off[i];
      sc[i] = len ? static_cast<T>(damping / static_cast<double>(len)) : T(0);
    }
    scales[static_cast<std::size_t>(k)] = host_column(sc, t.device(t.local_ranks()[static_cast<std::size_t>(k)]));
  });
  std::lock_guard<std::mutex> lock(A.plans->mutex);
  return A.plans->pagerank_scale.emplace(damping, std::move(scales)).first->second;
}

// One local rank's iterate: x (its rows), and x .* d / out laid out as the combined
// block's columns read it, the owned values then the received halo, in two slots.
struct RankState {
  gd::DenseStorage x[2], xs[2];  // m values; m + halo values
  gd::RawBuffer change;          // the rank's L1 change of a step, one double per parity of the step
  gd::PageRankIterate args;
};

template <class T>
DistPageRank pagerank_typed(const DistSparse& A, const PageRankOptions& o) {
  const char* where = "dist::pagerank";
  Transport& t = A.comm.transport();
  const auto& locals = t.local_ranks();
  const Index n = A.rows.size();
  const std::size_t L = locals.size();
  // A' rows split like A's, so the iterate, its scaled copy and the result share A's
  // row partition, and the halo of A' is the only thing that moves
  const DistSparse& AT = cached_transpose(A);
  ExchangePlan* plan = nullptr;
  {
    std::lock_guard<std::mutex> lock(AT.plans->mutex);
    plan = &exchange_plan(AT, A.rows);
  }
  const std::vector<gd::DenseStorage>& scales = damped_scale<T>(A, o.damping);
  std::vector<RankState> st(L);
  agree(t, where, [&](int k) {
    const int r = locals[static_cast<std::size_t>(k)];
    const Device dev = t.device(r);
    RankPlan& rp = plan->ranks[static_cast<std::size_t>(k)];
    RankState& s = st[static_cast<std::size_t>(k)];
    const Index m = A.parts[static_cast<std::size_t>(k)].nrows;
    for (int j = 0; j < 2; ++j) {
      s.x[j] = gd::make_dense(m, 1, Layout::row_major, A.type, dev);
      s.xs[j] = gd::make_dense(m + rp.halo, 1, Layout::row_major, A.type, dev);
    }
    s.change = gd::RawBuffer(2 * sizeof(double), dev);
    gd::zero_bytes(s.change.data(), dev, 2 * sizeof(double));
    gd::PageRankIterate& a = s.args;
    a.At = &combined_block(rp, dev);
    a.weighted = false;  // plain PageRank reads the pattern of A' only
    a.scale = scales[static_cast<std::size_t>(k)].data.data();
    a.teleport_uniform = (1.0 - o.damping) / static_cast<double>(n);
    for (int j = 0; j < 2; ++j) {
      a.x[j] = s.x[j].data.data();
      a.xs[j] = s.xs[j].data.data();
    }
    a.tolerance = o.tolerance;
    a.deltas_on_device = s.change.as<double>();
    // x0 = 1 / n and xs0 = x0 .* scale in slot 0 (the backend's initialisation alone)
    a.initialise = true;
    a.start_uniform = 1.0 / static_cast<double>(n);
    if (m > 0) gd::backend_for(dev).graph->pagerank_iterate(a, 0, 0);
    a.initialise = false;
  });
  // One step: the halo of xs, the fused step on every rank's rows (queued on every
  // device before any wait), and the changes summed over ranks on the devices. The host
  // queues step j + 1 before it reads step j's change, so that the devices never wait
  // for the host between steps; the change of step j, and the slot of its iterate, are
  // known before step j + 2 is queued, and a step queued after the one that converges
  // only writes the other slot (its change is read and dropped). So the run stops at the
  // iteration one device stops at, with the same result.
  auto queue_step = [&](int cur, int parity) {
    std::vector<gd::DenseStorage> own(L);
    std::vector<void*> halo(L);
    std::vector<double*> changes(L);
    for (std::size_t k = 0; k < L; ++k) {
      const Index m = st[k].x[0].nrows;
      const Device dev = t.device(locals[k]);
      own[k] = dense_view(st[k].xs[cur].data.data(), m, 1, A.type, dev);
      halo[k] = st[k].xs[cur].data.template as<T>() + m;
      changes[k] = st[k].change.template as<double>() + parity;
    }
    start_row_exchange(t, *plan, own, halo, 1, A.type);
    t.finish_on_device();
    for (std::size_t k = 0; k < L; ++k) {
      const Device dev = t.device(locals[k]);
      st[k].args.deltas_on_device = changes[k];
      if (st[k].x[0].nrows > 0) gd::backend_for(dev).graph->pagerank_iterate(st[k].args, cur, 1);
      else gd::zero_bytes(changes[k], dev, sizeof(double));  // holds an older sum otherwise
    }
    return t.queue_sum_doubles(changes, 1);
  };
  auto run = [&](int from, int count) {
    gd::PageRankBatch b;
    b.current = from;
    int ticket = queue_step(from, 0);
    for (int j = 0; j < count; ++j) {
      const int next = j + 1 < count ? queue_step(1 - b.current, (j + 1) & 1) : -1;
      const double change = t.read_sum(ticket).at(0);
      b.deltas.push_back(change);
      b.current = 1 - b.current;
      if (change < o.tolerance) {
        if (next >= 0) t.read_sum(next);  // a step too many, queued: bounded like the others
        break;
      }
      ticket = next;
    }
    return b;
  };
  const algo::detail::PageRankLoop loop =
      algo::detail::pagerank_loop(run, 0, o.max_iterations, o.tolerance, o.on_iteration);

  DistPageRank res{make_dense(A.comm, A.rows, 1, A.type), loop.iterations, loop.converged, loop.delta};
  std::vector<double> mass(L);
  for (std::size_t k = 0; k < L; ++k) mass[k] = scalar_sum<T>(st[k].x[loop.current]);
  const T inv_total = static_cast<T>(1.0 / sum_over_ranks(t, mass));
  for (std::size_t k = 0; k < L; ++k) {
    gd::DenseStorage& x = st[k].x[loop.current];
    if (x.nrows) gd::apply(x, x, gd::ApplyOp{UnaryOpId::identity, BinaryOpId::times, &inv_total}, Options{});
    res.ranks.parts[k] = std::move(x);
  }
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
