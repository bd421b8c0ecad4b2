// The pairing of sends with receives for transports whose ranks are all in this process
// (matching.hpp says which, and why the whole exchange is checked first).
#include "distributed/matching.hpp"

namespace geblas::dist::detail {

std::vector<Copy> match_transfers(const std::vector<RankTransfers>& per_local, int size, const std::string& who) {
  if (static_cast<int>(per_local.size()) != size)
    throw InvalidValue(who + ": transfers for " + std::to_string(per_local.size()) + " of " + std::to_string(size) +
                       " ranks");
  const auto n = static_cast<std::size_t>(size);
  // sent[a * n + b]: rank a's sends to rank b, in its list's order
  std::vector<std::vector<const Send*>> sent(n * n);
  for (std::size_t a = 0; a < n; ++a)
    for (const Send& s : per_local[a].sends) {
      if (s.peer < 0 || s.peer >= size || static_cast<std::size_t>(s.peer) == a)
        throw InvalidValue(who + ": rank " + std::to_string(a) + " sends to rank " + std::to_string(s.peer));
      sent[a * n + static_cast<std::size_t>(s.peer)].push_back(&s);
    }
  std::vector<std::size_t> used(n * n, 0);
  std::vector<Copy> copies;
  for (std::size_t b = 0; b < n; ++b)
    for (const Recv& r : per_local[b].recvs) {
      if (r.peer < 0 || r.peer >= size || static_cast<std::size_t>(r.peer) == b)
        throw InvalidValue(who + ": rank " + std::to_string(b) + " receives from rank " + std::to_string(r.peer));
      const auto a = static_cast<std::size_t>(r.peer);
      const std::vector<const Send*>& list = sent[a * n + b];
      std::size_t& k = used[a * n + b];
      if (k >= list.size())
        throw CommunicationError(who + ": rank " + std::to_string(b) + " expects message #" + std::to_string(k + 1) +
                                 " from rank " + std::to_string(a) + ", which sends it " + std::to_string(list.size()) +
                                 " message(s) (over NCCL this exchange would hang)");
      const Send* s = list[k++];
      if (s->bytes != r.bytes)
        throw CommunicationError(who + ": message #" + std::to_string(k) + " from rank " + std::to_string(a) +
                                 " to rank " + std::to_string(b) + " has " + std::to_string(s->bytes) +
                                 " bytes, where rank " + std::to_string(b) + " expects " + std::to_string(r.bytes));
      copies.push_back({static_cast<int>(a), static_cast<int>(b), s->data, r.data, r.bytes});
    }
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      if (used[a * n + b] != sent[a * n + b].size())
        throw CommunicationError(who + ": rank " + std::to_string(a) + " sends " +
                                 std::to_string(sent[a * n + b].size()) + " message(s) to rank " + std::to_string(b) +
                                 ", which receives " + std::to_string(used[a * n + b]) +
                                 " (over NCCL this exchange would hang)");
  return copies;
}

}  // namespace geblas::dist::detail
