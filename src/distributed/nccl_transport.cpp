// The NCCL transport: one rank per GPU, either all driven by this process or one per MPI
// process (MPI broadcasts the NCCL id and carries the set-up's host collectives).
// Communicators are nonblocking (ncclConfig_t.blocking = 0), so that every NCCL step can
// be bounded: the host polls ncclCommGetAsyncError and the exchange's completion event
// until a deadline, then aborts the communicators (ncclCommAbort) and raises
// CommunicationError instead of hanging. The single-process communicator is built with
// grouped ncclCommInitRankConfig calls, the nonblocking equivalent of ncclCommInitAll.
// Transfers run on a stream of their own per GPU, ordered after the work already queued
// on geblas's stream by an event, and the geblas stream waits for the receives. Where
// every rank is in this process and every pair of GPUs has peer access, the point-to-
// point transfers are peer copies on the same streams instead (peer_copies.hpp).
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#if defined(GEBLAS_WITH_MPI)
#include <mpi.h>
#endif

#include "distributed/cuda_calls.hpp"
#include "distributed/internal.hpp"
#include "distributed/matching.hpp"
#include "distributed/peer_copies.hpp"
#include "distributed/row_gather.hpp"
#include "geblas/detail/spmm_variants.hpp"

namespace geblas::dist::detail {

namespace {

using Clock = std::chrono::steady_clock;

// Between polls of an event: yield for the first 2 ms (an exchange or a reduction of a
// PageRank step completes in tens of microseconds, and a 50 us sleep was a large share
// of it), then sleep, so that a long wait does not hold a core.
void pause_after(Clock::time_point since) {
  if (Clock::now() - since < std::chrono::milliseconds(2)) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::microseconds(50));
}

class NcclTransport final : public Transport {
 public:
  // `peer`: exchanges by peer copies (every rank in this process, every pair of GPUs
  // with peer access, as make_nccl_transport has checked).
  NcclTransport(int size, std::vector<int> ranks, std::vector<int> devices, CommOptions opt, bool mpi, bool peer)
      : size_(size), ranks_(std::move(ranks)), devices_(std::move(devices)), opt_(opt), mpi_(mpi) {
    if (peer) peer_ = std::make_unique<PeerCopies>(devices_);
  }
  ~NcclTransport() override {
    // Finalize every local communicator first, then wait for all (finalizing one rank
    // may wait for its peers), bounded; a communicator that does not finish is aborted.
    std::vector<bool> finalizing(comms_.size(), false);
    for (std::size_t k = 0; k < comms_.size(); ++k) {
      if (!comms_[k]) continue;
      cudaSetDevice(devices_[k]);
      const ncclResult_t f = ncclCommFinalize(comms_[k]);
      finalizing[k] = f == ncclSuccess || f == ncclInProgress;
    }
    const auto end = Clock::now() + std::chrono::seconds(10);
    for (std::size_t k = 0; k < comms_.size(); ++k) {
      if (!comms_[k]) continue;
      cudaSetDevice(devices_[k]);
      ncclResult_t st = finalizing[k] ? ncclInProgress : ncclInternalError;
      while (st == ncclInProgress && Clock::now() < end) {
        if (ncclCommGetAsyncError(comms_[k], &st) != ncclSuccess) st = ncclInternalError;
        if (st == ncclInProgress) std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
      if (st == ncclSuccess) ncclCommDestroy(comms_[k]);
      else ncclCommAbort(comms_[k]);
    }
    for (std::size_t k = 0; k < streams_.size(); ++k) {
      cudaSetDevice(devices_[k]);
      if (ready_[k]) cudaEventDestroy(ready_[k]);
      if (done_[k]) cudaEventDestroy(done_[k]);
      if (streams_[k]) cudaStreamDestroy(streams_[k]);
    }
    for (std::size_t k = 0; k < timing_events_.size(); ++k) {
      cudaSetDevice(devices_[k]);
      for (cudaEvent_t e : timing_events_[k]) cudaEventDestroy(e);
    }
    for (SumSlot& slot : sums_) {
      for (std::size_t k = 0; k < slot.done.size(); ++k) {
        cudaSetDevice(devices_[k]);
        if (slot.done[k]) cudaEventDestroy(slot.done[k]);
      }
      if (slot.host) cudaFreeHost(slot.host);
    }
  }

  // Creates the communicators: `id` is shared by every rank (ncclGetUniqueId on one).
  void init(const ncclUniqueId& id) {
    const std::size_t n = ranks_.size();
    comms_.assign(n, nullptr);
    streams_.assign(n, nullptr);
    ready_.assign(n, nullptr);
    done_.assign(n, nullptr);
    for (std::size_t k = 0; k < n; ++k) {
      Guard g(devices_[k]);
      cuda_check(cudaStreamCreateWithFlags(&streams_[k], cudaStreamNonBlocking), "cudaStreamCreate");
      cuda_check(cudaEventCreateWithFlags(&ready_[k], cudaEventDisableTiming), "cudaEventCreate");
      cuda_check(cudaEventCreateWithFlags(&done_[k], cudaEventDisableTiming), "cudaEventCreate");
    }
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    nccl_check(ncclGroupStart(), "ncclGroupStart", -1);
    for (std::size_t k = 0; k < n; ++k) {
      Guard g(devices_[k]);
      const ncclResult_t r = ncclCommInitRankConfig(&comms_[k], size_, id, ranks_[k], &config);
      if (r != ncclSuccess && r != ncclInProgress) {
        ncclGroupEnd();
        nccl_check(r, "ncclCommInitRankConfig", ranks_[k]);
      }
    }
    const ncclResult_t g = ncclGroupEnd();
    if (g != ncclSuccess && g != ncclInProgress) nccl_check(g, "ncclGroupEnd (initialisation)", -1);
    wait_comms("initialisation");
  }

  std::string name() const override { return mpi_ ? "nccl+mpi" : peer_ ? "nccl+peer" : "nccl"; }
  int size() const override { return size_; }
  const std::vector<int>& local_ranks() const override { return ranks_; }
  Device device(int rank) const override { return Device::cuda(devices_[static_cast<std::size_t>(local_index(rank))]); }

  std::vector<std::int64_t> max_over_ranks(const std::vector<std::vector<std::int64_t>>& local) override {
    std::vector<std::int64_t> m = local_max(local);
#if defined(GEBLAS_WITH_MPI)
    if (mpi_) return mpi_max_over_ranks(m);
#endif
    return m;
  }

  std::vector<std::vector<std::vector<std::int64_t>>> alltoall(
      const std::vector<std::vector<std::vector<std::int64_t>>>& lists) override {
#if defined(GEBLAS_WITH_MPI)
    if (mpi_) return {mpi_alltoall(lists.at(0), size_)};
#endif
    return local_alltoall(lists, size_);
  }

  void start(const std::vector<RankTransfers>& per_local) override {
    check_usable("dist exchange");
    if (peer_) {
      start_peer_copies(per_local);
      return;
    }
    // the transfers read what geblas's stream wrote (packed rows) and write what it
    // will read
    order_after_geblas_streams();
    mark_transfers(0);
    nccl_check(ncclGroupStart(), "ncclGroupStart", -1);
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      Guard g(devices_[k]);
      for (const Send& s : per_local[k].sends) group_call(ncclSend(s.data, s.bytes, ncclInt8, s.peer, comms_[k], streams_[k]), "ncclSend", k);
      for (const Recv& r : per_local[k].recvs) group_call(ncclRecv(r.data, r.bytes, ncclInt8, r.peer, comms_[k], streams_[k]), "ncclRecv", k);
    }
    const ncclResult_t e = ncclGroupEnd();
    if (e != ncclSuccess && e != ncclInProgress) fail(e, "ncclGroupEnd (exchange)", -1);
    wait_comms("exchange launch");
    mark_transfers(1);
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      Guard g(devices_[k]);
      cuda_check(cudaEventRecord(done_[k], streams_[k]), "cudaEventRecord");
    }
    pending_ = true;
  }

  void set_timing(bool on) override {
    timing_ = on;
    marks_used_.assign(ranks_.size(), 0);
    if (timing_events_.empty()) timing_events_.resize(ranks_.size());
  }

  void mark(int k) override {
    if (!timing_) return;
    const auto K = static_cast<std::size_t>(k);
    Guard g(devices_[K]);
    auto gs = static_cast<cudaStream_t>(geblas::detail::cuda_stream_handle(devices_[K]));
    cuda_check(cudaEventRecord(timing_event(K, 2 + marks_used_[K]++), gs), "cudaEventRecord (timing)");
  }

  Timeline timeline() override {
    Timeline t;
    if (!timing_) return t;
    t.marks_ms.resize(ranks_.size());
    t.transfer_ms.assign(ranks_.size(), 0.0);
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      Guard g(devices_[k]);
      auto elapsed = [&](cudaEvent_t a, cudaEvent_t b) {
        cuda_check(cudaEventSynchronize(b), "cudaEventSynchronize (timing)");
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
        return static_cast<double>(ms);
      };
      for (std::size_t m = 1; m < marks_used_[k]; ++m)
        t.marks_ms[k].push_back(elapsed(timing_events_[k][2], timing_events_[k][2 + m]));
      if (transfers_timed_) t.transfer_ms[k] = elapsed(timing_events_[k][0], timing_events_[k][1]);
    }
    marks_used_.assign(ranks_.size(), 0);
    transfers_timed_ = false;
    return t;
  }

  bool pack_rows(int k, void* dst, const void* src, const std::int32_t* index, std::size_t rows,
                 std::size_t row_bytes) override {
    const auto K = static_cast<std::size_t>(k);
    Guard g(devices_[K]);
    gather_rows(geblas::detail::cuda_stream_handle(devices_[K]), dst, src, index, rows, row_bytes);
    return true;
  }

  void finish() override {
    if (!pending_) return;
    pending_ = false;
    const auto deadline = Clock::now() + timeout();
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      Guard g(devices_[k]);
      wait_event(done_[k], k, deadline, "the exchange");
    }
    order_geblas_streams_after_exchange();
  }

  void finish_on_device() override {
    if (!pending_) return;
    pending_ = false;
    order_geblas_streams_after_exchange();
    // the receives are covered by the next bounded wait: read_sum and finish poll the
    // communicators' errors, and work queued on a transfer stream runs after them
  }

  std::vector<double> sum_doubles(const std::vector<double*>& per_local, int count) override {
    return read_sum(queue_sum_doubles(per_local, count));
  }

  int queue_sum_doubles(const std::vector<double*>& per_local, int count) override {
    check_usable("dist sum over ranks");
    finish_on_device();
    const int ticket = next_sum_;
    next_sum_ ^= 1;
    SumSlot& slot = sums_[ticket];
    if (slot.queued) read_sum(ticket);  // the oldest sum, never read: its buffers are reused
    slot.count = std::max(count, 0);
    slot.queued = true;
    if (slot.count == 0) return ticket;
    if (slot.capacity < static_cast<std::size_t>(count)) {
      if (slot.host) cudaFreeHost(slot.host);
      slot.host = nullptr;
      slot.capacity = 0;
      cuda_check(cudaMallocHost(reinterpret_cast<void**>(&slot.host), static_cast<std::size_t>(count) * sizeof(double)),
                 "cudaMallocHost");
      slot.capacity = static_cast<std::size_t>(count);
    }
    if (slot.done.empty()) {
      slot.done.assign(ranks_.size(), nullptr);
      for (std::size_t k = 0; k < ranks_.size(); ++k) {
        Guard g(devices_[k]);
        cuda_check(cudaEventCreateWithFlags(&slot.done[k], cudaEventDisableTiming), "cudaEventCreate");
      }
    }
    order_after_geblas_streams();  // (geblas's stream already waits for the exchange)
    nccl_check(ncclGroupStart(), "ncclGroupStart", -1);
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      Guard g(devices_[k]);
      group_call(ncclAllReduce(per_local[k], per_local[k], static_cast<std::size_t>(count), ncclFloat64, ncclSum,
                               comms_[k], streams_[k]),
                 "ncclAllReduce", k);
    }
    const ncclResult_t e = ncclGroupEnd();
    if (e != ncclSuccess && e != ncclInProgress) fail(e, "ncclGroupEnd (sum over ranks)", -1);
    wait_comms("sum over ranks launch");
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      Guard g(devices_[k]);
      if (k == 0)
        cuda_check(cudaMemcpyAsync(slot.host, per_local[0], static_cast<std::size_t>(count) * sizeof(double),
                                   cudaMemcpyDeviceToHost, streams_[0]),
                   "cudaMemcpyAsync (sum over ranks)");
      cuda_check(cudaEventRecord(slot.done[k], streams_[k]), "cudaEventRecord");
      // the next step on this device may overwrite the buffer only after the reduction
      auto gs = static_cast<cudaStream_t>(geblas::detail::cuda_stream_handle(devices_[k]));
      cuda_check(cudaStreamWaitEvent(gs, slot.done[k], 0), "cudaStreamWaitEvent");
    }
    return ticket;
  }

  std::vector<double> read_sum(int ticket) override {
    if (ticket < 0 || ticket > 1 || !sums_[ticket].queued)
      throw InvalidValue("dist sum over ranks: read of a sum that was not queued or was read already");
    SumSlot& slot = sums_[ticket];
    slot.queued = false;
    if (slot.count == 0) return {};
    const auto deadline = Clock::now() + timeout();
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      Guard g(devices_[k]);
      wait_event(slot.done[k], k, deadline, "the sum over ranks");
    }
    return std::vector<double>(slot.host, slot.host + slot.count);
  }

  void check_usable(const char* where) const override {
    if (aborted_) throw CommunicationError(std::string(where) + ": the communicator was aborted after an earlier failure (" + abort_reason_ + ")");
  }

 private:
  // start() over peer copies: the pairing is checked before anything is queued (a
  // mismatch raises and leaves the communicator usable); a copy that cannot be queued
  // leaves the exchange half issued, so it aborts the communicator like an NCCL failure.
  void start_peer_copies(const std::vector<RankTransfers>& per_local) {
    const std::vector<Copy> copies = match_transfers(per_local, size_, "dist exchange (" + name() + ")");
    try {
      order_after_geblas_streams();
      mark_transfers(0);
      peer_->queue(copies, streams_, ready_);
      mark_transfers(1);
      for (std::size_t k = 0; k < ranks_.size(); ++k) {
        Guard g(devices_[k]);
        cuda_check(cudaEventRecord(done_[k], streams_[k]), "cudaEventRecord");
      }
    } catch (const Error& e) {
      abort_all(std::string("queueing the peer copies: ") + e.what());
    }
    pending_ = true;
  }

  // Timing events of local rank k: 0 and 1 bracket the transfers on the transport's
  // stream, 2.. are the marks on geblas's stream; created on first use, kept.
  cudaEvent_t timing_event(std::size_t k, std::size_t slot) {
    auto& ev = timing_events_[k];
    while (ev.size() <= slot) {
      cudaEvent_t e = nullptr;
      cuda_check(cudaEventCreate(&e), "cudaEventCreate (timing)");
      ev.push_back(e);
    }
    return ev[slot];
  }
  void mark_transfers(std::size_t slot) {
    if (!timing_) return;
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      Guard g(devices_[k]);
      cuda_check(cudaEventRecord(timing_event(k, slot), streams_[k]), "cudaEventRecord (timing)");
    }
    transfers_timed_ = slot == 1;
  }

  std::chrono::nanoseconds timeout() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(opt_.timeout_s));
  }

  // Polls `event` of local rank k until it completes, raising on an NCCL error and
  // aborting at the deadline.
  void wait_event(cudaEvent_t event, std::size_t k, Clock::time_point deadline, const char* what) {
    const auto since = Clock::now();
    for (;;) {
      const cudaError_t q = cudaEventQuery(event);
      if (q == cudaSuccess) return;
      if (q != cudaErrorNotReady) cuda_check(q, "cudaEventQuery");
      ncclResult_t st = ncclSuccess;
      ncclCommGetAsyncError(comms_[k], &st);
      if (st != ncclSuccess && st != ncclInProgress) fail(st, what, ranks_[k]);
      if (Clock::now() > deadline)
        abort_all(std::string(what) + " on rank " + std::to_string(ranks_[k]) + " did not finish within " +
                  std::to_string(opt_.timeout_s) + " s (a peer is missing, failed or waits for other messages)");
      pause_after(since);
    }
  }

  // Orders each rank's later work after its receives.
  void order_geblas_streams_after_exchange() {
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      Guard g(devices_[k]);
      auto gs = static_cast<cudaStream_t>(geblas::detail::cuda_stream_handle(devices_[k]));
      cuda_check(cudaStreamWaitEvent(gs, done_[k], 0), "cudaStreamWaitEvent");
    }
  }

  // Orders each NCCL stream after everything queued so far on geblas's stream of its device.
  void order_after_geblas_streams() {
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      Guard g(devices_[k]);
      auto gs = static_cast<cudaStream_t>(geblas::detail::cuda_stream_handle(devices_[k]));
      cuda_check(cudaEventRecord(ready_[k], gs), "cudaEventRecord");
      cuda_check(cudaStreamWaitEvent(streams_[k], ready_[k], 0), "cudaStreamWaitEvent");
    }
  }

  void group_call(ncclResult_t r, const char* what, std::size_t k) {
    if (r != ncclSuccess && r != ncclInProgress) {
      ncclGroupEnd();
      fail(r, what, ranks_[k]);
    }
  }

  // Polls every local communicator until its pending operation is issued, bounded.
  void wait_comms(const char* what) {
    const auto since = Clock::now(), deadline = since + timeout();
    for (std::size_t k = 0; k < comms_.size(); ++k) {
      for (;;) {
        ncclResult_t st = ncclSuccess;
        const ncclResult_t q = ncclCommGetAsyncError(comms_[k], &st);
        if (q != ncclSuccess) fail(q, what, ranks_[k]);
        if (st == ncclSuccess) break;
        if (st != ncclInProgress) fail(st, what, ranks_[k]);
        if (Clock::now() > deadline)
          abort_all(std::string(what) + " on rank " + std::to_string(ranks_[k]) + " did not complete within " +
                    std::to_string(opt_.timeout_s) + " s (are all ranks started, with one GPU each?)");
        pause_after(since);
      }
    }
  }

  void nccl_check(ncclResult_t r, const char* what, int rank) {
    if (r != ncclSuccess) fail(r, what, rank);
  }

  [[noreturn]] void fail(ncclResult_t r, const std::string& what, int rank) {
    abort_all(what + (rank >= 0 ? " on rank " + std::to_string(rank) : std::string()) + ": " + ncclGetErrorString(r) +
              " (" + ncclGetLastError(nullptr) + ")");
  }

  [[noreturn]] void abort_all(const std::string& reason) {
    if (!aborted_) {
      aborted_ = true;
      abort_reason_ = reason;
      for (std::size_t k = 0; k < comms_.size(); ++k) {
        if (!comms_[k]) continue;
        cudaSetDevice(devices_[k]);
        ncclCommAbort(comms_[k]);
        comms_[k] = nullptr;
      }
    }
    throw CommunicationError("dist (" + name() + "): " + reason + "; the communicator is aborted");
  }


  int size_;
  std::vector<int> ranks_, devices_;
  CommOptions opt_;
  bool mpi_;
  std::unique_ptr<PeerCopies> peer_;  // null: exchanges by ncclSend / ncclRecv
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> ready_, done_;
  bool pending_ = false;
  bool aborted_ = false;
  bool timing_ = false, transfers_timed_ = false;
  std::vector<std::vector<cudaEvent_t>> timing_events_;  // per local rank (timing_event)
  std::vector<std::size_t> marks_used_;
  // The sums over ranks in flight (queue_sum_doubles' tickets 0 and 1): a pinned
  // read-back buffer and a completion event per local rank each.
  struct SumSlot {
    double* host = nullptr;
    std::size_t capacity = 0;
    int count = 0;
    bool queued = false;
    std::vector<cudaEvent_t> done;
  };
  SumSlot sums_[2];
  int next_sum_ = 0;
  std::string abort_reason_;
};

void check_options(const CommOptions& o, const char* where) {
  if (!(o.timeout_s > 0)) throw InvalidValue(std::string(where) + ": timeout_s must be > 0");
}

}  // namespace

std::shared_ptr<Transport> make_nccl_transport(std::vector<int> devices, const CommOptions& options) {
  const char* where = "dist::Communicator::nccl";
  check_options(options, where);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  if (devices.empty())
    for (int d = 0; d < count; ++d) devices.push_back(d);
  if (devices.empty()) throw InvalidValue(std::string(where) + ": no CUDA device is visible");
  for (std::size_t k = 0; k < devices.size(); ++k) {
    if (devices[k] < 0 || devices[k] >= count)
      throw InvalidValue(std::string(where) + ": device " + std::to_string(devices[k]) + " is not one of the " +
                         std::to_string(count) + " visible GPUs");
    for (std::size_t j = 0; j < k; ++j)
      if (devices[j] == devices[k])
        throw InvalidValue(std::string(where) + ": device " + std::to_string(devices[k]) + " is listed twice (one rank per GPU)");
  }
  std::vector<int> ranks(devices.size());
  for (std::size_t k = 0; k < ranks.size(); ++k) ranks[k] = static_cast<int>(k);
  bool peer = false;
  if (options.point_to_point != PointToPoint::nccl) {
    const std::string missing = PeerCopies::missing_access(devices);
    if (options.point_to_point == PointToPoint::peer_copies && !missing.empty())
      throw InvalidValue(std::string(where) + ": PointToPoint::peer_copies: " + missing +
                         " (PointToPoint::automatic falls back to NCCL there)");
    // one GPU has nothing to copy: automatic keeps the plain NCCL communicator
    peer = missing.empty() && (devices.size() > 1 || options.point_to_point == PointToPoint::peer_copies);
  }
  auto t = std::make_shared<NcclTransport>(static_cast<int>(devices.size()), ranks, devices, options, false, peer);
  ncclUniqueId id;
  if (const ncclResult_t r = ncclGetUniqueId(&id); r != ncclSuccess)
    throw CommunicationError(std::string(where) + ": ncclGetUniqueId: " + ncclGetErrorString(r));
  t->init(id);
  return t;
}

std::shared_ptr<Transport> make_nccl_mpi_transport(int device, int expected_size, const CommOptions& options) {
  const char* where = "dist::Communicator::nccl_mpi";
#if defined(GEBLAS_WITH_MPI)
  check_options(options, where);
  if (options.point_to_point == PointToPoint::peer_copies)
    throw InvalidValue(std::string(where) +
                       ": PointToPoint::peer_copies needs every rank in this process "
                       "(Communicator::nccl); the ranks of nccl_mpi exchange over NCCL");
  int rank = 0, size = 0;
  mpi_world(where, expected_size, rank, size);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  std::string problem;
  if (device < 0) {
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    int local_rank = 0;
    MPI_Comm_rank(local, &local_rank);
    MPI_Comm_free(&local);
    device = count > 0 ? local_rank % count : -1;
  }
  if (device < 0 || device >= count)
    problem = "rank " + std::to_string(rank) + " has no GPU " + std::to_string(device) + " (" + std::to_string(count) + " visible)";
  int bad = problem.empty() ? 0 : 1, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_bad) throw InvalidValue(std::string(where) + ": " + (problem.empty() ? "another rank has no usable GPU" : problem));
  ncclUniqueId id;
  int id_ok = 1;
  if (rank == 0) id_ok = ncclGetUniqueId(&id) == ncclSuccess ? 1 : 0;
  MPI_Bcast(&id_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!id_ok) throw CommunicationError(std::string(where) + ": ncclGetUniqueId failed on rank 0");
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  auto t =
      std::make_shared<NcclTransport>(size, std::vector<int>{rank}, std::vector<int>{device}, options, true, false);
  t->init(id);
  return t;
#else
  (void)device;
  (void)expected_size;
  (void)options;
  throw NotImplemented(std::string(where) + ": geblas was built without MPI (configure with GEBLAS_MPI=ON and an MPI installation)");
#endif
}

}  // namespace geblas::dist::detail
