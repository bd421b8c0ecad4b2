// The one-process-per-GPU path: run under `mpirun -np 2`; each process drives one GPU
// through Communicator::nccl_mpi and the product is compared with the single-GPU one on
// every process. Also: a communicator of the wrong size is an error on every rank.
// Exit 77 (skipped) with fewer than 2 processes or fewer GPUs than processes (NCCL refuses
// two ranks on one GPU).
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "geblas/distributed.hpp"
#include "geblas/geblas.hpp"

using namespace geblas;

static int run(int rank, int size) {
  if (size < 2 || cuda_device_count() < size) {
    if (rank == 0)
      std::printf("SKIPPED: needs 2 MPI processes and a GPU for each (%d processes, %d GPUs visible)\n", size,
                  cuda_device_count());
    return 77;
  }
  try {
    dist::Communicator::nccl_mpi(-1, size + 1);
    std::printf("rank %d: FAILED: a communicator of the wrong size was accepted\n", rank);
    return 1;
  } catch (const InvalidValue& e) {
    std::printf("rank %d: wrong size refused: %s\n", rank, e.what());
  }
  const auto comm = dist::Communicator::nccl_mpi(-1, size, {.timeout_s = 60});
  std::mt19937_64 rng(7);  // same on every process
  const Index n = 5000, N = 64;
  std::vector<Index> r, c;
  std::vector<float> v;
  for (Index i = 0; i < n; ++i)
    for (int k = 0; k < 8; ++k) {
      r.push_back(i);
      c.push_back(static_cast<Index>(rng() % n));
      v.push_back(static_cast<float>(1 + rng() % 5));
    }
  const auto A = SparseMatrix<float>::from_tuples(n, n, r, c, v, binop::max<float>{});
  const auto B = DenseMatrix<float>::random(n, N, Device::cpu(), 3);
  auto dA = dist::DistSparseMatrix<float>::scatter(comm, A);
  auto dB = dist::DistDenseMatrix<float>::scatter(comm, B);
  dist::DistDenseMatrix<float> dC(comm, dA.partition(), N);
  int bad = 0;
  for (auto ex : {dist::Exchange::rows, dist::Exchange::allgather}) {
    const auto st = dist::mxm(dC, dA, dB, semiring::max_times<float>{}, {.exchange = ex});
    const auto got = dC.gather().to_row_major();
    DenseMatrix<float> R(n, N, Device::cuda(comm.device(comm.local_ranks()[0]).ordinal()));
    mxm(R, A.to(R.device()), B.to(R.device()), semiring::max_times<float>{});
    const auto ref = R.to_row_major();
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != ref[i] && bad++ < 5) std::printf("rank %d: MISMATCH at %zu: %g vs %g\n", rank, i, got[i], ref[i]);
    std::printf("rank %d: exchange %d sent %llu bytes in %llu messages\n", rank, static_cast<int>(ex),
                static_cast<unsigned long long>(st.bytes_sent), static_cast<unsigned long long>(st.messages));
  }
  // PageRank (changes summed by an NCCL all-reduce across processes) and BFS (exact)
  {
    const Device dev = Device::cuda(comm.device(comm.local_ranks()[0]).ordinal());
    const auto A1 = A.to(dev);
    const auto pr1 = algo::pagerank(A1);
    const auto pr = dist::pagerank(dA);
    const auto ref = pr1.ranks.to(Device::cpu()).to_std_vector();
    const auto got = pr.ranks.gather().to_row_major();
    double err = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) err = std::max(err, std::abs(double(got[i]) - double(ref[i])));
    if (err >= 1e-5 || std::abs(pr.iterations - pr1.iterations) > 1) {
      ++bad;
      std::printf("rank %d: PageRank MISMATCH: max abs diff %.3g, iterations %d vs %d\n", rank, err, pr.iterations,
                  pr1.iterations);
    }
    const std::vector<Index> sources{0, n / 2, n - 1};
    const auto b1 = algo::bfs(A1, sources);
    const auto b = dist::bfs(dA, sources);
    if (b.levels.gather().to_row_major() != b1.levels.to_row_major() ||
        b.parents.gather().to_row_major() != b1.parents.to_row_major()) {
      ++bad;
      std::printf("rank %d: BFS MISMATCH against algo::bfs\n", rank);
    }
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%s\n",
                any_bad ? "FAILED"
                        : "PASSED: distributed max_times, PageRank and BFS equal the single-GPU results on every rank");
  return any_bad ? 1 : 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rc = 1;
  try {
    rc = run(rank, size);
  } catch (const std::exception& e) {
    std::printf("rank %d: FAILED with an exception: %s\n", rank, e.what());
  }
  MPI_Finalize();
  return rc;
}
