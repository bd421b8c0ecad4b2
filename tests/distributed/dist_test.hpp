// What the distributed tests need from the program they are linked into: the
// communicator of p ranks (host transport on the CPU, NCCL over the GPUs) and the device
// of the single-device reference product.
#pragma once

#include "geblas/distributed.hpp"

namespace disttest {
geblas::dist::Communicator communicator(int ranks);
int max_ranks();
geblas::Device reference_device();
}  // namespace disttest
