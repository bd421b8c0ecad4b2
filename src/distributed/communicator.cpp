// Communicator factories, partitions, and the host transport: ranks simulated in one
// process on the CPU, whose exchanges are memcpy. The host transport matches every
// receive with its sender's send of the same size (matching.hpp), so a wrong index list
// is an error here exactly where NCCL would hang or corrupt.
#include <algorithm>
#include <cstring>

#include "distributed/internal.hpp"
#include "distributed/matching.hpp"
#include "distributed/transport.hpp"

namespace geblas::dist {

namespace detail {
namespace {

class HostTransport final : public Transport {
 public:
  explicit HostTransport(int n) : n_(n) {
    for (int r = 0; r < n; ++r) locals_.push_back(r);
  }
  std::string name() const override { return "host"; }
  int size() const override { return n_; }
  const std::vector<int>& local_ranks() const override { return locals_; }
  Device device(int) const override { return Device::cpu(); }
  std::vector<std::int64_t> max_over_ranks(const std::vector<std::vector<std::int64_t>>& local) override {
    return local_max(local);
  }
  std::vector<std::vector<std::vector<std::int64_t>>> alltoall(
      const std::vector<std::vector<std::vector<std::int64_t>>>& lists) override {
    return local_alltoall(lists, n_);
  }
  void start(const std::vector<RankTransfers>& per_local) override {
    for (const Copy& c : match_transfers(per_local, n_, "host transport"))
      if (c.bytes) std::memcpy(c.dst, c.src, c.bytes);
  }
  void finish() override {}
  std::vector<double> sum_doubles(const std::vector<double*>& per_local, int count) override {
    return sum_local_doubles(per_local, count);
  }
  void check_usable(const char*) const override {}

 private:
  int n_;
  std::vector<int> locals_;
};

}  // namespace

std::vector<std::int64_t> local_max(const std::vector<std::vector<std::int64_t>>& local) {
  std::vector<std::int64_t> out = local.empty() ? std::vector<std::int64_t>{} : local[0];
  for (const auto& v : local) {
    if (v.size() != out.size()) throw InvalidValue("max_over_ranks: ranks contribute vectors of different lengths");
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = std::max(out[i], v[i]);
  }
  return out;
}

std::vector<double> sum_local_doubles(const std::vector<double*>& per_local, int count) {
  std::vector<double> sum(static_cast<std::size_t>(std::max(count, 0)), 0.0);
  for (double* p : per_local)
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += p[i];
  for (double* p : per_local)
    if (!sum.empty()) std::memcpy(p, sum.data(), sum.size() * sizeof(double));
  return sum;
}

std::vector<std::vector<std::vector<std::int64_t>>> local_alltoall(
    const std::vector<std::vector<std::vector<std::int64_t>>>& lists, int n) {
  std::vector<std::vector<std::vector<std::int64_t>>> out(lists.size(),
                                                          std::vector<std::vector<std::int64_t>>(static_cast<std::size_t>(n)));
  for (std::size_t r = 0; r < lists.size(); ++r) {
    if (static_cast<int>(lists[r].size()) != n) throw InvalidValue("alltoall: a rank's lists do not cover every rank");
    for (int q = 0; q < n; ++q) out[static_cast<std::size_t>(q)][r] = lists[r][static_cast<std::size_t>(q)];
  }
  return out;
}

}  // namespace detail

Communicator Communicator::host(int nranks) {
  if (nranks < 1) throw InvalidValue("Communicator::host: " + std::to_string(nranks) + " ranks (needs at least 1)");
  return Communicator(std::make_shared<detail::HostTransport>(nranks));
}

Communicator Communicator::nccl(std::vector<int> devices, CommOptions options) {
  return Communicator(detail::make_nccl_transport(std::move(devices), options));
}

Communicator Communicator::nccl_mpi(int device, int expected_size, CommOptions options) {
  return Communicator(detail::make_nccl_mpi_transport(device, expected_size, options));
}

Communicator Communicator::host_mpi(int expected_size, CommOptions options) {
  return Communicator(detail::make_host_mpi_transport(expected_size, options));
}

int Communicator::size() const { return impl_->size(); }
const std::vector<int>& Communicator::local_ranks() const { return impl_->local_ranks(); }
Device Communicator::device(int rank) const {
  if (impl_->local_index(rank) < 0)
    throw InvalidIndex("Communicator::device: rank " + std::to_string(rank) + " is not driven by this process");
  return impl_->device(rank);
}
std::string Communicator::name() const { return impl_->name(); }

Partition::Partition(std::vector<Index> o) : offsets(std::move(o)) {
  if (offsets.size() < 2 || offsets.front() != 0)
    throw InvalidValue("Partition: offsets must start at 0 and name at least one part (got " +
                       std::to_string(offsets.size()) + " offsets)");
  for (std::size_t r = 1; r < offsets.size(); ++r)
    if (offsets[r] < offsets[r - 1])
      throw InvalidValue("Partition: offsets decrease at part " + std::to_string(r - 1) + " (" +
                         std::to_string(offsets[r - 1]) + " > " + std::to_string(offsets[r]) + ")");
}

Partition Partition::even(Index n, int parts) {
  if (parts < 1 || n < 0) throw InvalidValue("Partition::even: " + std::to_string(parts) + " parts of " + std::to_string(n));
  std::vector<Index> o(static_cast<std::size_t>(parts) + 1);
  for (int r = 0; r <= parts; ++r) o[static_cast<std::size_t>(r)] = n * r / parts;
  return Partition(std::move(o));
}

Partition Partition::balanced(const std::vector<Index>& row_offsets, int parts, Index row_cost) {
  if (parts < 1 || row_offsets.empty()) throw InvalidValue("Partition::balanced: needs parts >= 1 and n + 1 row offsets");
  if (row_cost < 0) throw InvalidValue("Partition::balanced: row_cost must be >= 0, not " + std::to_string(row_cost));
  const Index n = static_cast<Index>(row_offsets.size()) - 1;
  // the cost of rows [0, i): their entries plus row_cost each; non-decreasing in i
  auto cost = [&](Index i) { return row_offsets[static_cast<std::size_t>(i)] + row_cost * i; };
  const Index total = cost(n);
  std::vector<Index> o(static_cast<std::size_t>(parts) + 1, n);
  o[0] = 0;
  for (int r = 1; r < parts; ++r) {
    // first row whose prefix reaches r/parts of the cost; rows break ties by count so
    // that a matrix without entries (and no row cost) still splits its rows evenly
    const Index target = total * r / parts;
    Index lo = 0, hi = n;
    while (lo < hi) {
      const Index mid = lo + (hi - lo) / 2;
      if (cost(mid) < target) lo = mid + 1;
      else hi = mid;
    }
    Index i = lo;
    if (total == 0) i = n * r / parts;
    o[static_cast<std::size_t>(r)] = std::clamp(i, o[static_cast<std::size_t>(r) - 1], n);
  }
  return Partition(std::move(o));
}

}  // namespace geblas::dist

namespace geblas::dist {
bool nccl_compiled() {
#if defined(GEBLAS_WITH_NCCL)
  return true;
#else
  return false;
#endif
}
bool mpi_compiled() {
#if defined(GEBLAS_WITH_MPI)
  return true;
#else
  return false;
#endif
}
}  // namespace geblas::dist
