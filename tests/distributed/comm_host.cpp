// The distributed tests over the host transport: up to 5 simulated ranks on the CPU,
// compared with the CPU's single-device product.
#if GEBLAS_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include <cstdio>

#include "dist_test.hpp"
#include "support/catch.hpp"

namespace disttest {
geblas::dist::Communicator communicator(int ranks) { return geblas::dist::Communicator::host(ranks); }
std::optional<geblas::dist::Communicator> communicator(int ranks, geblas::dist::PointToPoint) {
  return geblas::dist::Communicator::host(ranks);
}
geblas::dist::Communicator fresh_communicator(int ranks, double, geblas::dist::PointToPoint) {
  return geblas::dist::Communicator::host(ranks);
}
int max_ranks() { return 5; }
geblas::Device reference_device() { return geblas::Device::cpu(); }
}  // namespace disttest

int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
