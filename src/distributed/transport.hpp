// The transport interface the distributed algorithms are written against: host-level
// collectives for the set-up (agreement on a status, all-to-all of index lists) and
// grouped point-to-point transfers of device buffers for the products. Implemented by
// the host transport (simulated ranks, memcpy) and by NCCL (one process for all GPUs,
// or one per GPU with MPI for the host-level collectives).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "geblas/distributed.hpp"
#include "geblas/error.hpp"

namespace geblas::dist::detail {

struct Send {
  int peer;
  const void* data;
  std::size_t bytes;
};
struct Recv {
  int peer;
  void* data;
  std::size_t bytes;
};
// The transfers of one local rank in one exchange.
struct RankTransfers {
  std::vector<Send> sends;
  std::vector<Recv> recvs;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::string name() const = 0;
  virtual int size() const = 0;
  virtual const std::vector<int>& local_ranks() const = 0;
  virtual Device device(int rank) const = 0;

  // Host-level collectives (set-up and agreement; never on the data path).
  // The element-wise maximum over all ranks of each rank's values (every local rank
  // contributes one vector of the same length).
  virtual std::vector<std::int64_t> max_over_ranks(const std::vector<std::vector<std::int64_t>>& local) = 0;
  // lists[k][q] is what local rank k sends to rank q; returns, for each local rank k,
  // what every rank q sent to it.
  virtual std::vector<std::vector<std::vector<std::int64_t>>> alltoall(
      const std::vector<std::vector<std::vector<std::int64_t>>>& lists) = 0;

  // Starts the transfers of every local rank (per_local[k] for local rank k), ordered
  // after the work already queued on each rank's device; returns at once where the
  // transport is asynchronous.
  virtual void start(const std::vector<RankTransfers>& per_local) = 0;
  // Packs the rows a local rank sends: row i of `dst` = row index[i] of `src` (rows of
  // row_bytes bytes on local rank k's device), queued on its current geblas stream.
  // Returns false where the transport has no kernel for it (host ranks): the caller then
  // packs with a product by a selection matrix.
  virtual bool pack_rows(int /*k*/, void* /*dst*/, const void* /*src*/, const std::int32_t* /*index*/,
                         std::size_t /*rows*/, std::size_t /*row_bytes*/) {
    return false;
  }

  // Makes later work on each local rank's device wait for its receives, waiting on the
  // host at most the timeout; raises CommunicationError (and aborts) otherwise.
  virtual void finish() = 0;
  // finish() without the host wait: later work on each local rank's device is ordered
  // after its receives, and the host goes on queueing. The caller must end the sequence
  // with a bounded wait (finish() or sum_doubles()), which covers these receives too: an
  // exchange that never completes still raises CommunicationError there. For loops that
  // queue several steps per host wait (dist::pagerank, dist::bfs).
  virtual void finish_on_device() { finish(); }
  // The element-wise sum over all ranks of `count` doubles each local rank holds on its
  // device (per_local[k], local rank k), read after the work already queued on its
  // device: every rank's buffer receives the sums, which are returned to the host with
  // one bounded wait (the timeout), also covering any exchange left by
  // finish_on_device(). The convergence and frontier counts of the iterative algorithms:
  // one all-reduce and one read-back per step instead of one per rank.
  virtual std::vector<double> sum_doubles(const std::vector<double*>& per_local, int count) = 0;
  // sum_doubles in two halves, so that the host queues the next step while the devices
  // sum this one: queue_sum_doubles queues the sum and its read-back and returns a
  // ticket at once; read_sum(ticket) waits for it (bounded, as sum_doubles) and returns
  // the sums. Two sums may be in flight; queueing a third waits for the oldest, read or
  // not, and reading a ticket twice (or one never queued) is an InvalidValue. Transports
  // without devices sum at once (the defaults below).
  virtual int queue_sum_doubles(const std::vector<double*>& per_local, int count) {
    next_ticket_ ^= 1;
    queued_sums_[next_ticket_] = sum_doubles(per_local, count);
    unread_[next_ticket_] = true;
    return next_ticket_;
  }
  virtual std::vector<double> read_sum(int ticket) {
    if (ticket < 0 || ticket > 1 || !unread_[ticket])
      throw InvalidValue("dist sum over ranks: read of a sum that was not queued or was read already");
    unread_[ticket] = false;
    return queued_sums_[ticket];
  }

  // Phase timing of a product (DistMxmOptions::timings). While on, mark(k) records a
  // point on local rank k's geblas stream and each start() times its transfers on the
  // transport's streams; timeline() waits for them, returns per local rank the
  // milliseconds from its first mark to each later one and the last transfers'
  // duration, and forgets them. Transports without devices record nothing.
  struct Timeline {
    std::vector<std::vector<double>> marks_ms;
    std::vector<double> transfer_ms;
  };
  virtual void set_timing(bool) {}
  virtual void mark(int) {}
  virtual Timeline timeline() { return {}; }

  // Throws CommunicationError when an earlier failure aborted the communicator.
  virtual void check_usable(const char* where) const = 0;

  int local_index(int rank) const {
    const auto& l = local_ranks();
    for (std::size_t k = 0; k < l.size(); ++k)
      if (l[k] == rank) return static_cast<int>(k);
    return -1;
  }

 private:
  std::vector<double> queued_sums_[2];
  bool unread_[2] = {false, false};
  int next_ticket_ = 0;
};

// Runs `body(k)` for every local rank; a failure on one is turned, after every rank has
// reported, into the same exception on every process: no rank starts a collective
// step that another has given up on. Messages name the failing ranks.
template <class Body>
void agree(Transport& t, const char* where, Body&& body) {
  const auto& locals = t.local_ranks();
  std::vector<std::exception_ptr> errors(locals.size());
  std::vector<std::vector<std::int64_t>> flags(locals.size(), std::vector<std::int64_t>(static_cast<std::size_t>(t.size()), 0));
  for (std::size_t k = 0; k < locals.size(); ++k) {
    try {
      body(static_cast<int>(k));
    } catch (...) {
      errors[k] = std::current_exception();
      flags[k][static_cast<std::size_t>(locals[k])] = 1;
    }
  }
  const std::vector<std::int64_t> failed = t.max_over_ranks(flags);
  std::string names;
  for (std::size_t r = 0; r < failed.size(); ++r)
    if (failed[r]) names += (names.empty() ? "" : ", ") + std::to_string(r);
  if (names.empty()) return;
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);  // this process's own error, as raised
  throw CommunicationError(std::string(where) + ": rank(s) " + names +
                           " failed (their process reports why); no rank started the collective step");
}

}  // namespace geblas::dist::detail
