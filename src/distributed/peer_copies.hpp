// Point-to-point transfers between the GPUs of one process as peer copies
// (cudaMemcpyPeerAsync with peer access enabled): the copy engines move the rows over
// NVLink directly (391 GB/s per direction both ways on 2 x H200, bench_link), where
// NCCL's send / recv run as kernels and were 7-10% slower (docs/DISTRIBUTED.md). Used by the NCCL transport of
// Communicator::nccl in place of ncclSend / ncclRecv when every pair of its GPUs has
// peer access; the transport keeps its streams, events and bounded waits.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "distributed/matching.hpp"

namespace geblas::dist::detail {

class PeerCopies {
 public:
  // Why the GPUs `devices` cannot all reach each other's memory, or "" when every
  // ordered pair has peer access (cudaDeviceCanAccessPeer).
  static std::string missing_access(const std::vector<int>& devices);

  // Enables peer access between every pair of `devices` (which must pass
  // missing_access), for cudaMalloc'd memory and for the memory pools geblas allocates
  // from; rank k of the exchanges is devices[k].
  explicit PeerCopies(std::vector<int> devices);
  ~PeerCopies();
  PeerCopies(const PeerCopies&) = delete;
  PeerCopies& operator=(const PeerCopies&) = delete;

  // Queues `copies` (from match_transfers; ranks index `devices`) on the transfer
  // streams, streams[k] being a stream of devices[k] that already waits for `ready[k]`,
  // an event recorded on geblas's stream of that device after the work queued so far.
  // On return, streams[k] is ordered after every copy out of and into rank k: an event
  // recorded on it next marks rank k's part of the exchange done.
  void queue(const std::vector<Copy>& copies, const std::vector<cudaStream_t>& streams,
             const std::vector<cudaEvent_t>& ready);

 private:
  std::vector<int> devices_;
  std::vector<cudaEvent_t> sent_;  // per rank: recorded after its copies of an exchange
  // Per ordered pair (a, b), index a * n + b: a stream of devices[a] for a's copies to b,
  // the event that starts it after a's transfer stream, and the one that joins it back.
  // One stream per destination lets a sender's copy engines push to its peers at once
  // (on one stream the copies to 3 peers ran one after another: 145-156 GB/s per rank
  // on 4 x H200, against 263-291 with one peer).
  std::vector<cudaStream_t> lane_;
  std::vector<cudaEvent_t> fork_, join_;
};

}  // namespace geblas::dist::detail
