// The distributed layer: a communicator over the GPUs of a node (NCCL, one process for
// all GPUs or one process per GPU under MPI) or over simulated ranks on the host, row-
// partitioned sparse and dense matrices, and the sparse x dense product across ranks
// (1-D partitioning: each rank multiplies its rows of A by the rows of B its columns
// touch, received once per product; docs/DISTRIBUTED.md). Everything here is compiled
// into libgeblas_distributed (CMake target geblas::distributed); this header pulls in no
// NCCL, MPI or CUDA header.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "geblas/algorithms/sssp.hpp"
#include "geblas/dense_matrix.hpp"
#include "geblas/semiring.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas::dist {

namespace detail {
class Transport;
struct SparsePlanCache;
}  // namespace detail

// A collective call that failed at run time (an NCCL error, a peer that did not answer
// within the timeout, a rank that reported a failure): the communicator is aborted and
// every later call on it raises this too.
class GEBLAS_API CommunicationError : public Error {
 public:
  explicit CommunicationError(const std::string& what) : Error(Info::panic, what) {}
};

// How Communicator::nccl moves the rows of an exchange between its GPUs (the set-up's
// host collectives and the sums over ranks use NCCL either way).
enum class PointToPoint {
  // peer copies where every pair of the GPUs has peer access, else NCCL
  automatic,
  // ncclSend / ncclRecv (nccl_mpi always: its ranks live in other processes)
  nccl,
  // cudaMemcpyPeerAsync on the NVLink / PCIe copy engines; InvalidValue where a pair of
  // the GPUs has no peer access or the ranks are not all in this process
  peer_copies,
};

struct CommOptions {
  // Longest wait for any NCCL step (initialisation, one exchange) before the
  // communicator is aborted and CommunicationError raised. 120 s covers NCCL's first
  // connection set-up on a busy node; a healthy exchange takes milliseconds.
  double timeout_s = 120.0;
  PointToPoint point_to_point = PointToPoint::automatic;
};

// Whether this build has the NCCL transport and the MPI bootstrap.
GEBLAS_API bool nccl_compiled();
GEBLAS_API bool mpi_compiled();

// A group of ranks. A process drives one or more of them ("local ranks"); matrices hold
// one part per local rank. Copies share the same underlying communicator.
class GEBLAS_API Communicator {
 public:
  // `nranks` ranks simulated in this process on the CPU; exchanges are host copies. It
  // runs the same partitioning, index lists and products as NCCL, so it is how the
  // distributed algorithm is tested without GPUs.
  static Communicator host(int nranks);
  // One rank per listed GPU, all driven by this process (empty: every visible GPU).
  // Exchanges go over peer copies or NCCL as options.point_to_point says; name() tells.
  static Communicator nccl(std::vector<int> devices = {}, CommOptions options = {});
  // One rank per MPI process of MPI_COMM_WORLD (MPI_Init must have been called), on GPU
  // `device` (-1: local rank modulo the visible GPUs); the NCCL id is broadcast over
  // MPI. `expected_size` > 0 makes a world of another size an error on every rank.
  static Communicator nccl_mpi(int device = -1, int expected_size = 0, CommOptions options = {});
  // One CPU rank per MPI process, exchanges over MPI: the one-process-per-rank path
  // without GPUs (tests, and hosts without NCCL).
  static Communicator host_mpi(int expected_size = 0, CommOptions options = {});

  int size() const;
  const std::vector<int>& local_ranks() const;
  Device device(int rank) const;  // only for local ranks
  // "host", "host+mpi", "nccl", "nccl+mpi", or "nccl+peer" (exchanges by peer copies)
  std::string name() const;
  bool operator==(const Communicator& o) const { return impl_ == o.impl_; }

  explicit Communicator(std::shared_ptr<detail::Transport> impl) : impl_(std::move(impl)) {}
  detail::Transport& transport() const { return *impl_; }

 private:
  std::shared_ptr<detail::Transport> impl_;
};

// A 1-D split of [0, n) into parts: part r holds [offsets[r], offsets[r+1]). Parts may
// be empty.
struct GEBLAS_API Partition {
  std::vector<Index> offsets;  // size parts + 1, non-decreasing, from 0 to n

  Partition() = default;
  explicit Partition(std::vector<Index> o);  // validates: InvalidValue when malformed
  static Partition even(Index n, int parts);
  // Split rows so that every part holds about nnz / parts entries (a lower bound on the
  // prefix sum of row lengths); `row_offsets` is a CSR offset array of n + 1 entries.
  // With `row_cost` > 0 a row counts as that many entries more (its write of C and its
  // scheduling cost as much as some entries' reads of B): the parts then balance
  // nnz + row_cost x rows, which moves rows from the parts of many short rows to the
  // parts of few long ones.
  static Partition balanced(const std::vector<Index>& row_offsets, int parts, Index row_cost = 0);
  // The split that scatter and the readers make when none is given: balanced with
  // row_cost = default_row_cost. Fitted on 2 x H200 (R-MAT 22 and 24, N = 256 and
  // PageRank; docs/DISTRIBUTED.md): 6 took the product from 1.33x / 1.30x one GPU
  // (nnz-balanced) to 1.63x / 1.53x; 8 was as fast or faster than 6 in every case after
  // (R-MAT 24: 37.0 against 38.2 ms; PageRank per iteration 1.63x against 1.58x on
  // R-MAT 22). Graphs whose rows have one length split as before.
  static constexpr Index default_row_cost = 8;
  static Partition for_products(const std::vector<Index>& row_offsets, int parts) {
    return balanced(row_offsets, parts, default_row_cost);
  }

  int parts() const { return static_cast<int>(offsets.size()) - 1; }
  Index size() const { return offsets.empty() ? 0 : offsets.back(); }
  Index begin(int r) const { return offsets[static_cast<std::size_t>(r)]; }
  Index end(int r) const { return offsets[static_cast<std::size_t>(r) + 1]; }
  Index count(int r) const { return end(r) - begin(r); }
  bool operator==(const Partition&) const = default;
};

// What a product moved between ranks (counted by this process's ranks: the whole
// communicator in the single-process modes).
struct ExchangeStats {
  std::uint64_t bytes_sent = 0;  // B rows sent over the transport
  std::uint64_t messages = 0;    // non-empty point-to-point sends
  std::uint64_t halo_rows = 0;   // rows of B received (with duplicates across ranks)
  // Where the time of one product went, per local rank, from events on the devices
  // (filled only with DistMxmOptions::timings; empty on the host transport). `transfer`
  // runs beside `local`; `wait` is how long the rank's stream waited for its receives
  // after its own work was done.
  struct RankTimes {
    int rank = 0;
    double pack_ms = 0, local_ms = 0, transfer_ms = 0, wait_ms = 0, remote_ms = 0;
  };
  std::vector<RankTimes> times;
};

enum class Exchange {
  allgather,  // every rank receives all of B (the baseline)
  rows,       // every rank receives only the rows of B its columns touch (cached lists)
};

struct DistMxmOptions {
  Exchange exchange = Exchange::rows;
  // Compute the product of the columns a rank owns while the exchange runs, then add
  // the remote columns' product with the semiring's add. Off: one product after the
  // exchange. `any_second` always runs without overlap: its add keeps the first operand,
  // so accumulating two partial products would not equal one product.
  bool overlap = true;
  // Time the phases of the product on every device (ExchangeStats::times). The product
  // then ends with a wait for the devices: for benches and tuning, not for pipelines.
  bool timings = false;
};

namespace detail {
// Type-erased state shared by the templates below, defined in the library.
struct GEBLAS_API DistSparse {
  Communicator comm;
  Partition rows;
  Index ncols = 0;
  TypeId type = TypeId::float32;
  std::vector<geblas::detail::SparseStorage> parts;  // one per local rank, in local_ranks() order
  std::shared_ptr<SparsePlanCache> plans;           // index lists per B partition
};
struct GEBLAS_API DistDense {
  Communicator comm;
  Partition rows;
  Index ncols = 0;
  TypeId type = TypeId::float32;
  std::vector<geblas::detail::DenseStorage> parts;  // row-major, one per local rank
};

GEBLAS_API DistSparse scatter(const Communicator& comm, const geblas::detail::SparseStorage& A,
                              const std::optional<Partition>& rows);
GEBLAS_API DistSparse read_matrix_market(const Communicator& comm, const std::string& path, TypeId type,
                                         const std::optional<Partition>& rows);
GEBLAS_API DistSparse read_binary(const Communicator& comm, const std::string& path, TypeId type,
                                  const std::optional<Partition>& rows, bool verify_checksum);
GEBLAS_API DistDense scatter(const Communicator& comm, const geblas::detail::DenseStorage& B,
                             const std::optional<Partition>& rows);
GEBLAS_API DistDense make_dense(const Communicator& comm, const Partition& rows, Index ncols, TypeId type);
GEBLAS_API geblas::detail::DenseStorage gather(const DistDense& B);  // to the host, every process
GEBLAS_API ExchangeStats mxm(DistDense& C, const DistSparse& A, const DistDense& B, SemiringId s,
                             const DistMxmOptions& o);
GEBLAS_API DistSparse transpose(const DistSparse& A, const Partition& rows);
// D^-1 A over A's pattern, built per rank on first use and kept with A.
GEBLAS_API const DistSparse& sage_mean_matrix(const DistSparse& A);
// Test hook: the next allocation of a product's buffers on `rank` fails as if the device
// were out of memory (-1: none).
GEBLAS_API void fail_next_allocation_on_rank(int rank);
}  // namespace detail

// The options of algo::pagerank that the distributed version has (not `weighted`).
struct PageRankOptions {
  double damping = 0.85;
  double tolerance = 1e-6;  // stop when the L1 change is below this
  int max_iterations = 100;
  // Called after every iteration with its L1 change (summed over ranks), in every process.
  std::function<void(int iteration, double change)> on_iteration{};
};
namespace detail {
struct DistPageRank {
  DistDense ranks;
  int iterations = 0;
  bool converged = false;
  double delta = 0;
};
GEBLAS_API DistPageRank pagerank(const DistSparse& A, const PageRankOptions& options);
struct DistSssp {
  DistDense distances;
  int rounds = 0;
};
GEBLAS_API DistSssp sssp(const DistSparse& A, const std::vector<Index>& sources, const algo::SsspOptions& o);
struct DistBfs {
  DistDense levels, parents;
  int depth = 0;
};
GEBLAS_API DistBfs bfs(const DistSparse& A, const std::vector<Index>& sources);
}  // namespace detail

template <Scalar T>
class DistSparseMatrix {
 public:
  // Every process passes the same host matrix (in MPI mode each keeps its own rows).
  // `rows` defaults to Partition::for_products over comm.size() parts.
  static DistSparseMatrix scatter(const Communicator& comm, const SparseMatrix<T>& A,
                                  std::optional<Partition> rows = std::nullopt) {
    return DistSparseMatrix(detail::scatter(comm, A.storage(), rows));
  }
  // Each process reads the file and keeps the rows of its ranks.
  static DistSparseMatrix read_matrix_market(const Communicator& comm, const std::string& path,
                                             std::optional<Partition> rows = std::nullopt) {
    return DistSparseMatrix(detail::read_matrix_market(comm, path, type_id<T>, rows));
  }
  // Each process keeps only the rows of its ranks of a geblas binary file
  // (io::write_binary), so a matrix larger than one process's memory loads in parts. The
  // part's structure and values are checked; `verify_checksum` also checks the whole
  // file's checksum, reading the file once in chunks (false: only the part's bytes are
  // read, and a flipped bit in a value goes unnoticed; see io::detail::read_binary_rows).
  static DistSparseMatrix read_binary(const Communicator& comm, const std::string& path,
                                      std::optional<Partition> rows = std::nullopt, bool verify_checksum = true) {
    return DistSparseMatrix(detail::read_binary(comm, path, type_id<T>, rows, verify_checksum));
  }

  Index nrows() const { return d_.rows.size(); }
  Index ncols() const { return d_.ncols; }
  const Partition& partition() const { return d_.rows; }
  const Communicator& communicator() const { return d_.comm; }
  // The part of local rank `k` (k-th of communicator().local_ranks()).
  SparseMatrix<T> local(int k) const { return SparseMatrix<T>(d_.parts.at(static_cast<std::size_t>(k))); }

  explicit DistSparseMatrix(detail::DistSparse d) : d_(std::move(d)) {}
  const detail::DistSparse& state() const { return d_; }

 private:
  detail::DistSparse d_;
};

template <Scalar T>
class DistDenseMatrix {
 public:
  DistDenseMatrix(const Communicator& comm, const Partition& rows, Index ncols)
      : d_(detail::make_dense(comm, rows, ncols, type_id<T>)) {}
  static DistDenseMatrix scatter(const Communicator& comm, const DenseMatrix<T>& B,
                                 std::optional<Partition> rows = std::nullopt) {
    return DistDenseMatrix(detail::scatter(comm, B.storage(), rows));
  }
  // All rows, on the host, in every process.
  DenseMatrix<T> gather() const { return DenseMatrix<T>(detail::gather(d_)); }

  Index nrows() const { return d_.rows.size(); }
  Index ncols() const { return d_.ncols; }
  const Partition& partition() const { return d_.rows; }
  const Communicator& communicator() const { return d_.comm; }
  DenseMatrix<T> local(int k) const { return DenseMatrix<T>(d_.parts.at(static_cast<std::size_t>(k))); }

  explicit DistDenseMatrix(detail::DistDense d) : d_(std::move(d)) {}
  detail::DistDense& state() { return d_; }
  const detail::DistDense& state() const { return d_; }

 private:
  detail::DistDense d_;
};

// C = A (+).(x) B over a built-in semiring, C and A partitioned alike by rows, B by rows
// (any split). Collective: every process calls it with its parts. Returns what moved.
template <Scalar T, BuiltinSemiring S>
ExchangeStats mxm(DistDenseMatrix<T>& C, const DistSparseMatrix<T>& A, const DistDenseMatrix<T>& B, S,
                  const DistMxmOptions& options = {}) {
  static_assert(std::is_same_v<typename S::value_type, T>, "geblas::dist::mxm: the semiring's value_type must be T");
  return detail::mxm(C.state(), A.state(), B.state(), S::id, options);
}

// A' with its rows split by `rows` (default: A's row split when A is square, else an
// even split). Collective; entries travel once, over the set-up collectives.
template <Scalar T>
DistSparseMatrix<T> transpose(const DistSparseMatrix<T>& A, std::optional<Partition> rows = std::nullopt) {
  if (!rows)
    rows = A.nrows() == A.ncols() ? A.partition() : Partition::even(A.ncols(), A.communicator().size());
  return DistSparseMatrix<T>(detail::transpose(A.state(), *rows));
}

template <Scalar T>
struct PageRankResult {
  DistDenseMatrix<T> ranks;  // n x 1, split like A's rows
  int iterations = 0;
  bool converged = false;
  double delta = 0;
};
// PageRank as algo::pagerank defines it (unweighted; dangling rank spread uniformly),
// float and double. Collective.
template <Scalar T>
PageRankResult<T> pagerank(const DistSparseMatrix<T>& A, const PageRankOptions& options = {}) {
  detail::DistPageRank r = detail::pagerank(A.state(), options);
  return {DistDenseMatrix<T>(std::move(r.ranks)), r.iterations, r.converged, r.delta};
}

template <Scalar T>
struct SsspResult {
  DistDenseMatrix<T> distances;  // n x k, column j from sources[j] (+inf: unreachable), split like A's rows
  int rounds = 0;                // Bellman-Ford rounds, the last one changing nothing
};
// Shortest paths from k sources as algo::sssp computes them for many sources (Bellman-
// Ford over min_plus, one distributed product with N = k per round, the same round loop):
// float and double; weights >= 0 unless o.allow_negative (then a negative cycle is an
// InvalidValue, as there); o.on_iteration once per round with the entries it changed,
// on every process. Collective.
template <Scalar T>
SsspResult<T> sssp(const DistSparseMatrix<T>& A, const std::vector<Index>& sources, const algo::SsspOptions& o = {}) {
  detail::DistSssp r = detail::sssp(A.state(), sources, o);
  return {DistDenseMatrix<T>(std::move(r.distances)), r.rounds};
}

struct BfsResult {
  // n x k, split like A's rows; column j from sources[j]. levels: 0 at the source, -1
  // where not reached. parents: the source is its own parent, any other reached vertex
  // its smallest in-neighbour one level up (as algo::bfs), -1 where not reached.
  DistDenseMatrix<std::int64_t> levels, parents;
  int depth = 0;  // the largest level over all sources
};
// Breadth-first search from k sources on A's pattern (A(i, j): edge i -> j), level by
// level, one distributed product with N = k per level; equal to algo::bfs exactly (its
// many-source result; one source is k = 1). Any value type. Collective.
template <Scalar T>
BfsResult bfs(const DistSparseMatrix<T>& A, const std::vector<Index>& sources) {
  detail::DistBfs r = detail::bfs(A.state(), sources);
  return {DistDenseMatrix<std::int64_t>(std::move(r.levels)), DistDenseMatrix<std::int64_t>(std::move(r.parents)),
          r.depth};
}

// GNN aggregation, as <geblas/algorithms/gnn.hpp> defines it on one device (float and
// double): Y = A_hat X for GCN (A_hat from algo::gcn_normalize, scattered), the GraphSAGE
// mean of the out-neighbours' rows of X (0 for isolated rows), and the GraphSAGE max
// (max_times; -inf for isolated rows). Y is partitioned like A's rows.
template <Scalar T>
ExchangeStats gcn_aggregate(DistDenseMatrix<T>& Y, const DistSparseMatrix<T>& A_hat, const DistDenseMatrix<T>& X,
                            const DistMxmOptions& options = {}) {
  return mxm(Y, A_hat, X, semiring::plus_times<T>{}, options);
}
template <Scalar T>
ExchangeStats sage_mean_aggregate(DistDenseMatrix<T>& Y, const DistSparseMatrix<T>& A, const DistDenseMatrix<T>& X,
                                  const DistMxmOptions& options = {}) {
  return detail::mxm(Y.state(), detail::sage_mean_matrix(A.state()), X.state(), SemiringId::plus_times, options);
}
template <Scalar T>
ExchangeStats sage_max_aggregate(DistDenseMatrix<T>& Y, const DistSparseMatrix<T>& A, const DistDenseMatrix<T>& X,
                                 const DistMxmOptions& options = {}) {
  return mxm(Y, A, X, semiring::max_times<T>{}, options);
}

}  // namespace geblas::dist
