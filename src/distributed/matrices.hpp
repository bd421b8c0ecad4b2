// The state a distributed sparse matrix caches for its products, and helpers shared by
// the constructors and the product: per B partition, each local rank's A split into the
// columns it owns and the columns it receives (compact indices), and the index lists of
// the row exchange, built once; per N, the exchange buffers, kept between products.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "distributed/transport.hpp"

namespace geblas::dist::detail {

namespace gd = geblas::detail;

struct RankPlan {
  Index own_begin = 0, own_count = 0;  // the rows of B this rank holds
  gd::SparseStorage local;             // A's entries in owned columns, col - own_begin
  gd::SparseStorage remote;            // the others, col -> position in the halo
  gd::SparseStorage combined;          // every entry: owned first, then halo (built on demand)
  bool has_combined = false;
  Index halo = 0;                      // distinct remote columns
  std::vector<Index> recv_count, recv_offset;  // per peer, in halo rows
  std::vector<Index> send_count, send_offset;  // per peer, in packed rows
  Index send_total = 0;
  gd::SparseStorage pack;              // send_total x own_count selection: row k picks one B row
  // exchange buffers per N (pack, halo or combined, all-gathered B)
  std::map<Index, gd::DenseStorage> packed, received, full;
};

struct ExchangePlan {
  std::vector<RankPlan> ranks;  // per local rank
};

// What dist::sssp found of A's weights (NaN is an error, not a state).
enum class WeightSigns { unknown, nonnegative, some_negative };

struct SparsePlanCache {
  std::mutex mutex;
  std::map<std::vector<Index>, ExchangePlan> by_b_partition;
  std::map<std::vector<Index>, std::vector<std::map<Index, gd::DenseStorage>>> full_by_b_partition;
  std::shared_ptr<DistSparse> sage_mean;  // D^-1 A over A's pattern, built on first use
  // A' with its rows split like A's, built on first use by the algorithms that run on the
  // transpose (PageRank, SSSP): the set-up all-to-all moves every entry through the host,
  // seconds for tens of millions of entries, and A' keeps its own exchange plans.
  std::shared_ptr<DistSparse> transpose_by_rows;
  std::shared_ptr<DistSparse> transpose_pattern;  // A' as int64 ones, for dist::bfs
  // d / out-degree per local rank, per damping factor (dist::pagerank): built from the
  // row offsets on the host, which costs a PageRank iteration's time or more per call
  std::map<double, std::vector<gd::DenseStorage>> pagerank_scale;
  WeightSigns weight_signs = WeightSigns::unknown;  // found by dist::sssp on every rank
};

// A' with rows partitioned like A's rows, cached on A (see SparsePlanCache).
const DistSparse& cached_transpose(const DistSparse& A);

// The sum over ranks of one non-negative value per local rank (pagerank.cpp).
double sum_over_ranks(Transport& t, const std::vector<double>& mine);
std::int64_t partition_hash(const Partition& p, Index extra);
void check_same_everywhere(Transport& t, const char* where, const std::string& what, std::int64_t value);
void check_partition(const Communicator& comm, const Partition& p, Index n, const char* where, const char* what);

// The exchange plan of A's products with a B split by `bp`, built on first use (a
// collective: every process calls it) and cached in A. The caller holds A.plans->mutex.
ExchangePlan& exchange_plan(const DistSparse& A, const Partition& bp);
// The rank's block of A with owned columns first, then the halo (built on first use).
const gd::SparseStorage& combined_block(RankPlan& rp, Device dev);
// The row exchange of one product, for loops that keep B in buffers of their own: packs
// the rows each local rank's peers need from own[k] (its own_count x N rows of B,
// row-major on its device) and starts the transfers, received into halo[k] (halo x N,
// in the plan's order, grouped by owner). The caller ends it with finish() or
// finish_on_device().
ExchangeStats start_row_exchange(Transport& t, ExchangePlan& plan, const std::vector<gd::DenseStorage>& own,
                                 const std::vector<void*>& halo, Index N, TypeId type);
// A row-major rows x ncols view of memory owned elsewhere (not freed through it).
gd::DenseStorage dense_view(void* data, Index rows, Index ncols, TypeId type, Device dev);

// Every local rank receives all rows of B (a row-major nrows x ncols matrix on its
// device, kept in `buffers` per N between calls); `stats` (may be null) counts what was
// sent.
std::vector<gd::DenseStorage*> allgather_rows(const DistDense& B, ExchangeStats* stats,
                                              std::vector<std::map<Index, gd::DenseStorage>>& buffers);

}  // namespace geblas::dist::detail
