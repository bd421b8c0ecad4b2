// The distributed tests over NCCL, one process driving every visible GPU (ranks 1 .. the
// GPU count, at most 5), compared with the single-GPU product on cuda:0. Skipped (exit
// 77, with the reason) without NCCL or with fewer than 2 GPUs. GEBLAS_DIST_TEST_P2P picks
// the point-to-point transfers of the communicators most cases use: auto (default: peer
// copies where the GPUs have peer access), nccl or peer; ctest runs the program with auto
// (test_distributed_gpu) and with nccl (test_distributed_gpu_nccl).
#if GEBLAS_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include "dist_test.hpp"
#include "support/catch.hpp"

namespace {

using geblas::dist::PointToPoint;

std::optional<PointToPoint> chosen_p2p() {
  const char* env = std::getenv("GEBLAS_DIST_TEST_P2P");
  const std::string v = env ? env : "auto";
  if (v == "auto") return PointToPoint::automatic;
  if (v == "nccl") return PointToPoint::nccl;
  if (v == "peer") return PointToPoint::peer_copies;
  return std::nullopt;
}

std::vector<int> first_gpus(int ranks) {
  std::vector<int> devices;
  for (int d = 0; d < ranks; ++d) devices.push_back(d);
  return devices;
}

}  // namespace

namespace disttest {
std::optional<geblas::dist::Communicator> communicator(int ranks, PointToPoint p2p) {
  // NCCL set-up costs a fraction of a second per communicator: keep one per size and kind
  static std::map<std::pair<int, PointToPoint>, std::optional<geblas::dist::Communicator>> made;
  auto it = made.find({ranks, p2p});
  if (it == made.end()) {
    std::optional<geblas::dist::Communicator> c;
    try {
      c = geblas::dist::Communicator::nccl(first_gpus(ranks), {.timeout_s = 60, .point_to_point = p2p});
    } catch (const geblas::InvalidValue& e) {
      std::printf("SKIPPED the cases over this communicator of %d ranks: %s\n", ranks, e.what());
    }
    it = made.emplace(std::make_pair(ranks, p2p), std::move(c)).first;
  }
  return it->second;
}
geblas::dist::Communicator communicator(int ranks) {
  const auto c = communicator(ranks, *chosen_p2p());
  if (!c) throw geblas::InvalidValue("GEBLAS_DIST_TEST_P2P asks for a communicator this machine cannot give");
  return *c;
}
geblas::dist::Communicator fresh_communicator(int ranks, double timeout_s, PointToPoint p2p) {
  return geblas::dist::Communicator::nccl(first_gpus(ranks), {.timeout_s = timeout_s, .point_to_point = p2p});
}
int max_ranks() { return std::min(5, geblas::cuda_device_count()); }
geblas::Device reference_device() { return geblas::Device::cuda(0); }
}  // namespace disttest

int main(int argc, char** argv) {
  if (!geblas::dist::nccl_compiled()) {
    std::printf("SKIPPED: geblas was built without the NCCL transport (no CUDA or no libnccl)\n");
    return 77;
  }
  if (geblas::cuda_device_count() < 2) {
    std::printf("SKIPPED: the multi-GPU tests need at least 2 GPUs, this machine has %d\n", geblas::cuda_device_count());
    return 77;
  }
  if (!chosen_p2p()) {
    std::printf("GEBLAS_DIST_TEST_P2P=%s: expected auto, nccl or peer\n", std::getenv("GEBLAS_DIST_TEST_P2P"));
    return 2;
  }
  const auto c = disttest::communicator(2, *chosen_p2p());
  if (!c) {
    std::printf("SKIPPED: GEBLAS_DIST_TEST_P2P=peer, but these GPUs have no peer access\n");
    return 77;
  }
  std::printf("exchanges of the shared communicators: %s\n", c->name().c_str());
  return Catch::Session().run(argc, argv);
}
