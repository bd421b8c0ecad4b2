// What the distributed tests need from the program they are linked into: the
// communicator of p ranks (host transport on the CPU, NCCL over the GPUs) and the device
// of the single-device reference product.
#pragma once

#include "geblas/distributed.hpp"

namespace disttest {
geblas::dist::Communicator communicator(int ranks);
// A communicator of its own (not shared with other tests), for tests that abort it.
geblas::dist::Communicator fresh_communicator(int ranks, double timeout_s);
int max_ranks();
geblas::Device reference_device();
}  // namespace disttest
