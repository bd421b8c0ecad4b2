// The NCCL transports' factories in a build without NCCL (no CUDA, or no libnccl): they
// report what is missing; the host transport works in every build.
#include "distributed/internal.hpp"

namespace geblas::dist::detail {

// The vector by value: the declaration of internal.hpp, whose NCCL definition keeps it.
std::shared_ptr<Transport> make_nccl_transport(std::vector<int>, const CommOptions&) {  // NOLINT(performance-unnecessary-value-param)
  throw NotImplemented("dist::Communicator::nccl: geblas was built without NCCL (needs the CUDA backend and libnccl)");
}

std::shared_ptr<Transport> make_nccl_mpi_transport(int, int, const CommOptions&) {
  throw NotImplemented("dist::Communicator::nccl_mpi: geblas was built without NCCL (needs the CUDA backend, libnccl and MPI)");
}

}  // namespace geblas::dist::detail
