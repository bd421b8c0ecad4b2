// Declarations shared by the files of src/distributed/: the collectives of transports
// whose ranks all live in this process or are MPI processes, and the factories of the
// NCCL and MPI transports (or stubs that report the missing library).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "distributed/transport.hpp"

namespace geblas::dist::detail {

std::vector<std::int64_t> local_max(const std::vector<std::vector<std::int64_t>>& local);
// The sum over the local ranks of `count` doubles in host memory, written back to each.
std::vector<double> sum_local_doubles(const std::vector<double*>& per_local, int count);
std::vector<std::vector<std::vector<std::int64_t>>> local_alltoall(
    const std::vector<std::vector<std::vector<std::int64_t>>>& lists, int n);

std::shared_ptr<Transport> make_nccl_transport(std::vector<int> devices, const CommOptions& options);
std::shared_ptr<Transport> make_nccl_mpi_transport(int device, int expected_size, const CommOptions& options);
std::shared_ptr<Transport> make_host_mpi_transport(int expected_size, const CommOptions& options);

// MPI_COMM_WORLD helpers (mpi_collectives.cpp, built with MPI only): the maximum over
// processes, the all-to-all of index lists (mine[q] goes to rank q), and the world's rank
// and size, checked against `expected_size` (> 0) on every process.
std::vector<std::int64_t> mpi_max_over_ranks(const std::vector<std::int64_t>& mine);
std::vector<std::vector<std::int64_t>> mpi_alltoall(const std::vector<std::vector<std::int64_t>>& mine, int size);
void mpi_world(const char* where, int expected_size, int& rank, int& size);

}  // namespace geblas::dist::detail
