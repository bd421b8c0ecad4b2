// The MPI transports' factory in a build without MPI: it reports what is missing.
#include "distributed/internal.hpp"

namespace geblas::dist::detail {

std::shared_ptr<Transport> make_host_mpi_transport(int, const CommOptions&) {
  throw NotImplemented("dist::Communicator::host_mpi: geblas was built without MPI (GEBLAS_MPI=OFF or no MPI found)");
}

}  // namespace geblas::dist::detail
