// What the distributed tests need from the program they are linked into: the
// communicator of p ranks (host transport on the CPU, NCCL over the GPUs) and the device
// of the single-device reference product.
#pragma once

#include <optional>

#include "geblas/distributed.hpp"

namespace disttest {
// The communicator of p ranks most cases run on (over the GPUs: the point-to-point
// transfers the program was started with; comm_nccl.cpp says how).
geblas::dist::Communicator communicator(int ranks);
// p ranks whose exchanges go as `p2p` says; the host transport has only its memcpy and
// ignores the choice. nullopt, after printing why, where this machine cannot give them
// (peer copies between GPUs without peer access).
std::optional<geblas::dist::Communicator> communicator(int ranks, geblas::dist::PointToPoint p2p);
// A communicator of its own (not shared with other tests), for tests that abort it.
geblas::dist::Communicator fresh_communicator(int ranks, double timeout_s,
                                              geblas::dist::PointToPoint p2p = geblas::dist::PointToPoint::automatic);
int max_ranks();
geblas::Device reference_device();
}  // namespace disttest
