// The MPI side of the distributed layer: the host-level collectives of transports whose
// ranks are MPI processes (a maximum over ranks, the all-to-all of index lists), and the
// host transport over MPI: one CPU rank per process, the exchange through MPI_Isend /
// MPI_Irecv polled with a deadline. The latter runs the one-process-per-rank logic (the
// path to many nodes: per-process partitions, agreement, index lists) without GPUs.
#include <mpi.h>

#include <chrono>
#include <climits>
#include <cstring>
#include <thread>

#include "distributed/internal.hpp"

namespace geblas::dist::detail {

namespace {

void mpi_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw CommunicationError(std::string("dist (mpi): ") + what + " failed with code " + std::to_string(rc));
}

// MPI counts are int: larger messages go as consecutive pieces (MPI keeps their order
// between one pair of ranks on one tag).
constexpr std::size_t kPieceBytes = std::size_t(1) << 30;

class HostMpiTransport final : public Transport {
 public:
  HostMpiTransport(int rank, int size, CommOptions opt) : size_(size), ranks_{rank}, opt_(opt) {}
  std::string name() const override { return "host+mpi"; }
  int size() const override { return size_; }
  const std::vector<int>& local_ranks() const override { return ranks_; }
  Device device(int) const override { return Device::cpu(); }
  std::vector<std::int64_t> max_over_ranks(const std::vector<std::vector<std::int64_t>>& local) override {
    return mpi_max_over_ranks(local_max(local));
  }
  std::vector<std::vector<std::vector<std::int64_t>>> alltoall(
      const std::vector<std::vector<std::vector<std::int64_t>>>& lists) override {
    return {mpi_alltoall(lists.at(0), size_)};
  }
  void start(const std::vector<RankTransfers>& per_local) override {
    check_usable("dist exchange");
    const RankTransfers& t = per_local.at(0);
    for (const Recv& r : t.recvs)
      for (std::size_t at = 0; at < r.bytes; at += kPieceBytes) {
        requests_.emplace_back();
        mpi_check(MPI_Irecv(static_cast<char*>(r.data) + at, static_cast<int>(std::min(kPieceBytes, r.bytes - at)), MPI_BYTE,
                            r.peer, kTag, MPI_COMM_WORLD, &requests_.back()),
                  "MPI_Irecv");
      }
    for (const Send& s : t.sends)
      for (std::size_t at = 0; at < s.bytes; at += kPieceBytes) {
        requests_.emplace_back();
        mpi_check(MPI_Isend(static_cast<const char*>(s.data) + at, static_cast<int>(std::min(kPieceBytes, s.bytes - at)),
                            MPI_BYTE, s.peer, kTag, MPI_COMM_WORLD, &requests_.back()),
                  "MPI_Isend");
      }
  }
  void finish() override {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(opt_.timeout_s));
    int done = 0;
    while (!requests_.empty()) {
      mpi_check(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall");
      if (done) break;
      if (std::chrono::steady_clock::now() > deadline) {
        // MPI cannot withdraw a posted send; the communicator is unusable from here
        aborted_ = true;
        for (auto& r : requests_)
          if (r != MPI_REQUEST_NULL) MPI_Cancel(&r);
        requests_.clear();
        throw CommunicationError("dist (host+mpi): the exchange on rank " + std::to_string(ranks_[0]) + " did not finish within " +
                                 std::to_string(opt_.timeout_s) + " s; the communicator is aborted");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    requests_.clear();
  }
  std::vector<double> sum_doubles(const std::vector<double*>& per_local, int count) override {
    check_usable("dist sum over ranks");
    finish();
    std::vector<double> mine = sum_local_doubles(per_local, count), all(mine.size(), 0.0);
    // nonblocking, polled to the deadline like the exchange: a missing rank is an error
    MPI_Request req;
    mpi_check(MPI_Iallreduce(mine.data(), all.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req),
              "MPI_Iallreduce");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                                 std::chrono::duration<double>(opt_.timeout_s));
    for (int done = 0;;) {
      mpi_check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) break;
      if (std::chrono::steady_clock::now() > deadline) {
        aborted_ = true;
        throw CommunicationError("dist (host+mpi): the sum over ranks on rank " + std::to_string(ranks_[0]) +
                                 " did not finish within " + std::to_string(opt_.timeout_s) +
                                 " s; the communicator is aborted");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    for (double* p : per_local)
      if (count > 0) std::memcpy(p, all.data(), all.size() * sizeof(double));
    return all;
  }
  void check_usable(const char* where) const override {
    if (aborted_) throw CommunicationError(std::string(where) + ": the communicator was aborted after an exchange timed out");
  }

 private:
  static constexpr int kTag = 0x6765;  // "ge"
  int size_;
  std::vector<int> ranks_;
  CommOptions opt_;
  std::vector<MPI_Request> requests_;
  bool aborted_ = false;
};

}  // namespace

std::vector<std::int64_t> mpi_max_over_ranks(const std::vector<std::int64_t>& mine) {
  std::vector<std::int64_t> out(mine.size());
  mpi_check(MPI_Allreduce(mine.data(), out.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD),
            "MPI_Allreduce");
  return out;
}

std::vector<std::vector<std::int64_t>> mpi_alltoall(const std::vector<std::vector<std::int64_t>>& mine, int size) {
  if (static_cast<int>(mine.size()) != size) throw InvalidValue("alltoall: a rank's lists do not cover every rank");
  const auto n = static_cast<std::size_t>(size);
  std::vector<int> sc(n), rc(n), sd(n), rd(n);
  std::vector<std::int64_t> flat;
  for (std::size_t q = 0; q < n; ++q) {
    if (flat.size() + mine[q].size() > static_cast<std::size_t>(INT_MAX))
      throw NotImplemented("dist (mpi): index lists beyond 2^31 entries per process");
    sd[q] = static_cast<int>(flat.size());
    sc[q] = static_cast<int>(mine[q].size());
    flat.insert(flat.end(), mine[q].begin(), mine[q].end());
  }
  mpi_check(MPI_Alltoall(sc.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Alltoall");
  long long total = 0;
  for (std::size_t q = 0; q < n; ++q) {
    rd[q] = static_cast<int>(total);
    total += rc[q];
  }
  if (total > INT_MAX) throw NotImplemented("dist (mpi): index lists beyond 2^31 entries per process");
  std::vector<std::int64_t> in(static_cast<std::size_t>(total));
  mpi_check(MPI_Alltoallv(flat.data(), sc.data(), sd.data(), MPI_INT64_T, in.data(), rc.data(), rd.data(), MPI_INT64_T,
                          MPI_COMM_WORLD),
            "MPI_Alltoallv");
  std::vector<std::vector<std::int64_t>> out(n);
  for (std::size_t q = 0; q < n; ++q) out[q].assign(in.begin() + rd[q], in.begin() + rd[q] + rc[q]);
  return out;
}

void mpi_world(const char* where, int expected_size, int& rank, int& size) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) throw InvalidValue(std::string(where) + ": MPI_Init has not been called");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // every process decides from the same facts, so all raise or none does
  if (expected_size > 0 && size != expected_size)
    throw InvalidValue(std::string(where) + ": the MPI world has " + std::to_string(size) + " processes, expected " +
                       std::to_string(expected_size) + " (rank " + std::to_string(rank) + ")");
}

std::shared_ptr<Transport> make_host_mpi_transport(int expected_size, const CommOptions& options) {
  const char* where = "dist::Communicator::host_mpi";
  if (!(options.timeout_s > 0)) throw InvalidValue(std::string(where) + ": timeout_s must be > 0");
  if (options.point_to_point == PointToPoint::peer_copies)
    throw InvalidValue(std::string(where) +
                       ": PointToPoint::peer_copies needs the GPUs of one process (Communicator::nccl)");
  int rank = 0, size = 0;
  mpi_world(where, expected_size, rank, size);
  return std::make_shared<HostMpiTransport>(rank, size, options);
}

}  // namespace geblas::dist::detail
