// The one-process-per-rank logic without GPUs: run under `mpirun -np 3`, each process one
// CPU rank of Communicator::host_mpi. Every process checks the distributed products
// (both exchanges, uneven splits with empty parts, min / max exactly, plus_times within
// the fp32 bound) against its own single-device product, and that bad input raises on
// every process: a world of the wrong size, processes passing different partitions, and
// an allocation failure on one rank (that rank raises OutOfMemory, the others
// CommunicationError naming it), after which the communicator still works. Also
// PageRank and BFS against the single-device algorithms, and each process reading only
// its rows of a Matrix Market file.
#include <mpi.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <set>

#include "geblas/distributed.hpp"
#include "geblas/geblas.hpp"

using namespace geblas;

namespace {

int failures = 0;
int rank_ = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::printf("rank %d: FAILED: %s\n", rank_, what.c_str());
  }
}

SparseMatrix<float> random_matrix(Index n, Index m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);  // the same matrix on every process
  std::vector<Index> r, c;
  std::vector<float> v;
  for (Index i = 0; i < n; ++i) {
    if (i % 5 == 4) continue;
    std::set<Index> cols;
    const int want = i == 2 ? static_cast<int>(m / 2) : static_cast<int>(rng() % 9);
    for (int k = 0; k < want; ++k) cols.insert(static_cast<Index>(rng() % static_cast<std::uint64_t>(m)));
    for (Index j : cols) {
      r.push_back(i);
      c.push_back(j);
      v.push_back(static_cast<float>(1 + rng() % 7) / 4);
    }
  }
  return SparseMatrix<float>::from_tuples(n, m, r, c, v);
}

template <class S>
void check_product(const dist::Communicator& comm, const SparseMatrix<float>& A, const dist::Partition& ar,
                   const dist::Partition& br, Index N, S s, dist::DistMxmOptions o, const std::string& label) {
  const auto B = DenseMatrix<float>::random(A.ncols(), N, Device::cpu(), 9);
  auto dA = dist::DistSparseMatrix<float>::scatter(comm, A, ar);
  auto dB = dist::DistDenseMatrix<float>::scatter(comm, B, br);
  dist::DistDenseMatrix<float> dC(comm, dA.partition(), N);
  dist::mxm(dC, dA, dB, s, o);
  DenseMatrix<float> R(A.nrows(), N);
  mxm(R, A, B, s);
  const auto got = dC.gather().to_row_major(), ref = R.to_row_major();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool ok = S::id == SemiringId::plus_times ? std::abs(got[i] - ref[i]) <= 1e-5f * (1 + std::abs(ref[i])) : got[i] == ref[i];
    if (!ok && bad++ < 3) std::printf("rank %d: %s: C[%zu] = %.9g, single device %.9g\n", rank_, label.c_str(), i, got[i], ref[i]);
  }
  expect(bad == 0, label);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    try {
      dist::Communicator::host_mpi(size + 1);
      expect(false, "a world of the wrong size was accepted");
    } catch (const InvalidValue&) {
    }
    const auto comm = dist::Communicator::host_mpi(size, {.timeout_s = 30});
    const Index n = 400, m = 330;
    const auto A = random_matrix(n, m, 5);
    std::vector<Index> ua(static_cast<std::size_t>(size) + 1, n), ub(static_cast<std::size_t>(size) + 1, m);
    ua[0] = ub[0] = 0;
    for (int r = 1; r < size; ++r) {
      ua[static_cast<std::size_t>(r)] = r == 1 ? 0 : n * r / (size + 1);  // rank 0's rows empty
      ub[static_cast<std::size_t>(r)] = m * r / size;
    }
    // one rank's rows of B empty: rank 1's with 3 or more processes, else rank 0's
    if (size >= 3) ub[2] = ub[1];
    else if (size == 2) ub[1] = 0;
    const dist::Partition uneven_a(ua), uneven_b(ub);
    for (auto ex : {dist::Exchange::rows, dist::Exchange::allgather})
      for (Index N : {1, 16, 33}) {
        const std::string tag = " N=" + std::to_string(N) + " exchange=" + std::to_string(static_cast<int>(ex));
        check_product(comm, A, dist::Partition::balanced(A.row_offsets(), size), dist::Partition::even(m, size), N,
                      semiring::plus_times<float>{}, {.exchange = ex}, "plus_times balanced" + tag);
        check_product(comm, A, uneven_a, uneven_b, N, semiring::max_times<float>{}, {.exchange = ex}, "max_times uneven" + tag);
        check_product(comm, A, uneven_a, uneven_b, N, semiring::min_plus<float>{}, {.exchange = ex, .overlap = false},
                      "min_plus uneven, no overlap" + tag);
      }
    // PageRank (the all-reduce of the changes over MPI) and BFS (exact), uneven split
    {
      const auto S = random_matrix(n, n, 11);  // square: rows every 5th empty (dangling)
      auto dS = dist::DistSparseMatrix<float>::scatter(comm, S, uneven_a);
      const auto pr1 = algo::pagerank(S);
      const auto pr = dist::pagerank(dS);
      const auto ref = pr1.ranks.to_std_vector();
      const auto got = pr.ranks.gather().to_row_major();
      double err = 0;
      for (std::size_t i = 0; i < ref.size(); ++i) err = std::max(err, std::abs(double(got[i]) - double(ref[i])));
      expect(err < 1e-5 && std::abs(pr.iterations - pr1.iterations) <= 1 && pr.converged == pr1.converged,
             "pagerank: max abs diff " + std::to_string(err) + ", iterations " + std::to_string(pr.iterations) +
                 " vs " + std::to_string(pr1.iterations));
      const std::vector<Index> sources{0, 2, n - 1};
      const auto b1 = algo::bfs(S, sources);
      const auto b = dist::bfs(dS, sources);
      expect(b.levels.gather().to_row_major() == b1.levels.to_row_major() &&
                 b.parents.gather().to_row_major() == b1.parents.to_row_major() && b.depth == b1.depth,
             "bfs differs from the single-device bfs");
      // each process reads only its rows of the file (its own copy, written alike)
      const std::string path =
          "/tmp/geblas-dist-mpi-" + std::to_string(rank_) + "-" + std::to_string(getpid()) + ".mtx";
      io::write_matrix_market(path, S);
      for (const auto& split : {std::optional<dist::Partition>{}, std::optional<dist::Partition>{uneven_a}}) {
        const auto want = dist::DistSparseMatrix<float>::scatter(comm, S, split);
        const auto read = dist::DistSparseMatrix<float>::read_matrix_market(comm, path, split);
        expect(read.partition() == want.partition() && read.local(0).extract_tuples() == want.local(0).extract_tuples(),
               std::string("row-range read differs from the scatter, ") + (split ? "given split" : "default split"));
      }
      std::remove(path.c_str());
    }
    // processes that disagree on the partition: an error on every process
    {
      std::vector<Index> o = dist::Partition::even(n, size).offsets;
      if (rank_ == 0 && size >= 2) o[1] += 1;
      try {
        dist::DistSparseMatrix<float>::scatter(comm, A, dist::Partition(o));
        expect(false, "processes with different partitions were accepted");
      } catch (const InvalidValue& e) {
        if (rank_ == 0) std::printf("different partitions refused: %s\n", e.what());
      }
    }
    // one rank fails to allocate: OutOfMemory there, CommunicationError elsewhere
    {
      auto dA = dist::DistSparseMatrix<float>::scatter(comm, A);
      auto dB = dist::DistDenseMatrix<float>::scatter(comm, DenseMatrix<float>::random(m, 8, Device::cpu(), 2));
      dist::DistDenseMatrix<float> dC(comm, dA.partition(), 8);
      const int victim = size - 1;
      if (rank_ == victim) dist::detail::fail_next_allocation_on_rank(victim);
      try {
        dist::mxm(dC, dA, dB, semiring::plus_times<float>{});
        expect(false, "an allocation failure on rank " + std::to_string(victim) + " was not reported");
      } catch (const OutOfMemory& e) {
        expect(rank_ == victim, std::string("OutOfMemory on a rank that did not fail: ") + e.what());
      } catch (const dist::CommunicationError& e) {
        expect(rank_ != victim && std::string(e.what()).find(std::to_string(victim)) != std::string::npos,
               std::string("CommunicationError does not name the failed rank: ") + e.what());
      }
      check_product(comm, A, dA.partition(), dB.partition(), 8, semiring::max_plus<float>{}, {}, "after the failure");
    }
  } catch (const std::exception& e) {
    expect(false, std::string("exception: ") + e.what());
  }
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank_ == 0) std::printf("%s (%d processes)\n", any ? "FAILED" : "PASSED", size);
  MPI_Finalize();
  return any ? 1 : 0;
}
