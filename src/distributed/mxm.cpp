// Distributed sparse x dense product, 1-D row partitioning. Each rank multiplies its rows
// of A by B's rows; B's rows live on their owners, so a rank either receives all of B
// (all-gather, the baseline) or only the rows its columns touch. For the latter the
// rank's part of A is split once (per B partition) into the columns it owns and the ones
// it receives, remapped to compact indices; the owned product runs on the library's own
// mxm while the rows travel, then the received rows' product is accumulated with the
// semiring's add (the "overlap" of the 1-D algorithms of Buluc and Gilbert's CombBLAS
// and of CAGNET; here on the geblas stream of each GPU, the exchange on its own stream).
// Each rank packs the rows others need with an mxm by a selection matrix (one entry per
// row, any_second), so the packing runs the tuned kernels on every backend and needs no
// kernel of its own.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "distributed/internal.hpp"
#include "distributed/matrices.hpp"
#include "geblas/operations/mxm.hpp"

namespace geblas::dist::detail {

namespace {

std::atomic<int> g_fail_rank{-1};

gd::DenseStorage& buffer_for(std::map<Index, gd::DenseStorage>& cache, Index n, Index rows, TypeId type, Device dev,
                             int rank, const char* what) {
  int expected = rank;
  if (g_fail_rank.load() == rank && g_fail_rank.compare_exchange_strong(expected, -1))
    throw OutOfMemory("dist::mxm: rank " + std::to_string(rank) + " cannot allocate its " + what + " buffer (" +
                          std::to_string(rows) + " x " + std::to_string(n) + ", failure injected by the test hook)",
                      static_cast<std::size_t>(rows * n) * size_of(type));
  auto it = cache.find(n);
  if (it != cache.end() && it->second.nrows == rows && it->second.device == dev) return it->second;
  // keep the buffers of one N only: a sweep over N would otherwise hold them all
  cache.clear();
  return cache.emplace(n, gd::make_dense(rows, n, Layout::row_major, type, dev)).first->second;
}

unsigned char* row_ptr(gd::DenseStorage& d, Index row) {
  return d.data.as<unsigned char>() + static_cast<std::size_t>(row * d.ncols) * size_of(d.type);
}

gd::SparseStorage host_copy(const gd::SparseStorage& s) {
  return s.device.is_cpu() ? s : gd::to_device(s, Device::cpu());
}
gd::SparseStorage placed(gd::SparseStorage s, Device dev) {
  return dev.is_cpu() ? std::move(s) : gd::to_device(s, dev);
}

// Copies entries k of `src` values into `dst` values at position `at`, by element size.
void copy_value(unsigned char* dst, Index at, const unsigned char* src, Index k, std::size_t es) {
  std::memcpy(dst + static_cast<std::size_t>(at) * es, src + static_cast<std::size_t>(k) * es, es);
}

struct Split {
  gd::SparseStorage local, remote;
  std::vector<std::vector<std::int64_t>> needed;  // per owner: global columns received from it
};

// Splits one rank's rows of A by column ownership. Remote columns get halo positions in
// increasing column order, so the halo is grouped by owner (partitions are contiguous)
// and each row's remote columns stay sorted.
Split split_part(const gd::SparseStorage& part_any, const Partition& bp, int rank, RankPlan& rp) {
  const gd::SparseStorage P = host_copy(part_any);
  const Index ob = bp.begin(rank), oe = bp.end(rank), n = P.nrows;
  const std::size_t es = size_of(P.type);
  const Index* off = P.row_offsets.as<Index>();
  const ColIndex* col = P.col_indices.as<ColIndex>();
  const auto* val = P.values.as<unsigned char>();
  std::vector<std::int32_t> halo_of(static_cast<std::size_t>(P.ncols), -1);
  Index nloc = 0, nrem = 0;
  for (Index k = 0; k < P.nvals; ++k) {
    if (col[k] >= ob && col[k] < oe) ++nloc;
    else { ++nrem; halo_of[static_cast<std::size_t>(col[k])] = 0; }
  }
  Split out;
  out.needed.resize(static_cast<std::size_t>(bp.parts()));
  rp.recv_count.assign(static_cast<std::size_t>(bp.parts()), 0);
  rp.recv_offset.assign(static_cast<std::size_t>(bp.parts()), 0);
  Index h = 0;
  int owner = 0;
  for (Index c = 0; c < P.ncols; ++c) {
    if (halo_of[static_cast<std::size_t>(c)] < 0) continue;
    while (c >= bp.end(owner)) ++owner;
    halo_of[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(h++);
    ++rp.recv_count[static_cast<std::size_t>(owner)];
    out.needed[static_cast<std::size_t>(owner)].push_back(c);
  }
  for (int q = 1; q < bp.parts(); ++q)
    rp.recv_offset[static_cast<std::size_t>(q)] = rp.recv_offset[static_cast<std::size_t>(q) - 1] + rp.recv_count[static_cast<std::size_t>(q) - 1];
  rp.halo = h;
  std::vector<Index> lo(static_cast<std::size_t>(n) + 1, 0), ro(static_cast<std::size_t>(n) + 1, 0);
  gd::RawBuffer lc(static_cast<std::size_t>(nloc) * sizeof(ColIndex), Device::cpu()), rc(static_cast<std::size_t>(nrem) * sizeof(ColIndex), Device::cpu());
  gd::RawBuffer lv(static_cast<std::size_t>(nloc) * es, Device::cpu()), rv(static_cast<std::size_t>(nrem) * es, Device::cpu());
  Index a = 0, b = 0;
  for (Index i = 0; i < n; ++i) {
    for (Index k = off[i]; k < off[i + 1]; ++k) {
      if (col[k] >= ob && col[k] < oe) {
        lc.as<ColIndex>()[a] = static_cast<ColIndex>(col[k] - ob);
        copy_value(lv.as<unsigned char>(), a++, val, k, es);
      } else {
        rc.as<ColIndex>()[b] = halo_of[static_cast<std::size_t>(col[k])];
        copy_value(rv.as<unsigned char>(), b++, val, k, es);
      }
    }
    lo[static_cast<std::size_t>(i) + 1] = a;
    ro[static_cast<std::size_t>(i) + 1] = b;
  }
  rp.own_begin = ob;
  rp.own_count = oe - ob;
  out.local = gd::adopt_csr(n, oe - ob, gd::host_buffer_from(lo), std::move(lc), std::move(lv), P.type, Device::cpu());
  out.remote = gd::adopt_csr(n, h, gd::host_buffer_from(ro), std::move(rc), std::move(rv), P.type, Device::cpu());
  return out;
}

// Owned columns first (0 .. own-1), then the halo (own ..): one product after the exchange.
gd::SparseStorage combine(const gd::SparseStorage& local_any, const gd::SparseStorage& remote_any, Index own) {
  const gd::SparseStorage L = host_copy(local_any), R = host_copy(remote_any);
  const std::size_t es = size_of(L.type);
  const Index n = L.nrows, nnz = L.nvals + R.nvals;
  std::vector<Index> o(static_cast<std::size_t>(n) + 1, 0);
  gd::RawBuffer c(static_cast<std::size_t>(nnz) * sizeof(ColIndex), Device::cpu()), v(static_cast<std::size_t>(nnz) * es, Device::cpu());
  const Index *lo = L.row_offsets.as<Index>(), *ro = R.row_offsets.as<Index>();
  Index a = 0;
  for (Index i = 0; i < n; ++i) {
    for (Index k = lo[i]; k < lo[i + 1]; ++k) {
      c.as<ColIndex>()[a] = L.col_indices.as<ColIndex>()[k];
      copy_value(v.as<unsigned char>(), a++, L.values.as<unsigned char>(), k, es);
    }
    for (Index k = ro[i]; k < ro[i + 1]; ++k) {
      c.as<ColIndex>()[a] = static_cast<ColIndex>(R.col_indices.as<ColIndex>()[k] + own);
      copy_value(v.as<unsigned char>(), a++, R.values.as<unsigned char>(), k, es);
    }
    o[static_cast<std::size_t>(i) + 1] = a;
  }
  return gd::adopt_csr(n, own + R.ncols, gd::host_buffer_from(o), std::move(c), std::move(v), L.type, Device::cpu());
}

ExchangePlan build_plan(const DistSparse& A, const Partition& bp) {
  Transport& t = A.comm.transport();
  const auto& locals = t.local_ranks();
  ExchangePlan plan;
  plan.ranks.resize(locals.size());
  std::vector<Split> splits(locals.size());
  std::vector<std::vector<std::vector<std::int64_t>>> lists(locals.size());
  agree(t, "dist::mxm (splitting A by column owner)", [&](int k) {
    const int r = locals[static_cast<std::size_t>(k)];
    splits[static_cast<std::size_t>(k)] = split_part(A.parts[static_cast<std::size_t>(k)], bp, r, plan.ranks[static_cast<std::size_t>(k)]);
    lists[static_cast<std::size_t>(k)] = std::move(splits[static_cast<std::size_t>(k)].needed);
  });
  // what every other rank needs from each local rank: the index lists, exchanged once
  const auto wanted = t.alltoall(lists);
  agree(t, "dist::mxm (building the exchange lists)", [&](int k) {
    const int r = locals[static_cast<std::size_t>(k)];
    RankPlan& rp = plan.ranks[static_cast<std::size_t>(k)];
    const Device dev = t.device(r);
    rp.send_count.assign(static_cast<std::size_t>(t.size()), 0);
    rp.send_offset.assign(static_cast<std::size_t>(t.size()), 0);
    std::vector<ColIndex> cols;
    for (int q = 0; q < t.size(); ++q) {
      rp.send_offset[static_cast<std::size_t>(q)] = static_cast<Index>(cols.size());
      for (std::int64_t c : wanted[static_cast<std::size_t>(k)][static_cast<std::size_t>(q)]) {
        if (c < rp.own_begin || c >= rp.own_begin + rp.own_count)
          throw InvalidValue("dist::mxm: rank " + std::to_string(q) + " asks rank " + std::to_string(r) + " for row " +
                             std::to_string(c) + " of B, which rank " + std::to_string(r) +
                             " does not hold (the processes disagree on B's partition)");
        cols.push_back(static_cast<ColIndex>(c - rp.own_begin));
      }
      rp.send_count[static_cast<std::size_t>(q)] = static_cast<Index>(cols.size()) - rp.send_offset[static_cast<std::size_t>(q)];
    }
    rp.send_total = static_cast<Index>(cols.size());
    std::vector<Index> o(cols.size() + 1);
    for (std::size_t i = 0; i <= cols.size(); ++i) o[i] = static_cast<Index>(i);
    // any_second never reads A's values: zeros will do
    gd::RawBuffer v(cols.size() * size_of(A.type), Device::cpu());
    if (v.bytes()) std::memset(v.data(), 0, v.bytes());
    rp.pack = placed(gd::adopt_csr(rp.send_total, rp.own_count, gd::host_buffer_from(o), gd::host_buffer_from(cols),
                                   std::move(v), A.type, Device::cpu()),
                     dev);
    Split& s = splits[static_cast<std::size_t>(k)];
    rp.local = placed(std::move(s.local), dev);
    rp.remote = placed(std::move(s.remote), dev);
  });
  return plan;
}

BinaryOpId add_op(SemiringId s) {
  switch (semiring_info(s).add) {
    case MonoidId::plus: return BinaryOpId::plus;
    case MonoidId::times: return BinaryOpId::times;
    case MonoidId::min: return BinaryOpId::min;
    case MonoidId::max: return BinaryOpId::max;
    case MonoidId::lor: return BinaryOpId::lor;
    case MonoidId::land: return BinaryOpId::land;
    case MonoidId::lxor: return BinaryOpId::lxor;
    case MonoidId::any: return BinaryOpId::any;
  }
  throw InvalidValue("dist::mxm: unknown add monoid");
}

// The product of one rank's block. A may have no columns (the rank owns no rows of B,
// or receives none): the library's mxm then writes the add's identity, as for any row
// without entries; a block without rows or columns has nothing to compute.
void block_product(gd::DenseStorage& C, const gd::SparseStorage& A, const gd::DenseStorage& B, SemiringId s,
                   const Options& o) {
  if (C.nrows == 0 || C.ncols == 0) return;
  gd::mxm(C, A, B, s, o);
}

// The phases of one product on every local rank (DistMxmOptions::timings): five marks
// per rank on its geblas stream (start, packed, owned product queued, receives in,
// remote product done), read after the product with one wait per device.
class PhaseMarks {
 public:
  PhaseMarks(Transport& t, bool on) : t_(t), on_(on) {
    if (on_) t_.set_timing(true);
  }
  ~PhaseMarks() {
    if (on_) t_.set_timing(false);
  }
  PhaseMarks(const PhaseMarks&) = delete;
  PhaseMarks& operator=(const PhaseMarks&) = delete;
  void mark(std::size_t k) {
    if (on_) t_.mark(static_cast<int>(k));
  }
  void mark_all() {
    for (std::size_t k = 0; k < t_.local_ranks().size(); ++k) mark(k);
  }
  void read(ExchangeStats& stats) {
    if (!on_) return;
    const Transport::Timeline tl = t_.timeline();
    for (std::size_t k = 0; k < tl.marks_ms.size(); ++k) {
      const auto& m = tl.marks_ms[k];  // from the first mark: packed, local, received, remote
      if (m.size() != 4) continue;
      ExchangeStats::RankTimes r;
      r.rank = t_.local_ranks()[k];
      r.pack_ms = m[0];
      r.local_ms = m[1] - m[0];
      r.wait_ms = m[2] - m[1];
      r.remote_ms = m[3] - m[2];
      r.transfer_ms = tl.transfer_ms.at(k);
      stats.times.push_back(r);
    }
  }

 private:
  Transport& t_;
  bool on_;
};

// Packs the rows local rank k's peers need from its rows of B: with the transport's row
// gather where it has one (GPU ranks: one pass over the rows, about the copy rate),
// else by the product with the selection matrix (any_second), which the CPU ranks run.
void pack(Transport& t, int k, gd::DenseStorage& packed, const RankPlan& rp, const gd::DenseStorage& own) {
  if (rp.send_total == 0 || own.ncols == 0) return;
  const std::size_t row_bytes = static_cast<std::size_t>(own.ncols) * size_of(own.type);
  if (t.pack_rows(k, packed.data.data(), own.data.data(), rp.pack.col_indices.as<ColIndex>(),
                  static_cast<std::size_t>(rp.send_total), row_bytes))
    return;
  gd::mxm(packed, rp.pack, own, SemiringId::any_second, {});
}

}  // namespace

void fail_next_allocation_on_rank(int rank) { g_fail_rank.store(rank); }

std::vector<gd::DenseStorage*> allgather_rows(const DistDense& B, ExchangeStats* stats,
                                              std::vector<std::map<Index, gd::DenseStorage>>& buffers) {
  Transport& t = B.comm.transport();
  const auto& locals = t.local_ranks();
  buffers.resize(locals.size());
  std::vector<gd::DenseStorage*> full(locals.size());
  const std::size_t row_bytes = static_cast<std::size_t>(B.ncols) * size_of(B.type);
  agree(t, "dist all-gather of B", [&](int k) {
    const int r = locals[static_cast<std::size_t>(k)];
    full[static_cast<std::size_t>(k)] =
        &buffer_for(buffers[static_cast<std::size_t>(k)], B.ncols, B.rows.size(), B.type, t.device(r), r, "all-gathered B");
    const gd::DenseStorage& own = B.parts[static_cast<std::size_t>(k)];
    const Device dev = t.device(r);
    gd::copy_bytes(row_ptr(*full[static_cast<std::size_t>(k)], B.rows.begin(r)), dev, own.data.data(), dev,
                   static_cast<std::size_t>(B.rows.count(r)) * row_bytes);
  });
  std::vector<RankTransfers> tr(locals.size());
  for (std::size_t k = 0; k < locals.size(); ++k) {
    const int r = locals[k];
    for (int q = 0; q < t.size(); ++q) {
      if (q == r) continue;
      if (B.rows.count(r) > 0 && row_bytes > 0) {
        tr[k].sends.push_back({q, B.parts[k].data.data(), static_cast<std::size_t>(B.rows.count(r)) * row_bytes});
        if (stats) {
          stats->bytes_sent += tr[k].sends.back().bytes;
          ++stats->messages;
        }
      }
      if (B.rows.count(q) > 0 && row_bytes > 0)
        tr[k].recvs.push_back({q, row_ptr(*full[k], B.rows.begin(q)), static_cast<std::size_t>(B.rows.count(q)) * row_bytes});
    }
    if (stats) stats->halo_rows += static_cast<std::uint64_t>(B.rows.size() - B.rows.count(r));
  }
  t.start(tr);
  t.finish();
  return full;
}

const gd::SparseStorage& combined_block(RankPlan& rp, Device dev) {
  if (!rp.has_combined) {
    rp.combined = placed(combine(rp.local, rp.remote, rp.own_count), dev);
    rp.has_combined = true;
  }
  return rp.combined;
}

ExchangePlan& exchange_plan(const DistSparse& A, const Partition& bp) {
  auto it = A.plans->by_b_partition.find(bp.offsets);
  if (it == A.plans->by_b_partition.end()) it = A.plans->by_b_partition.emplace(bp.offsets, build_plan(A, bp)).first;
  return it->second;
}

gd::DenseStorage dense_view(void* data, Index rows, Index ncols, TypeId type, Device dev) {
  gd::DenseStorage v;
  v.nrows = rows;
  v.ncols = ncols;
  v.ld = ncols;
  v.layout = Layout::row_major;
  v.type = type;
  v.device = dev;
  // the owner is a placeholder: borrow() needs one, and the memory outlives the view
  v.data = gd::RawBuffer::borrow(data, static_cast<std::size_t>(rows * ncols) * size_of(type), dev,
                                 std::make_shared<int>(0));
  return v;
}

ExchangeStats start_row_exchange(Transport& t, ExchangePlan& plan, const std::vector<gd::DenseStorage>& own,
                                 const std::vector<void*>& halo, Index N, TypeId type) {
  const auto& locals = t.local_ranks();
  const std::size_t row_bytes = static_cast<std::size_t>(N) * size_of(type);
  std::vector<gd::DenseStorage*> packed(locals.size());
  agree(t, "dist row exchange (packing)", [&](int k) {
    const int r = locals[static_cast<std::size_t>(k)];
    RankPlan& rp = plan.ranks[static_cast<std::size_t>(k)];
    packed[static_cast<std::size_t>(k)] = &buffer_for(rp.packed, N, rp.send_total, type, t.device(r), r, "send");
    pack(t, k, *packed[static_cast<std::size_t>(k)], rp, own[static_cast<std::size_t>(k)]);
  });
  ExchangeStats stats;
  std::vector<RankTransfers> tr(locals.size());
  for (std::size_t k = 0; k < locals.size(); ++k) {
    RankPlan& rp = plan.ranks[k];
    for (int q = 0; q < t.size() && row_bytes > 0; ++q) {
      const Index sc = rp.send_count[static_cast<std::size_t>(q)], rc = rp.recv_count[static_cast<std::size_t>(q)];
      if (sc > 0) {
        tr[k].sends.push_back({q, row_ptr(*packed[k], rp.send_offset[static_cast<std::size_t>(q)]),
                               static_cast<std::size_t>(sc) * row_bytes});
        stats.bytes_sent += tr[k].sends.back().bytes;
        ++stats.messages;
      }
      if (rc > 0)
        tr[k].recvs.push_back({q,
                               static_cast<unsigned char*>(halo[k]) +
                                   static_cast<std::size_t>(rp.recv_offset[static_cast<std::size_t>(q)]) * row_bytes,
                               static_cast<std::size_t>(rc) * row_bytes});
    }
    stats.halo_rows += static_cast<std::uint64_t>(rp.halo);
  }
  t.start(tr);
  return stats;
}

gd::DenseStorage gather(const DistDense& B) {
  std::vector<std::map<Index, gd::DenseStorage>> buffers;
  std::vector<gd::DenseStorage*> full = allgather_rows(B, nullptr, buffers);
  return gd::to_device(*full.at(0), Device::cpu());
}

ExchangeStats mxm(DistDense& C, const DistSparse& A, const DistDense& B, SemiringId s, const DistMxmOptions& o) {
  const char* where = "dist::mxm";
  Transport& t = A.comm.transport();
  t.check_usable(where);
  const auto& locals = t.local_ranks();
  agree(t, where, [&](int k) {
    if (k != 0) return;
    if (!(A.comm == B.comm) || !(A.comm == C.comm))
      throw InvalidValue("dist::mxm: C, A and B must live on the same communicator");
    if (A.type != B.type || A.type != C.type)
      throw DomainMismatch("dist::mxm: C, A and B must have the same value type");
    if (A.ncols != B.rows.size())
      throw DimensionMismatch("dist::mxm: A has " + std::to_string(A.ncols) + " columns but B has " +
                              std::to_string(B.rows.size()) + " rows");
    if (C.ncols != B.ncols)
      throw DimensionMismatch("dist::mxm: C has " + std::to_string(C.ncols) + " columns but B has " + std::to_string(B.ncols));
    if (!(C.rows == A.rows))
      throw InvalidValue("dist::mxm: C must be partitioned like the rows of A (same offsets); build C with "
                         "DistDenseMatrix(comm, A.partition(), ncols)");
    for (std::size_t j = 0; j < locals.size(); ++j)
      if (B.parts[j].ld != B.ncols || C.parts[j].ld != C.ncols || B.parts[j].layout != Layout::row_major)
        throw InvalidValue("dist::mxm: the local parts of B and C must be contiguous and row-major");
  });
  // combined in unsigned arithmetic (wraps by definition), then kept non-negative
  const std::uint64_t h = static_cast<std::uint64_t>(partition_hash(A.rows, A.ncols)) ^
                          (static_cast<std::uint64_t>(partition_hash(B.rows, B.ncols)) * 3u) ^
                          (static_cast<std::uint64_t>(s) << 8) ^ static_cast<std::uint64_t>(o.exchange);
  check_same_everywhere(t, where, "operands' partitions, semiring and exchange", static_cast<std::int64_t>(h >> 2));

  ExchangeStats stats;
  const Index N = B.ncols;
  const std::size_t row_bytes = static_cast<std::size_t>(N) * size_of(B.type);
  std::lock_guard<std::mutex> lock(A.plans->mutex);

  PhaseMarks marks(t, o.timings);
  if (o.exchange == Exchange::allgather) {
    // no packing and no owned product before the transfers: three marks at once
    for (int m = 0; m < 3; ++m) marks.mark_all();
    auto& buffers = A.plans->full_by_b_partition[B.rows.offsets];
    std::vector<gd::DenseStorage*> full = allgather_rows(B, &stats, buffers);
    marks.mark_all();
    agree(t, where, [&](int k) {
      block_product(C.parts[static_cast<std::size_t>(k)], A.parts[static_cast<std::size_t>(k)], *full[static_cast<std::size_t>(k)], s, {});
      marks.mark(static_cast<std::size_t>(k));
    });
    marks.read(stats);
    return stats;
  }

  ExchangePlan& plan = exchange_plan(A, B.rows);
  const bool combined = !o.overlap || s == SemiringId::any_second;

  std::vector<gd::DenseStorage*> packed(locals.size()), received(locals.size());
  agree(t, where, [&](int k) {
    const int r = locals[static_cast<std::size_t>(k)];
    RankPlan& rp = plan.ranks[static_cast<std::size_t>(k)];
    const Device dev = t.device(r);
    if (combined) combined_block(rp, dev);
    marks.mark(static_cast<std::size_t>(k));
    packed[static_cast<std::size_t>(k)] = &buffer_for(rp.packed, N, rp.send_total, B.type, dev, r, "send");
    received[static_cast<std::size_t>(k)] =
        &buffer_for(rp.received, N, rp.halo + (combined ? rp.own_count : 0), B.type, dev, r, "receive");
    // pack the rows others need; in the combined layout, put the owned rows first
    pack(t, static_cast<int>(k), *packed[static_cast<std::size_t>(k)], rp, B.parts[static_cast<std::size_t>(k)]);
    if (combined)
      gd::copy_bytes(received[static_cast<std::size_t>(k)]->data.data(), dev, B.parts[static_cast<std::size_t>(k)].data.data(), dev,
                     static_cast<std::size_t>(rp.own_count) * row_bytes);
    marks.mark(static_cast<std::size_t>(k));
  });

  std::vector<RankTransfers> tr(locals.size());
  for (std::size_t k = 0; k < locals.size(); ++k) {
    RankPlan& rp = plan.ranks[k];
    const Index base = combined ? rp.own_count : 0;
    for (int q = 0; q < t.size() && row_bytes > 0; ++q) {
      const Index sc = rp.send_count[static_cast<std::size_t>(q)], rc = rp.recv_count[static_cast<std::size_t>(q)];
      if (sc > 0) {
        tr[k].sends.push_back({q, row_ptr(*packed[k], rp.send_offset[static_cast<std::size_t>(q)]), static_cast<std::size_t>(sc) * row_bytes});
        stats.bytes_sent += tr[k].sends.back().bytes;
        ++stats.messages;
      }
      if (rc > 0) tr[k].recvs.push_back({q, row_ptr(*received[k], base + rp.recv_offset[static_cast<std::size_t>(q)]), static_cast<std::size_t>(rc) * row_bytes});
    }
    stats.halo_rows += static_cast<std::uint64_t>(rp.halo);
  }
  t.start(tr);
  // The owned columns' product, queued while the rows travel. A failure is held until
  // the exchange is finished, so that no rank leaves a transfer half done.
  std::vector<std::exception_ptr> errors(locals.size());
  for (std::size_t k = 0; k < locals.size(); ++k) {
    try {
      if (!combined) block_product(C.parts[k], plan.ranks[k].local, B.parts[k], s, {});
    } catch (...) {
      errors[k] = std::current_exception();
    }
    marks.mark(k);
  }
  t.finish();
  marks.mark_all();
  Options accumulate;
  accumulate.accum.op = add_op(s);
  accumulate.accum.type = B.type;
  agree(t, where, [&](int k) {
    if (errors[static_cast<std::size_t>(k)]) std::rethrow_exception(errors[static_cast<std::size_t>(k)]);
    RankPlan& rp = plan.ranks[static_cast<std::size_t>(k)];
    if (combined) block_product(C.parts[static_cast<std::size_t>(k)], rp.combined, *received[static_cast<std::size_t>(k)], s, {});
    else if (rp.halo > 0) block_product(C.parts[static_cast<std::size_t>(k)], rp.remote, *received[static_cast<std::size_t>(k)], s, accumulate);
    marks.mark(static_cast<std::size_t>(k));
  });
  marks.read(stats);
  return stats;
}

}  // namespace geblas::dist::detail
