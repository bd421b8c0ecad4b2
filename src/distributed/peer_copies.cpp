// Peer copies between the GPUs of one process (peer_copies.hpp): enabling peer access,
// and the queueing of an exchange's copies in the order Transport::start promises.
#include "distributed/peer_copies.hpp"

#include "distributed/cuda_calls.hpp"

namespace geblas::dist::detail {

std::string PeerCopies::missing_access(const std::vector<int>& devices) {
  for (int a : devices)
    for (int b : devices) {
      if (a == b) continue;
      int can = 0;
      if (const cudaError_t e = cudaDeviceCanAccessPeer(&can, a, b); e != cudaSuccess)
        return "cudaDeviceCanAccessPeer(" + std::to_string(a) + ", " + std::to_string(b) +
               "): " + cudaGetErrorString(e);
      if (!can) return "GPU " + std::to_string(a) + " has no peer access to GPU " + std::to_string(b);
    }
  return "";
}

PeerCopies::PeerCopies(std::vector<int> devices)
    : devices_(std::move(devices)),
      sent_(devices_.size(), nullptr),
      lane_(devices_.size() * devices_.size(), nullptr),
      fork_(devices_.size(), nullptr),
      join_(lane_.size(), nullptr) {
  const std::size_t n = devices_.size();
  for (std::size_t k = 0; k < n; ++k) {
    const int a = devices_[k];
    Guard g(a);
    cuda_check(cudaEventCreateWithFlags(&sent_[k], cudaEventDisableTiming), "cudaEventCreate");
    cuda_check(cudaEventCreateWithFlags(&fork_[k], cudaEventDisableTiming), "cudaEventCreate");
    for (std::size_t j = 0; j < n; ++j) {
      if (j == k) continue;
      cuda_check(cudaStreamCreateWithFlags(&lane_[k * n + j], cudaStreamNonBlocking), "cudaStreamCreate");
      cuda_check(cudaEventCreateWithFlags(&join_[k * n + j], cudaEventDisableTiming), "cudaEventCreate");
    }
    for (int b : devices_) {
      if (a == b) continue;
      // Process-wide and left on at the end: another communicator over these GPUs, or
      // the caller, may rely on it. A second communicator finds it on already.
      const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();  // not sticky: clear it
      else cuda_check(e, "cudaDeviceEnablePeerAccess");
      // Memory from a pool (cudaMallocAsync: every geblas buffer) does not follow
      // cudaDeviceEnablePeerAccess; without this its copies would be staged, not direct.
      cudaMemPool_t pool = nullptr;
      cuda_check(cudaDeviceGetMemPool(&pool, b), "cudaDeviceGetMemPool");
      cudaMemAccessDesc access{};
      access.location.type = cudaMemLocationTypeDevice;
      access.location.id = a;
      access.flags = cudaMemAccessFlagsProtReadWrite;
      cuda_check(cudaMemPoolSetAccess(pool, &access, 1), "cudaMemPoolSetAccess");
    }
  }
}

PeerCopies::~PeerCopies() {
  // the diagonal (a rank to itself) has no lane
  const std::size_t n = devices_.size();
  for (std::size_t k = 0; k < n; ++k) {
    cudaSetDevice(devices_[k]);
    if (sent_[k]) cudaEventDestroy(sent_[k]);
    if (fork_[k]) cudaEventDestroy(fork_[k]);
    for (std::size_t j = 0; j < n; ++j) {
      if (lane_[k * n + j]) cudaStreamDestroy(lane_[k * n + j]);
      if (join_[k * n + j]) cudaEventDestroy(join_[k * n + j]);
    }
  }
}

void PeerCopies::queue(const std::vector<Copy>& copies, const std::vector<cudaStream_t>& streams,
                       const std::vector<cudaEvent_t>& ready) {
  // Each copy is issued on a stream of its sender: the sender's copy engines push the rows
  // into the receiver's memory. Pushing is NVLink's posted write, where pulling would be
  // reads that each wait for their reply; and in an exchange every rank sends, so the
  // engines of every GPU work at once, each on its own outgoing rows, and both directions
  // of a link carry data together. The sender's stream already follows its own geblas
  // stream (the rows are packed); it also waits for each receiver's (the buffer is free).
  const std::size_t n = devices_.size();
  std::vector<char> pair(n * n, 0);
  for (const Copy& c : copies)
    if (c.bytes) pair[static_cast<std::size_t>(c.from) * n + static_cast<std::size_t>(c.to)] = 1;
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      if (pair[a * n + b]) {
        Guard g(devices_[a]);
        cuda_check(cudaStreamWaitEvent(streams[a], ready[b], 0), "cudaStreamWaitEvent (receive buffer free)");
      }
  // Each pair's copies go on the sender's lane for that receiver, forked from and joined
  // back to the sender's transfer stream, in the order given (per pair, as start promises).
  auto sends = [&](std::size_t a) {
    for (std::size_t b = 0; b < n; ++b)
      if (pair[a * n + b]) return true;
    return false;
  };
  for (std::size_t a = 0; a < n; ++a) {
    if (!sends(a)) continue;
    Guard g(devices_[a]);
    cuda_check(cudaEventRecord(fork_[a], streams[a]), "cudaEventRecord (copies may start)");
    for (std::size_t b = 0; b < n; ++b)
      if (pair[a * n + b]) cuda_check(cudaStreamWaitEvent(lane_[a * n + b], fork_[a], 0), "cudaStreamWaitEvent");
  }
  for (const Copy& c : copies) {
    if (!c.bytes) continue;
    const auto a = static_cast<std::size_t>(c.from), b = static_cast<std::size_t>(c.to);
    Guard g(devices_[a]);
    cuda_check(cudaMemcpyPeerAsync(c.dst, devices_[b], c.src, devices_[a], c.bytes, lane_[a * n + b]),
               "cudaMemcpyPeerAsync");
  }
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      if (pair[a * n + b]) {
        Guard g(devices_[a]);
        cuda_check(cudaEventRecord(join_[a * n + b], lane_[a * n + b]), "cudaEventRecord (copies to a peer done)");
        cuda_check(cudaStreamWaitEvent(streams[a], join_[a * n + b], 0), "cudaStreamWaitEvent");
      }
  // The receiver's stream follows its senders' copies, so that the transport's
  // completion event on it covers rank k's receives as well as its sends. (One event
  // per sender: with 3+ GPUs a receiver also waits for its senders' copies to others,
  // queued before or after its own on the same stream.)
  for (std::size_t a = 0; a < n; ++a) {
    if (!sends(a)) continue;
    Guard g(devices_[a]);
    cuda_check(cudaEventRecord(sent_[a], streams[a]), "cudaEventRecord");
  }
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      if (pair[a * n + b]) {
        Guard g(devices_[b]);
        cuda_check(cudaStreamWaitEvent(streams[b], sent_[a], 0), "cudaStreamWaitEvent (receives done)");
      }
}

}  // namespace geblas::dist::detail
