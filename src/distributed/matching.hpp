// The pairing of an exchange's sends with its receives where every rank lives in this
// process (the host transport, and peer copies between the GPUs of Communicator::nccl):
// the k-th send from rank a to rank b is the k-th receive of b from a, the order NCCL
// pairs them in. The whole exchange is checked before anything moves, so that a wrong
// index list is an error naming the ranks and sizes, never a truncated or stray copy.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "distributed/transport.hpp"

namespace geblas::dist::detail {

// One message: from rank `from`'s `src` to rank `to`'s `dst`.
struct Copy {
  int from;
  int to;
  const void* src;
  void* dst;
  std::size_t bytes;
};

// The messages of one exchange of `size` ranks, per_local[r] being rank r's transfers, in
// the order of the senders' lists. `who` begins the messages of the errors: InvalidValue
// for a peer that is not another rank, CommunicationError for a receive without its send,
// a send without its receive, or a pair whose sizes differ.
std::vector<Copy> match_transfers(const std::vector<RankTransfers>& per_local, int size, const std::string& who);

}  // namespace geblas::dist::detail
