// Declarations shared by the files of src/distributed/: the collectives of transports
// whose ranks all live in this process, and the NCCL transports' factories (defined in
// nccl_transport.cpp, or as stubs that report the missing backend).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "distributed/transport.hpp"

namespace geblas::dist::detail {

std::vector<std::int64_t> local_max(const std::vector<std::vector<std::int64_t>>& local);
std::vector<std::vector<std::vector<std::int64_t>>> local_alltoall(
    const std::vector<std::vector<std::vector<std::int64_t>>>& lists, int n);

std::shared_ptr<Transport> make_nccl_transport(std::vector<int> devices, const CommOptions& options);
std::shared_ptr<Transport> make_nccl_mpi_transport(int device, int expected_size, const CommOptions& options);

}  // namespace geblas::dist::detail
