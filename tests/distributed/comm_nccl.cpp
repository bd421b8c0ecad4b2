// The distributed tests over NCCL, one process driving every visible GPU (ranks 1 .. the
// GPU count, at most 5), compared with the single-GPU product on cuda:0. Skipped (exit
// 77, with the reason) without NCCL or with fewer than 2 GPUs.
#if GEBLAS_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include <cstdio>
#include <map>

#include "dist_test.hpp"
#include "support/catch.hpp"

namespace disttest {
geblas::dist::Communicator communicator(int ranks) {
  // NCCL set-up costs a fraction of a second per communicator: keep one per size
  static std::map<int, geblas::dist::Communicator> made;
  auto it = made.find(ranks);
  if (it == made.end()) {
    std::vector<int> devices;
    for (int d = 0; d < ranks; ++d) devices.push_back(d);
    it = made.emplace(ranks, geblas::dist::Communicator::nccl(devices, {.timeout_s = 60})).first;
  }
  return it->second;
}
geblas::dist::Communicator fresh_communicator(int ranks, double timeout_s) {
  std::vector<int> devices;
  for (int d = 0; d < ranks; ++d) devices.push_back(d);
  return geblas::dist::Communicator::nccl(devices, {.timeout_s = timeout_s});
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
  return Catch::Session().run(argc, argv);
}
