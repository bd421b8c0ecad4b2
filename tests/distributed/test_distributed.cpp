// The distributed product against the single-device one: every element of C, for 1..5
// ranks, even, nnz-balanced and uneven splits (empty parts included), B split unlike A,
// both exchanges, with and without overlap, every built-in semiring but lor_land (bool
// only); plus_times and plus_second within the fp32 bound, min / max and counts exactly, any_second checked to
// return one of its row's candidates. Also the bytes moved (counted independently from
// the matrix), per-rank Matrix Market reading and the bad-input errors.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>
#include <set>

#include <unistd.h>

#include "dist_test.hpp"
#include "distributed/transport.hpp"
#include "geblas/geblas.hpp"
#include "support/catch.hpp"
#include "support/data.hpp"

using namespace geblas;
using dist::Communicator;
using dist::Partition;

namespace {

// A random n x m matrix: about `per_row` entries a row, every 7th row empty, row 3 dense
// (one heavy row), values in [-2, 2] or small integers.
SparseMatrix<float> random_matrix(Index n, Index m, int per_row, std::uint64_t seed, bool integers) {
  std::mt19937_64 rng(seed);
  std::vector<Index> r, c;
  std::vector<float> v;
  for (Index i = 0; i < n; ++i) {
    if (i % 7 == 6) continue;
    std::set<Index> cols;
    const int want = i == 3 ? static_cast<int>(m * 3 / 4) : static_cast<int>(rng() % (2 * per_row + 1));
    for (int k = 0; k < want; ++k) cols.insert(static_cast<Index>(rng() % static_cast<std::uint64_t>(m)));
    for (Index j : cols) {
      r.push_back(i);
      c.push_back(j);
      v.push_back(integers ? static_cast<float>(1 + rng() % 4) : std::uniform_real_distribution<float>(-2, 2)(rng));
    }
  }
  return SparseMatrix<float>::from_tuples(n, m, r, c, v);
}

DenseMatrix<float> random_dense(Index n, Index k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(static_cast<std::size_t>(n * k));
  for (auto& x : v) x = std::uniform_real_distribution<float>(-3, 3)(rng);
  return DenseMatrix<float>::from_row_major(n, k, v);
}

struct Case {
  std::string what;
  Partition a_rows, b_rows;
};

// The partitions a test runs for p ranks: balanced, even, uneven with empty parts, and
// B split unlike A.
std::vector<Case> cases_for(const SparseMatrix<float>& A, int p) {
  const Index n = A.nrows(), m = A.ncols();
  std::vector<Case> out;
  out.push_back({"balanced", Partition::balanced(A.row_offsets(), p), Partition::even(m, p)});
  out.push_back({"even", Partition::even(n, p), Partition::even(m, p)});
  if (p >= 2) {
    // rank 0 and the last rank empty on A's side, rank 1 empty on B's side
    std::vector<Index> a(static_cast<std::size_t>(p) + 1, n), b(static_cast<std::size_t>(p) + 1, m);
    a[0] = 0;
    b[0] = 0;
    for (int r = 1; r < p; ++r) {
      a[static_cast<std::size_t>(r)] = r == 1 ? 0 : std::min(n, a[static_cast<std::size_t>(r) - 1] + n / (2 * p) + 5 * r);
      b[static_cast<std::size_t>(r)] = r == 1 ? m / 3 : (r == 2 ? m / 3 : std::min(m, b[static_cast<std::size_t>(r) - 1] + m / (3 * p)));
    }
    if (p >= 3) a[static_cast<std::size_t>(p) - 1] = n;  // the last part empty
    out.push_back({"uneven with empty parts", Partition(a), Partition(b)});
  }
  return out;
}

// Checks the product over `comm` (p ranks) against the single-device one; returns it.
template <class S>
std::vector<float> check_against_single_device(const SparseMatrix<float>& A, const DenseMatrix<float>& B, S s,
                                               const std::string& label, const Communicator& comm, const Case& cs,
                                               const dist::DistMxmOptions& opt) {
  const Device ref_dev = disttest::reference_device();
  DenseMatrix<float> R(A.nrows(), B.ncols(), ref_dev);
  mxm(R, A.to(ref_dev), B.to(ref_dev), s);
  const std::vector<float> ref = R.to_row_major();

  const int p = comm.size();
  auto dA = dist::DistSparseMatrix<float>::scatter(comm, A, cs.a_rows);
  auto dB = dist::DistDenseMatrix<float>::scatter(comm, B, cs.b_rows);
  dist::DistDenseMatrix<float> dC(comm, dA.partition(), B.ncols());
  dist::mxm(dC, dA, dB, s, opt);
  const std::vector<float> got = dC.gather().to_row_major();

  // the fp32 bound for plus: each sum of k terms in any order is within
  // (k + 1) eps sum |a_ij b_jk| of the exact one, twice over (the reference too)
  const auto Ah = A.to(Device::cpu());
  const auto off = Ah.row_offsets();
  const auto col = Ah.col_indices();
  const auto val = Ah.values();
  const std::vector<float> b = B.to_row_major();
  const Index N = B.ncols();
  std::size_t bad = 0;
  for (Index i = 0; i < A.nrows(); ++i)
    for (Index k = 0; k < N; ++k) {
      const std::size_t at = static_cast<std::size_t>(i * N + k);
      bool ok;
      if constexpr (S::id == SemiringId::plus_times || S::id == SemiringId::plus_second) {
        double mag = 0;
        for (Index e = off[i]; e < off[i + 1]; ++e)
          mag += std::abs((S::id == SemiringId::plus_times ? double(val[e]) : 1.0) * b[static_cast<std::size_t>(col[e] * N + k)]);
        const double tol = 2.0 * (double(off[i + 1] - off[i]) + 1) * 1.2e-7 * mag + 1e-30;
        ok = std::abs(double(got[at]) - ref[at]) <= tol;
      } else if constexpr (S::id == SemiringId::any_second) {
        // any one of the row's candidates, or the identity for an empty row
        ok = off[i] == off[i + 1] ? got[at] == 0.0f : false;
        for (Index e = off[i]; e < off[i + 1] && !ok; ++e) ok = got[at] == b[static_cast<std::size_t>(col[e] * N + k)];
      } else {
        ok = got[at] == ref[at] || (std::isnan(got[at]) && std::isnan(ref[at]));
      }
      if (!ok && bad++ < 5)
        std::printf("MISMATCH %s %s p=%d %s N=%lld exchange=%d overlap=%d: C(%lld,%lld) = %.9g, single device %.9g\n",
                    label.c_str(), comm.name().c_str(), p, cs.what.c_str(), static_cast<long long>(N),
                    static_cast<int>(opt.exchange), opt.overlap, static_cast<long long>(i), static_cast<long long>(k),
                    got[at], ref[at]);
    }
  INFO(label << " " << comm.name() << " p=" << p << " " << cs.what << " N=" << N
             << " exchange=" << static_cast<int>(opt.exchange) << " overlap=" << opt.overlap);
  CHECK(bad == 0);
  return got;
}

template <class S>
void sweep(const SparseMatrix<float>& A, S s, const std::string& label, std::vector<Index> widths, std::uint64_t seed) {
  for (int p = 1; p <= disttest::max_ranks(); ++p)
    for (const Case& cs : cases_for(A, p))
      for (Index N : widths) {
        const DenseMatrix<float> B = random_dense(A.ncols(), N, seed + static_cast<std::uint64_t>(N));
        for (auto ex : {dist::Exchange::rows, dist::Exchange::allgather})
          for (bool overlap : {true, false}) {
            if (ex == dist::Exchange::allgather && !overlap) continue;
            check_against_single_device(A, B, s, label, disttest::communicator(p), cs,
                                        {.exchange = ex, .overlap = overlap});
          }
      }
}

}  // namespace

TEST_CASE("dist mxm equals the single-device mxm: plus_times, generated matrices", "[dist]") {
  sweep(random_matrix(300, 300, 6, 11, false), semiring::plus_times<float>{}, "square 300", {1, 5, 33}, 100);
  sweep(random_matrix(211, 357, 4, 12, false), semiring::plus_times<float>{}, "211 x 357", {1, 32}, 200);
}

TEST_CASE("dist mxm equals the single-device mxm exactly: min / max semirings", "[dist]") {
  const auto A = random_matrix(257, 257, 5, 13, true);
  sweep(A, semiring::max_times<float>{}, "max_times", {1, 17}, 300);
  sweep(A, semiring::min_plus<float>{}, "min_plus", {3, 64}, 400);
  sweep(A, semiring::max_plus<float>{}, "max_plus", {2}, 500);
  sweep(A, semiring::min_times<float>{}, "min_times", {2}, 600);
  sweep(A, semiring::max_min<float>{}, "max_min", {7}, 700);
  sweep(A, semiring::min_max<float>{}, "min_max", {7}, 800);
  sweep(A, semiring::min_second<float>{}, "min_second", {4}, 900);
  sweep(A, semiring::plus_pair<float>{}, "plus_pair", {4}, 1000);  // counts: exact
  sweep(A, semiring::plus_second<float>{}, "plus_second", {4}, 1100);
  sweep(A, semiring::any_second<float>{}, "any_second", {4}, 1200);
}

TEST_CASE("dist mxm on the shared graphs", "[dist][data]") {
  int ran = 0;
  for (const char* name : {"karate.mtx.gz", "email-Eu-core.mtx.gz", "cora.mtx.gz", "jagmesh7.mtx.gz", "lp_afiro.mtx.gz"}) {
    const std::string path = geblas::test::data_file(name);
    if (path.empty()) {
      std::printf("SKIPPED %s: not in %s\n", name, geblas::test::data_dir().string().c_str());
      continue;
    }
    const auto A = io::read_matrix_market<float>(path, {.duplicates = binop::plus<float>{}});
    const int p = std::min(3, disttest::max_ranks());
    for (const Case& cs : cases_for(A, p)) {
      const DenseMatrix<float> B = random_dense(A.ncols(), 16, 77);
      check_against_single_device(A, B, semiring::plus_times<float>{}, name, disttest::communicator(p), cs, {});
      check_against_single_device(A, B, semiring::max_times<float>{}, name, disttest::communicator(p), cs, {});
      check_against_single_device(A, B, semiring::min_plus<float>{}, name, disttest::communicator(p), cs,
                                  {.exchange = dist::Exchange::allgather});
    }
    ++ran;
  }
  if (ran == 0) WARN("no shared graph found: set GEBLAS_DATA_DIR");
}

TEST_CASE("dist mxm: repeated products reuse the cached lists, N changes, double values", "[dist]") {
  const int p = std::min(3, disttest::max_ranks());
  const Communicator comm = disttest::communicator(p);
  const auto Af = random_matrix(150, 150, 5, 21, true);
  const auto t = Af.extract_tuples();
  std::vector<Tuple<double>> td;
  for (const auto& e : t) td.push_back({e.row, e.col, double(e.value)});
  const auto A = SparseMatrix<double>::from_tuples(150, 150, td);
  auto dA = dist::DistSparseMatrix<double>::scatter(comm, A);
  for (Index N : {8, 1, 8, 65}) {
    const auto B = DenseMatrix<double>::random(150, N, Device::cpu(), static_cast<std::uint64_t>(N));
    auto dB = dist::DistDenseMatrix<double>::scatter(comm, B);
    dist::DistDenseMatrix<double> dC(comm, dA.partition(), N);
    dist::mxm(dC, dA, dB, semiring::max_plus<double>{});
    DenseMatrix<double> R(150, N);
    mxm(R, A, B, semiring::max_plus<double>{});
    CHECK(dC.gather().to_row_major() == R.to_row_major());
  }
}

TEST_CASE("dist mxm: bytes moved per product match the matrix's column structure", "[dist]") {
  const auto A = random_matrix(240, 240, 3, 31, true);
  const auto off = A.row_offsets();
  const auto col = A.col_indices();
  for (int p = 2; p <= disttest::max_ranks(); ++p) {
    const Communicator comm = disttest::communicator(p);
    const Index N = 16;
    auto dA = dist::DistSparseMatrix<float>::scatter(comm, A);
    auto dB = dist::DistDenseMatrix<float>::scatter(comm, random_dense(240, N, 5));
    dist::DistDenseMatrix<float> dC(comm, dA.partition(), N);
    // independent count: distinct columns of each rank's rows owned by another rank
    std::uint64_t halo = 0;
    for (int r = 0; r < p; ++r) {
      std::set<Index> need;
      for (Index i = dA.partition().begin(r); i < dA.partition().end(r); ++i)
        for (Index e = off[i]; e < off[i + 1]; ++e)
          if (col[e] < dB.partition().begin(r) || col[e] >= dB.partition().end(r)) need.insert(col[e]);
      halo += need.size();
    }
    const auto rows = dist::mxm(dC, dA, dB, semiring::plus_times<float>{});
    CHECK(rows.halo_rows == halo);
    CHECK(rows.bytes_sent == halo * N * sizeof(float));
    const auto all = dist::mxm(dC, dA, dB, semiring::plus_times<float>{}, {.exchange = dist::Exchange::allgather});
    CHECK(all.bytes_sent == std::uint64_t(p - 1) * 240 * N * sizeof(float));
    CHECK(rows.bytes_sent < all.bytes_sent);
  }
}

TEST_CASE("dist mxm: phase timings on GPU ranks, none on host ranks, the product unchanged", "[dist]") {
  const auto A = random_matrix(240, 240, 3, 37, true);
  for (int p = 1; p <= disttest::max_ranks(); ++p) {
    const Communicator comm = disttest::communicator(p);
    INFO("p=" << p << " " << comm.name());
    const Index N = 8;
    auto dA = dist::DistSparseMatrix<float>::scatter(comm, A);
    auto dB = dist::DistDenseMatrix<float>::scatter(comm, random_dense(240, N, 9));
    dist::DistDenseMatrix<float> plain(comm, dA.partition(), N), timed(comm, dA.partition(), N);
    for (const auto ex : {dist::Exchange::rows, dist::Exchange::allgather}) {
      const auto a = dist::mxm(plain, dA, dB, semiring::max_times<float>{}, {.exchange = ex});
      const auto b = dist::mxm(timed, dA, dB, semiring::max_times<float>{}, {.exchange = ex, .timings = true});
      CHECK(a.times.empty());
      CHECK(b.bytes_sent == a.bytes_sent);
      CHECK(timed.gather().to_row_major() == plain.gather().to_row_major());
      if (comm.name() == "host") {
        CHECK(b.times.empty());  // no devices to time on
        continue;
      }
      REQUIRE(b.times.size() == comm.local_ranks().size());
      for (std::size_t k = 0; k < b.times.size(); ++k) {
        const auto& t = b.times[k];
        CHECK(t.rank == comm.local_ranks()[k]);
        for (double ms : {t.pack_ms, t.local_ms, t.transfer_ms, t.wait_ms, t.remote_ms}) {
          CHECK(ms >= 0);
          CHECK(ms < 10000);
        }
      }
    }
  }
}

TEST_CASE("dist read_matrix_market: each rank keeps its rows", "[dist][data]") {
  const std::string path = geblas::test::data_file("karate.mtx.gz");
  if (path.empty()) {
    WARN("SKIPPED: karate.mtx.gz not in " << geblas::test::data_dir().string());
    return;
  }
  const auto A = io::read_matrix_market<float>(path);
  const int p = std::min(3, disttest::max_ranks());
  const Communicator comm = disttest::communicator(p);
  const Partition part({0, 5, 5, A.nrows()});
  if (p != 3) return;
  auto dA = dist::DistSparseMatrix<float>::read_matrix_market(comm, path, part);
  for (int k = 0; k < 3; ++k) {
    const auto L = dA.local(k).to(Device::cpu());
    CHECK(L.nrows() == part.count(k));
    const auto lt = L.extract_tuples();
    std::vector<Tuple<float>> expect;
    for (const auto& e : A.extract_tuples())
      if (e.row >= part.begin(k) && e.row < part.end(k)) expect.push_back({e.row - part.begin(k), e.col, e.value});
    CHECK(lt == expect);
  }
}

TEST_CASE("Partition::balanced: every split point is the first row reaching its share of the cost", "[dist]") {
  // skewed row lengths (a few long rows first, as in R-MAT without permutation), empty rows
  std::vector<Index> off{0};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 400; ++i)
    off.push_back(off.back() + (i < 10 ? 200 + static_cast<Index>(rng() % 300) : static_cast<Index>(rng() % 4)));
  const Index n = static_cast<Index>(off.size()) - 1;
  for (int p : {1, 2, 3, 7}) {
    for (Index rc : {Index{0}, Index{1}, Index{4}, Index{1000}}) {
      const Partition part = Partition::balanced(off, p, rc);
      REQUIRE(part.parts() == p);
      const Index total = off.back() + rc * n;
      for (int r = 1; r < p; ++r) {
        // the definition, by brute force: the first i with cost(i) >= total * r / p
        const Index target = total * r / p;
        Index want = n;
        for (Index i = 0; i <= n; ++i)
          if (off[static_cast<std::size_t>(i)] + rc * i >= target) {
            want = i;
            break;
          }
        CHECK(part.begin(r) == want);
      }
      if (rc == 0) CHECK(part == Partition::balanced(off, p));
    }
    // a huge row cost splits the rows about evenly, whatever their lengths
    const Partition even_ish = Partition::balanced(off, p, Index{1} << 40);
    for (int r = 0; r < p; ++r) CHECK(std::abs(even_ish.count(r) - n / p) <= 1);
  }
  CHECK_THROWS_AS(Partition::balanced(off, 2, -1), InvalidValue);
  CHECK(Partition::for_products(off, 3) == Partition::balanced(off, 3, Partition::default_row_cost));
}

TEST_CASE("dist: bad input gives a clear error, never a hang", "[dist][errors]") {
  const auto A = random_matrix(60, 60, 3, 41, true);
  const int p = std::min(3, disttest::max_ranks());
  const Communicator comm = disttest::communicator(p);
  CHECK_THROWS_AS(Communicator::host(0), InvalidValue);
  CHECK_THROWS_AS(Partition(std::vector<Index>{0, 5, 3}), InvalidValue);
  CHECK_THROWS_AS(Partition(std::vector<Index>{1, 5}), InvalidValue);
  // a partition of the wrong size for the communicator, or not covering the rows
  CHECK_THROWS_AS(dist::DistSparseMatrix<float>::scatter(comm, A, Partition::even(60, p + 1)), InvalidValue);
  CHECK_THROWS_AS(dist::DistSparseMatrix<float>::scatter(comm, A, Partition::even(59, p)), DimensionMismatch);
  auto dA = dist::DistSparseMatrix<float>::scatter(comm, A);
  auto dB = dist::DistDenseMatrix<float>::scatter(comm, random_dense(60, 4, 1));
  // C partitioned unlike A
  if (p >= 2) {
    std::vector<Index> o = dA.partition().offsets;
    o[1] = o[1] == 0 ? 1 : o[1] - 1;
    dist::DistDenseMatrix<float> wrongC(comm, Partition(o), 4);
    CHECK_THROWS_AS(dist::mxm(wrongC, dA, dB, semiring::plus_times<float>{}), InvalidValue);
  }
  dist::DistDenseMatrix<float> dC(comm, dA.partition(), 4);
  // shapes
  auto dB5 = dist::DistDenseMatrix<float>::scatter(comm, random_dense(61, 4, 1));
  CHECK_THROWS_AS(dist::mxm(dC, dA, dB5, semiring::plus_times<float>{}), DimensionMismatch);
  dist::DistDenseMatrix<float> dC3(comm, dA.partition(), 3);
  CHECK_THROWS_AS(dist::mxm(dC3, dA, dB, semiring::plus_times<float>{}), DimensionMismatch);
  // operands on another communicator
  if (disttest::reference_device().is_cpu()) {
    auto dB_other = dist::DistDenseMatrix<float>::scatter(Communicator::host(p), random_dense(60, 4, 1));
    CHECK_THROWS_AS(dist::mxm(dC, dA, dB_other, semiring::plus_times<float>{}), InvalidValue);
  }
  // one rank fails to allocate: the error reaches the caller, and the communicator
  // stays usable for the next product
  const int victim = p - 1;
  dist::detail::fail_next_allocation_on_rank(victim);
  try {
    dist::mxm(dC, dA, dB, semiring::plus_times<float>{});
    FAIL("the injected allocation failure was not reported");
  } catch (const OutOfMemory& e) {
    CHECK(std::string(e.what()).find("rank " + std::to_string(victim)) != std::string::npos);
  }
  dist::mxm(dC, dA, dB, semiring::plus_times<float>{});
  DenseMatrix<float> R(60, 4);
  mxm(R, A, random_dense(60, 4, 1), semiring::plus_times<float>{});
  const auto got = dC.gather().to_row_major(), ref = R.to_row_major();
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - ref[i]) <= 1e-4f * (1 + std::abs(ref[i])));
  if (!dist::nccl_compiled()) CHECK_THROWS_AS(Communicator::nccl(), NotImplemented);
  if (!dist::mpi_compiled()) CHECK_THROWS_AS(Communicator::nccl_mpi(), NotImplemented);
}

TEST_CASE("dist: an exchange that cannot complete raises CommunicationError, never hangs", "[dist][errors][timeout]") {
  if (disttest::max_ranks() < 2) return;
  const double timeout_s = 3;
  // NCCL's send / recv: peer copies find the missing receive before anything moves (the
  // "[p2p][errors]" case); this is the wait that only a deadline ends
  const Communicator comm = disttest::fresh_communicator(2, timeout_s, dist::PointToPoint::nccl);
  auto& t = comm.transport();
  REQUIRE(t.local_ranks().size() == 2);  // both ranks in this process
  // rank 0 sends to rank 1, which posts no receive: NCCL would wait forever
  geblas::detail::RawBuffer buf(256, comm.device(0));
  std::vector<dist::detail::RankTransfers> tr(2);
  tr[0].sends.push_back({1, buf.data(), buf.bytes()});
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_AS((t.start(tr), t.finish()), dist::CommunicationError);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(waited < timeout_s + 20);
  if (!comm.device(0).is_cpu()) {
    // NCCL aborted the communicator: later calls say so instead of hanging
    CHECK_THROWS_AS(dist::DistDenseMatrix<float>(comm, Partition::even(10, 2), 3), dist::CommunicationError);
  }
}

// The sums over ranks that dist::pagerank queues one step ahead: two in flight, each
// read once, in any order; a third queued waits for the oldest.
TEST_CASE("dist sums over ranks: two in flight, each read once", "[dist]") {
  namespace gd = geblas::detail;
  for (int p = 1; p <= disttest::max_ranks(); ++p) {
    INFO("p=" << p);
    const Communicator comm = disttest::communicator(p);
    auto& t = comm.transport();
    const auto& locals = comm.local_ranks();
    // one pair of doubles per local rank and per sum: rank r holds (r + 1) x scale, -(r + 1)
    std::vector<gd::RawBuffer> keep;
    auto values = [&](double scale) {
      std::vector<double*> ptrs;
      for (int r : locals) {
        const double v[2] = {(r + 1) * scale, -(r + 1.0)};
        keep.emplace_back(sizeof v, comm.device(r));
        gd::copy_bytes(keep.back().data(), comm.device(r), v, Device::cpu(), sizeof v);
        ptrs.push_back(keep.back().as<double>());
      }
      return ptrs;
    };
    // over every rank, local or not: sum of r + 1 for r < p
    const double total = p * (p + 1) / 2.0;
    const int a = t.queue_sum_doubles(values(1), 2);
    const int b = t.queue_sum_doubles(values(10), 1);
    CHECK(t.read_sum(b) == std::vector<double>{10 * total});
    CHECK(t.read_sum(a) == std::vector<double>{total, -total});
    CHECK_THROWS_AS(t.read_sum(a), InvalidValue);
    const int c = t.queue_sum_doubles(values(2), 2);
    const int d = t.queue_sum_doubles(values(3), 2);
    const int e = t.queue_sum_doubles(values(4), 2);  // c's slot: c is waited for, unread
    CHECK(e == c);
    CHECK(t.read_sum(e) == std::vector<double>{4 * total, -total});
    CHECK(t.read_sum(d) == std::vector<double>{3 * total, -total});
    CHECK(t.sum_doubles(values(5), 1) == std::vector<double>{5 * total});
  }
}

TEST_CASE("dist GNN aggregation equals the single-device algorithms", "[dist][gnn]") {
  const auto A = random_matrix(260, 260, 5, 51, false);
  const Index f = 24;
  const auto X = random_dense(260, f, 52);
  const Device dev = disttest::reference_device();
  DenseMatrix<float> mean1(260, f, dev), max1(260, f, dev), gcn1(260, f, dev);
  const auto Ad = A.to(dev);
  const auto Xd = X.to(dev);
  algo::sage_mean_aggregate(mean1, Ad, Xd);
  algo::sage_max_aggregate(max1, Ad, Xd);
  const auto A_hat = algo::gcn_normalize(Ad);
  algo::gcn_aggregate(gcn1, A_hat, Xd);
  const auto rm = mean1.to_row_major(), rx = max1.to_row_major(), rg = gcn1.to_row_major();
  const auto x = X.to_row_major();
  const auto off = A.row_offsets();
  const auto col = A.col_indices();
  for (int p = 1; p <= disttest::max_ranks(); ++p) {
    const Communicator comm = disttest::communicator(p);
    for (const Case& cs : cases_for(A, p)) {
      auto dA = dist::DistSparseMatrix<float>::scatter(comm, A, cs.a_rows);
      auto dH = dist::DistSparseMatrix<float>::scatter(comm, A_hat.to(Device::cpu()), cs.a_rows);
      auto dX = dist::DistDenseMatrix<float>::scatter(comm, X, cs.b_rows);
      dist::DistDenseMatrix<float> Y(comm, dA.partition(), f);
      dist::sage_mean_aggregate(Y, dA, dX);
      const auto gm = Y.gather().to_row_major();
      dist::sage_max_aggregate(Y, dA, dX);
      const auto gx = Y.gather().to_row_major();
      dist::gcn_aggregate(Y, dH, dX);
      const auto gg = Y.gather().to_row_major();
      std::size_t bad = 0;
      for (Index i = 0; i < 260; ++i)
        for (Index k = 0; k < f; ++k) {
          const std::size_t at = static_cast<std::size_t>(i * f + k);
          double mag = 0;
          for (Index e = off[i]; e < off[i + 1]; ++e) mag += std::abs(x[static_cast<std::size_t>(col[e] * f + k)]);
          const double len = double(off[i + 1] - off[i]);
          const double tol_mean = 2 * (len + 1) * 1.2e-7 * mag / std::max(1.0, len) + 1e-30;
          bad += std::abs(double(gm[at]) - rm[at]) > tol_mean;
          bad += gx[at] != rx[at];
          bad += std::abs(double(gg[at]) - rg[at]) > 2 * (len + 2) * 1.2e-7 * (mag + std::abs(x[at])) + 1e-30;
        }
      INFO("p=" << p << " " << cs.what);
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("dist transpose and PageRank equal the single-device results", "[dist][pagerank]") {
  const auto A = random_matrix(230, 230, 4, 61, true);  // empty rows: dangling vertices
  const Device dev = disttest::reference_device();
  const auto pr1 = algo::pagerank(A.to(dev));
  const auto ref = pr1.ranks.to(Device::cpu()).to_std_vector();
  std::vector<Tuple<float>> at;
  for (const auto& e : A.extract_tuples()) at.push_back({e.col, e.row, e.value});
  std::sort(at.begin(), at.end(), [](const auto& a, const auto& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
  for (int p = 1; p <= disttest::max_ranks(); ++p) {
    const Communicator comm = disttest::communicator(p);
    for (const Case& cs : cases_for(A, p)) {
      INFO("p=" << p << " " << cs.what);
      auto dA = dist::DistSparseMatrix<float>::scatter(comm, A, cs.a_rows);
      // the transpose, every entry, rank by rank
      const auto dT = dist::transpose(dA, cs.b_rows);
      std::vector<Tuple<float>> got;
      for (std::size_t k = 0; k < comm.local_ranks().size(); ++k)
        for (const auto& e : dT.local(static_cast<int>(k)).to(Device::cpu()).extract_tuples())
          got.push_back({e.row + dT.partition().begin(comm.local_ranks()[k]), e.col, e.value});
      CHECK(got == at);
      const auto pr = dist::pagerank(dA);
      INFO("distributed: " << pr.iterations << " iterations, delta " << pr.delta << "; single device: " << pr1.iterations << ", delta " << pr1.delta);
      CHECK(pr.converged == pr1.converged);
      CHECK(std::abs(pr.iterations - pr1.iterations) <= 1);
      const auto x = pr.ranks.gather().to_row_major();
      double err = 0;
      for (Index i = 0; i < 230; ++i) err = std::max(err, std::abs(double(x[static_cast<std::size_t>(i)]) - double(ref[static_cast<std::size_t>(i)])));
      CHECK(err < 1e-5);
    }
  }
}

TEST_CASE("dist multi-source SSSP equals the single-device result exactly", "[dist][sssp]") {
  const auto A = random_matrix(240, 240, 3, 71, true);  // integer weights: sums are exact
  const std::vector<Index> sources{0, 3, 100, 239, 5};
  const Device dev = disttest::reference_device();
  const auto s1 = algo::sssp(A.to(dev), sources);
  const auto ref = s1.distances.to_row_major();
  for (int p = 1; p <= disttest::max_ranks(); ++p) {
    const Communicator comm = disttest::communicator(p);
    for (const Case& cs : cases_for(A, p)) {
      INFO("p=" << p << " " << cs.what << ": " << s1.rounds << " rounds on one device");
      auto dA = dist::DistSparseMatrix<float>::scatter(comm, A, cs.a_rows);
      const auto s = dist::sssp(dA, sources);
      CHECK(s.distances.gather().to_row_major() == ref);
      CHECK(s.rounds == s1.rounds);  // one round loop (algorithms/bellman_ford_loop.hpp)
    }
  }
  const Communicator comm = disttest::communicator(std::min(2, disttest::max_ranks()));
  auto dA = dist::DistSparseMatrix<float>::scatter(comm, A);
  CHECK_THROWS_AS(dist::sssp(dA, {240}), IndexOutOfBounds);
  CHECK_THROWS_AS(dist::sssp(dA, {}), InvalidValue);
  const auto neg = SparseMatrix<float>::from_tuples(3, 3, std::vector<Index>{0, 1}, std::vector<Index>{1, 2},
                                                    std::vector<float>{1.0f, -1.0f});
  CHECK_THROWS_AS(dist::sssp(dist::DistSparseMatrix<float>::scatter(comm, neg), {0}), InvalidValue);
}

TEST_CASE("dist multi-source SSSP runs algo::sssp's rounds: callback, negative weights, negative cycles",
          "[dist][sssp]") {
  // integer weights in [-2, 6] on a DAG (i -> j only for i < j): negative weights, no cycle
  std::mt19937_64 rng(5);
  std::vector<Index> r, c;
  std::vector<float> v;
  const Index n = 120;
  for (Index i = 0; i < n; ++i)
    for (int e = 0; e < 4; ++e) {
      const Index j = i + 1 + static_cast<Index>(rng() % 9);
      if (j >= n) continue;
      r.push_back(i), c.push_back(j), v.push_back(static_cast<float>(static_cast<int>(rng() % 9) - 2));
    }
  const auto A = SparseMatrix<float>::from_tuples(n, n, r, c, v, binop::min<float>{});
  const std::vector<Index> sources{0, 7, 60};
  std::vector<double> rounds1;
  algo::SsspOptions o1{.allow_negative = true,
                       .on_iteration = [&](int, double changed) { rounds1.push_back(changed); }};
  const auto s1 = algo::sssp(A.to(disttest::reference_device()), sources, o1);
  const auto ref = s1.distances.to_row_major();
  for (int p : {1, std::min(3, disttest::max_ranks())}) {
    const Communicator comm = disttest::communicator(p);
    INFO("p=" << p);
    auto dA = dist::DistSparseMatrix<float>::scatter(comm, A);
    // without allow_negative: refused, as on one device
    CHECK_THROWS_AS(dist::sssp(dA, sources), InvalidValue);
    std::vector<double> rounds;
    algo::SsspOptions o{.allow_negative = true,
                        .on_iteration = [&](int, double changed) { rounds.push_back(changed); }};
    const auto s = dist::sssp(dA, sources, o);
    CHECK(s.distances.gather().to_row_major() == ref);
    CHECK(s.rounds == s1.rounds);
    CHECK(rounds == rounds1);  // the same count of changed distances in every round
  }
  // a negative cycle reachable from the source: InvalidValue on every rank, as on one device
  const auto cyc =
      SparseMatrix<float>::from_tuples(4, 4, std::vector<Index>{0, 1, 2, 3}, std::vector<Index>{1, 2, 1, 0},
                                       std::vector<float>{1.0f, -2.0f, 1.0f, 5.0f});
  CHECK_THROWS_AS(algo::sssp(cyc, std::vector<Index>{0}, {.allow_negative = true}), InvalidValue);
  const Communicator comm = disttest::communicator(std::min(2, disttest::max_ranks()));
  CHECK_THROWS_WITH(dist::sssp(dist::DistSparseMatrix<float>::scatter(comm, cyc), {0}, {.allow_negative = true}),
                    geblas::test::contains("negative cycle"));
  // NaN weights: refused whatever allow_negative says
  const auto nan = SparseMatrix<float>::from_tuples(2, 2, std::vector<Index>{0}, std::vector<Index>{1},
                                                    std::vector<float>{std::nanf("")});
  CHECK_THROWS_AS(dist::sssp(dist::DistSparseMatrix<float>::scatter(comm, nan), {0}, {.allow_negative = true}),
                  InvalidValue);
}

namespace {

// Levels and parents by a plain queue BFS on the host, independent of geblas's kernels:
// the parent of a vertex first reached at level l is its smallest in-neighbour at
// level l - 1. Row-major n x k.
void host_bfs(const SparseMatrix<float>& A, const std::vector<Index>& sources, std::vector<std::int64_t>& lev,
              std::vector<std::int64_t>& par) {
  const auto H = A.to(Device::cpu());
  const auto off = H.row_offsets();
  const auto col = H.col_indices();
  const Index n = A.nrows(), k = static_cast<Index>(sources.size());
  lev.assign(static_cast<std::size_t>(n * k), -1);
  par.assign(static_cast<std::size_t>(n * k), -1);
  for (Index c = 0; c < k; ++c) {
    std::vector<Index> queue{sources[static_cast<std::size_t>(c)]};
    lev[static_cast<std::size_t>(queue[0] * k + c)] = 0;
    par[static_cast<std::size_t>(queue[0] * k + c)] = queue[0];
    for (std::size_t h = 0; h < queue.size(); ++h) {
      const Index u = queue[h];
      for (Index e = off[u]; e < off[u + 1]; ++e) {
        const auto at = static_cast<std::size_t>(col[e] * k + c);
        if (lev[at] < 0) {
          lev[at] = lev[static_cast<std::size_t>(u * k + c)] + 1;
          par[at] = u;  // queue order: the first discoverer, fixed below to the smallest
          queue.push_back(col[e]);
        } else if (lev[at] == lev[static_cast<std::size_t>(u * k + c)] + 1 && u < par[at]) {
          par[at] = u;
        }
      }
    }
  }
}

void check_bfs(const SparseMatrix<float>& A, const std::vector<Index>& sources, const std::string& label) {
  const Index n = A.nrows(), k = static_cast<Index>(sources.size());
  std::vector<std::int64_t> lev, par;
  host_bfs(A, sources, lev, par);
  // the single-device algorithm, which the distributed one must equal exactly
  const auto one = algo::bfs(A.to(disttest::reference_device()), sources);
  const auto ref_lev = one.levels.to_row_major(), ref_par = one.parents.to_row_major();
  REQUIRE(ref_lev == lev);  // the reference agrees with the host BFS before it is used
  REQUIRE(ref_par == par);
  for (int p = 1; p <= disttest::max_ranks(); ++p) {
    const Communicator comm = disttest::communicator(p);
    for (const Case& cs : cases_for(A, p)) {
      INFO(label << " p=" << p << " " << cs.what << " sources=" << k);
      auto dA = dist::DistSparseMatrix<float>::scatter(comm, A, cs.a_rows);
      const auto r = dist::bfs(dA, sources);
      CHECK(r.levels.partition() == dA.partition());
      const auto got_lev = r.levels.gather().to_row_major(), got_par = r.parents.gather().to_row_major();
      REQUIRE(got_lev.size() == static_cast<std::size_t>(n * k));
      std::size_t bad = 0;
      for (std::size_t e = 0; e < got_lev.size(); ++e)
        if ((got_lev[e] != lev[e] || got_par[e] != par[e]) && bad++ < 5)
          std::printf("MISMATCH bfs %s p=%d %s: vertex %lld source #%lld: level %lld parent %lld, expected %lld %lld\n",
                      label.c_str(), p, cs.what.c_str(), static_cast<long long>(e / static_cast<std::size_t>(k)),
                      static_cast<long long>(e % static_cast<std::size_t>(k)), static_cast<long long>(got_lev[e]),
                      static_cast<long long>(got_par[e]), static_cast<long long>(lev[e]),
                      static_cast<long long>(par[e]));
      CHECK(bad == 0);
      CHECK(r.depth == one.depth);
    }
  }
}

}  // namespace

TEST_CASE("dist BFS equals the single-device BFS exactly: generated graphs", "[dist][bfs]") {
  // empty rows (every 7th) and a heavy row; sources include a vertex without out-edges
  const auto A = random_matrix(260, 260, 2, 91, true);
  check_bfs(A, {0}, "generated, one source");
  check_bfs(A, {3, 6, 259, 3, 100}, "generated, five sources (one repeated, one without out-edges)");
  // a long path 0 -> 1 -> ... -> 99 plus a back edge: depth 99, one vertex per level
  std::vector<Index> r, c;
  for (Index i = 0; i + 1 < 100; ++i) {
    r.push_back(i);
    c.push_back(i + 1);
  }
  r.push_back(99);
  c.push_back(50);
  const auto path = SparseMatrix<float>::from_tuples(100, 100, r, c, std::vector<float>(r.size(), 1.0f));
  check_bfs(path, {0, 60}, "path");
}

TEST_CASE("dist BFS on the shared graphs", "[dist][bfs][data]") {
  int ran = 0;
  for (const char* name : {"karate.mtx.gz", "email-Eu-core.mtx.gz", "cora.mtx.gz", "jagmesh7.mtx.gz"}) {
    const std::string path = geblas::test::data_file(name);
    if (path.empty()) {
      std::printf("SKIPPED %s: not in %s\n", name, geblas::test::data_dir().string().c_str());
      continue;
    }
    const auto A = io::read_matrix_market<float>(path, {.duplicates = binop::plus<float>{}});
    check_bfs(A, {0, A.nrows() / 2, A.nrows() - 1}, name);
    ++ran;
  }
  if (ran == 0) WARN("no shared graph found: set GEBLAS_DATA_DIR");
}

TEST_CASE("dist BFS: bad input gives a clear error", "[dist][bfs][errors]") {
  const Communicator comm = disttest::communicator(std::min(2, disttest::max_ranks()));
  auto dA = dist::DistSparseMatrix<float>::scatter(comm, random_matrix(20, 20, 2, 5, true));
  CHECK_THROWS_AS(dist::bfs(dA, {20}), IndexOutOfBounds);
  CHECK_THROWS_AS(dist::bfs(dA, {-1}), IndexOutOfBounds);
  CHECK_THROWS_AS(dist::bfs(dA, {}), InvalidValue);
  auto rect = dist::DistSparseMatrix<float>::scatter(comm, random_matrix(20, 30, 2, 5, true));
  CHECK_THROWS_AS(dist::bfs(rect, {0}), DimensionMismatch);
}

// dist::pagerank queues iteration j + 1 before it reads iteration j's change: the run
// must still stop at the first iteration below the tolerance and return that
// iteration's ranks, not the one queued after it.
TEST_CASE("dist PageRank: the converged result is the iteration that converged", "[dist][pagerank]") {
  const auto A = random_matrix(240, 240, 4, 19, true);
  for (int p = 1; p <= disttest::max_ranks(); ++p) {
    INFO("p=" << p);
    auto dA = dist::DistSparseMatrix<float>::scatter(disttest::communicator(p), A);
    std::vector<double> changes;
    // a loose tolerance: a few iterations, and consecutive iterates far apart
    const auto pr = dist::pagerank(dA, {0.85, 1e-2, 100, [&](int, double d) { changes.push_back(d); }});
    REQUIRE(pr.converged);
    REQUIRE(pr.iterations >= 2);
    REQUIRE(changes.size() == static_cast<std::size_t>(pr.iterations));
    CHECK(changes.back() < 1e-2);
    for (std::size_t i = 0; i + 1 < changes.size(); ++i) CHECK(changes[i] >= 1e-2);
    const auto same = dist::pagerank(dA, {0.85, 0.0, pr.iterations});
    const auto more = dist::pagerank(dA, {0.85, 0.0, pr.iterations + 1});
    const auto x = pr.ranks.gather().to_row_major(), xs = same.ranks.gather().to_row_major(),
               xm = more.ranks.gather().to_row_major();
    double to_same = 0, to_more = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      to_same = std::max(to_same, std::abs(double(x[i]) - double(xs[i])));
      to_more = std::max(to_more, std::abs(double(x[i]) - double(xm[i])));
    }
    INFO("iterations " << pr.iterations << ", max difference to the same count " << to_same << ", to one more "
                       << to_more);
    CHECK(to_same <= 1e-7);
    CHECK(to_more > 1e-6);  // so that the check above can tell the two apart
  }
}

TEST_CASE("dist PageRank: a fixed iteration count and the per-iteration callback", "[dist][pagerank]") {
  const auto A = random_matrix(180, 180, 3, 17, true);
  algo::PageRankOptions po;
  po.tolerance = 0;  // never converges: both run exactly max_iterations
  po.max_iterations = 23;
  std::vector<double> one_changes;
  po.on_iteration = [&](int, double d) { one_changes.push_back(d); };
  const auto pr1 = algo::pagerank(A.to(disttest::reference_device()), po);
  const auto ref = pr1.ranks.to(Device::cpu()).to_std_vector();
  for (int p = 1; p <= disttest::max_ranks(); ++p)
    for (const Case& cs : cases_for(A, p)) {
      INFO("p=" << p << " " << cs.what);
      auto dA = dist::DistSparseMatrix<float>::scatter(disttest::communicator(p), A, cs.a_rows);
      std::vector<int> its;
      std::vector<double> changes;
      dist::PageRankOptions pd{po.damping, 0.0, po.max_iterations, [&](int it, double d) {
                                 its.push_back(it);
                                 changes.push_back(d);
                               }};
      const auto pr = dist::pagerank(dA, pd);
      CHECK(pr.iterations == 23);
      CHECK_FALSE(pr.converged);
      REQUIRE(its.size() == 23);
      for (int i = 0; i < 23; ++i) CHECK(its[static_cast<std::size_t>(i)] == i + 1);
      CHECK(pr.delta == changes.back());
      // each change is a sum of 180 fp32 terms in another order
      for (std::size_t i = 0; i < changes.size(); ++i)
        CHECK(std::abs(changes[i] - one_changes[i]) <= 1e-6 * (1 + one_changes[i]));
      const auto x = pr.ranks.gather().to_row_major();
      for (Index i = 0; i < 180; ++i)
        CHECK(std::abs(double(x[static_cast<std::size_t>(i)]) - double(ref[static_cast<std::size_t>(i)])) < 1e-6);
    }
}

namespace {

// Rows [b, e) of A, shifted to start at 0: the expected part of a row-range read.
std::vector<Tuple<float>> rows_of(const SparseMatrix<float>& A, Index b, Index e) {
  std::vector<Tuple<float>> out;
  for (const auto& t : A.extract_tuples())
    if (t.row >= b && t.row < e) out.push_back({t.row - b, t.col, t.value});
  return out;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("geblas-dist-" + std::to_string(::getpid()) + "-" + name);
  std::FILE* f = std::fopen(path.string().c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  return path.string();
}

}  // namespace

TEST_CASE("row-range Matrix Market reader: each range equals the rows of a full read", "[dist][io]") {
  int ran = 0;
  // general, symmetric (mirrored entries), pattern and real files
  for (const char* name : {"karate.mtx.gz", "lp_afiro.mtx.gz", "jagmesh7.mtx.gz", "cora.mtx.gz", "bcsstk13.mtx.gz"}) {
    const std::string path = geblas::test::data_file(name);
    if (path.empty()) {
      std::printf("SKIPPED %s: not in %s\n", name, geblas::test::data_dir().string().c_str());
      continue;
    }
    const auto A = io::read_matrix_market<float>(path);
    const Index n = A.nrows();
    std::vector<Index> counts;
    const auto none =
        SparseMatrix<float>(io::detail::read_matrix_market_rows(path, TypeId::float32, {}, 0, 0, &counts));
    CHECK(none.nrows() == 0);
    CHECK(none.ncols() == A.ncols());
    REQUIRE(counts.size() == static_cast<std::size_t>(n));
    const auto off = A.row_offsets();
    for (Index i = 0; i < n; ++i) CHECK(counts[static_cast<std::size_t>(i)] == off[i + 1] - off[i]);
    for (auto [b, e] : std::vector<std::pair<Index, Index>>{
             {0, n}, {0, 1}, {n / 3, 2 * n / 3}, {n - 1, n}, {n / 2, n / 2}, {5, -1}}) {
      INFO(name << " rows [" << b << ", " << e << ")");
      const auto part = SparseMatrix<float>(io::detail::read_matrix_market_rows(path, TypeId::float32, {}, b, e));
      const Index end = e < 0 ? n : e;
      CHECK(part.nrows() == end - b);
      CHECK(part.ncols() == A.ncols());
      CHECK(part.extract_tuples() == rows_of(A, b, end));
    }
    // 16-bit values are read through double and rounded, like the full reader's (which
    // refuses values beyond float16's range: so must the whole range)
    std::optional<SparseMatrix<half>> full16;
    try {
      full16 = io::read_matrix_market<half>(path);
    } catch (const ParseError&) {
      CHECK_THROWS_AS(io::detail::read_matrix_market_rows(path, TypeId::float16, {}, 0, n), ParseError);
      ++ran;
      continue;
    }
    const auto h = SparseMatrix<half>(io::detail::read_matrix_market_rows(path, TypeId::float16, {}, n / 4, n / 2));
    const auto& hf = *full16;
    std::vector<Tuple<half>> expect;
    for (const auto& t : hf.extract_tuples())
      if (t.row >= n / 4 && t.row < n / 2) expect.push_back({t.row - n / 4, t.col, t.value});
    CHECK(h.extract_tuples() == expect);
    ++ran;
  }
  if (ran == 0) WARN("no shared graph found: set GEBLAS_DATA_DIR");
}

TEST_CASE("row-range Matrix Market reader: malformed input is an error whatever the range", "[dist][io][errors]") {
  const std::string header = "%%MatrixMarket matrix coordinate real general\n4 4 4\n";
  // a bad line in rows the range does not keep is still an error, naming its line
  const std::string bad_line = write_temp("bad.mtx", header + "1 1 1.0\n2 2 2.0\n3 x 3.0\n4 4 4.0\n");
  try {
    io::detail::read_matrix_market_rows(bad_line, TypeId::float32, {}, 0, 1);
    FAIL("no error");
  } catch (const ParseError& e) {
    CHECK(e.line() == 5);
  }
  const std::string out_of_range = write_temp("oor.mtx", header + "1 1 1.0\n2 2 2.0\n5 3 3.0\n4 4 4.0\n");
  CHECK_THROWS_AS(io::detail::read_matrix_market_rows(out_of_range, TypeId::float32, {}, 0, 1), ParseError);
  const std::string few = write_temp("few.mtx", header + "1 1 1.0\n2 2 2.0\n");
  CHECK_THROWS_AS(io::detail::read_matrix_market_rows(few, TypeId::float32, {}, 3, 4), ParseError);
  // a duplicate inside the range names both lines; outside it, the rows' owner reports it
  const std::string dup = write_temp("dup.mtx", header + "1 1 1.0\n3 2 2.0\n3 2 3.0\n4 4 4.0\n");
  try {
    io::detail::read_matrix_market_rows(dup, TypeId::float32, {}, 2, 4);
    FAIL("no error");
  } catch (const ParseError& e) {
    CHECK(e.line() == 5);
    CHECK(std::string(e.what()).find("line 4") != std::string::npos);
  }
  CHECK_NOTHROW(io::detail::read_matrix_market_rows(dup, TypeId::float32, {}, 0, 2));
  const std::string good = write_temp("good.mtx", header + "1 1 1.0\n2 2 2.0\n3 3 3.0\n4 4 4.0\n");
  CHECK_THROWS_AS(io::detail::read_matrix_market_rows(good, TypeId::float32, {}, 2, 5), InvalidValue);
  CHECK_THROWS_AS(io::detail::read_matrix_market_rows(good, TypeId::float32, {}, 3, 2), InvalidValue);
  CHECK_THROWS_AS(io::detail::read_matrix_market_rows(good, TypeId::float32, {}, -1, 2), InvalidValue);
  CHECK_THROWS_AS(io::detail::read_matrix_market_rows(good + ".missing", TypeId::float32, {}, 0, 1), IoError);

  // distributed: every rank raises, the ranks whose rows hold the fault with its ParseError
  const int p = std::min(3, disttest::max_ranks());
  const Communicator comm = disttest::communicator(p);
  CHECK_THROWS_AS(dist::DistSparseMatrix<float>::read_matrix_market(comm, bad_line), ParseError);
  CHECK_THROWS_AS(dist::DistSparseMatrix<float>::read_matrix_market(comm, dup, Partition::even(4, p)), ParseError);
  CHECK_THROWS_AS(dist::DistSparseMatrix<float>::read_matrix_market(comm, good, Partition::even(5, p)),
                  DimensionMismatch);
  if (p > 1)
    CHECK_THROWS_AS(dist::DistSparseMatrix<float>::read_matrix_market(comm, good, Partition::even(4, p - 1)),
                    InvalidValue);
  for (const auto& f : {bad_line, out_of_range, few, dup, good}) std::remove(f.c_str());
}

TEST_CASE("dist read_matrix_market reads row ranges equal to scattering the whole matrix", "[dist][io][data]") {
  int ran = 0;
  for (const char* name : {"karate.mtx.gz", "email-Eu-core.mtx.gz", "jagmesh7.mtx.gz", "lp_afiro.mtx.gz"}) {
    const std::string path = geblas::test::data_file(name);
    if (path.empty()) {
      std::printf("SKIPPED %s: not in %s\n", name, geblas::test::data_dir().string().c_str());
      continue;
    }
    const auto A = io::read_matrix_market<float>(path);
    for (int p = 1; p <= disttest::max_ranks(); ++p) {
      const Communicator comm = disttest::communicator(p);
      std::vector<std::optional<Partition>> splits{std::nullopt};
      for (const Case& cs : cases_for(A, p)) splits.push_back(cs.a_rows);
      for (const auto& split : splits) {
        INFO(name << " p=" << p << (split ? " given split" : " default split"));
        const auto want = dist::DistSparseMatrix<float>::scatter(comm, A, split);
        const auto got = dist::DistSparseMatrix<float>::read_matrix_market(comm, path, split);
        REQUIRE(got.partition() == want.partition());
        CHECK(got.ncols() == A.ncols());
        for (std::size_t k = 0; k < comm.local_ranks().size(); ++k)
          CHECK(got.local(static_cast<int>(k)).to(Device::cpu()).extract_tuples() ==
                want.local(static_cast<int>(k)).to(Device::cpu()).extract_tuples());
      }
    }
    ++ran;
  }
  if (ran == 0) WARN("no shared graph found: set GEBLAS_DATA_DIR");
}

// Peer copies against NCCL's send / recv (Communicator::nccl, PointToPoint): the same
// products, PageRank and BFS over each, both equal to the single-device results, on the
// splits of cases_for (an uneven one with empty parts included). Over the host transport
// both communicators are host ones: the cases still run, against the CPU's results.
TEST_CASE("dist exchanges by peer copies equal those by NCCL and the single-device results", "[dist][p2p]") {
  const auto Af = random_matrix(300, 300, 6, 21, false);
  const auto Ai = random_matrix(257, 257, 5, 22, true);  // small integers: min / max exact
  int ran = 0;
  for (int p = 2; p <= disttest::max_ranks(); ++p) {
    const auto nccl = disttest::communicator(p, dist::PointToPoint::nccl);
    const auto peer = disttest::communicator(p, dist::PointToPoint::peer_copies);
    if (!nccl || !peer) continue;
    ++ran;
    if (!nccl->device(0).is_cpu()) {
      CHECK(nccl->name() == "nccl");
      CHECK(peer->name() == "nccl+peer");
    }
    const std::vector<dist::DistMxmOptions> exchanges{{.exchange = dist::Exchange::rows, .overlap = true},
                                                      {.exchange = dist::Exchange::rows, .overlap = false},
                                                      {.exchange = dist::Exchange::allgather}};
    for (const Case& cs : cases_for(Af, p))
      for (Index N : {1, 33, 256}) {
        const auto B = random_dense(Af.ncols(), N, 2100 + static_cast<std::uint64_t>(N));
        for (const auto& opt : exchanges) {
          // plus_times within the fp32 bound of the reference (the sums' order may differ)
          check_against_single_device(Af, B, semiring::plus_times<float>{}, "plus_times", *nccl, cs, opt);
          check_against_single_device(Af, B, semiring::plus_times<float>{}, "plus_times", *peer, cs, opt);
        }
      }
    for (const Case& cs : cases_for(Ai, p))
      for (Index N : {3, 64}) {
        const auto B = random_dense(Ai.ncols(), N, 2200 + static_cast<std::uint64_t>(N));
        for (const auto& opt : exchanges) {
          const auto a = check_against_single_device(Ai, B, semiring::min_plus<float>{}, "min_plus", *nccl, cs, opt);
          const auto b = check_against_single_device(Ai, B, semiring::min_plus<float>{}, "min_plus", *peer, cs, opt);
          CHECK(a == b);
          const auto c = check_against_single_device(Ai, B, semiring::max_times<float>{}, "max_times", *nccl, cs, opt);
          const auto d = check_against_single_device(Ai, B, semiring::max_times<float>{}, "max_times", *peer, cs, opt);
          CHECK(c == d);
        }
      }

    // PageRank for a fixed number of iterations: each step is one exchange and one sum
    // over ranks, so a late or early copy shows as a changed rank
    algo::PageRankOptions po;
    po.tolerance = 0;
    po.max_iterations = 17;
    const auto pr1 = algo::pagerank(Ai.to(disttest::reference_device()), po);
    const auto ref = pr1.ranks.to(Device::cpu()).to_std_vector();
    // BFS: one exchange per level, finish_on_device between host waits
    const std::vector<Index> sources{0, 6, 128, 256};
    std::vector<std::int64_t> lev, par;
    host_bfs(Ai, sources, lev, par);
    for (const Case& cs : cases_for(Ai, p)) {
      std::vector<std::vector<float>> ranks;
      for (const Communicator& comm : {*nccl, *peer}) {
        INFO(comm.name() << " p=" << p << " " << cs.what);
        auto dA = dist::DistSparseMatrix<float>::scatter(comm, Ai, cs.a_rows);
        const auto pr = dist::pagerank(dA, {po.damping, 0.0, po.max_iterations});
        CHECK(pr.iterations == po.max_iterations);
        ranks.push_back(pr.ranks.gather().to_row_major());
        double err = 0;
        for (std::size_t i = 0; i < ref.size(); ++i)
          err = std::max(err, std::abs(double(ranks.back()[i]) - double(ref[i])));
        CHECK(err < 1e-6);
        const auto r = dist::bfs(dA, sources);
        CHECK(r.levels.gather().to_row_major() == lev);
        CHECK(r.parents.gather().to_row_major() == par);
      }
      double between = 0;
      for (std::size_t i = 0; i < ref.size(); ++i)
        between = std::max(between, std::abs(double(ranks[0][i]) - double(ranks[1][i])));
      INFO("p=" << p << " " << cs.what);
      CHECK(between < 2e-6);
    }
  }
  if (ran == 0) WARN("SKIPPED: no two communicators of 2+ ranks, one by NCCL, one by peer copies");
}

TEST_CASE("dist: the choice of point-to-point transfers shows in the communicator's name", "[dist][p2p]") {
  if (!dist::nccl_compiled()) {
    CHECK_THROWS_AS(Communicator::nccl({}, {.point_to_point = dist::PointToPoint::peer_copies}), NotImplemented);
    CHECK_THROWS_AS(Communicator::nccl({}, {.point_to_point = dist::PointToPoint::nccl}), NotImplemented);
  }
  if (disttest::max_ranks() < 2 || disttest::reference_device().is_cpu()) return;
  const auto nccl = disttest::communicator(2, dist::PointToPoint::nccl);
  const auto peer = disttest::communicator(2, dist::PointToPoint::peer_copies);
  REQUIRE(nccl);
  CHECK(nccl->name() == "nccl");
  const Communicator automatic = disttest::fresh_communicator(2, 60, dist::PointToPoint::automatic);
  // automatic takes peer copies exactly where forcing them works
  CHECK(automatic.name() == (peer ? "nccl+peer" : "nccl"));
  if (peer) CHECK(peer->name() == "nccl+peer");
  // one GPU has nothing to copy: automatic keeps plain NCCL, a forced choice is kept
  CHECK(Communicator::nccl({0}).name() == "nccl");
  if (peer) CHECK(Communicator::nccl({0}, {.point_to_point = dist::PointToPoint::peer_copies}).name() == "nccl+peer");
}

TEST_CASE("dist exchange by peer copies: a message of another size, or without its pair, is a clear error",
          "[dist][p2p][errors]") {
  if (disttest::max_ranks() < 2) return;
  // over the host transport the same pairing is checked (matching.hpp): the case runs there too
  const auto comm = disttest::communicator(2, dist::PointToPoint::peer_copies);
  if (!comm) return;  // no peer access: communicator() said so
  auto& t = comm->transport();
  geblas::detail::RawBuffer a(256, comm->device(0)), b(256, comm->device(1));
  using Transfers = std::vector<dist::detail::RankTransfers>;
  auto expect_error = [&](const Transfers& tr, const std::vector<std::string>& words) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      t.start(tr);
      t.finish();
      FAIL("no error");
    } catch (const dist::CommunicationError& e) {
      const std::string what = e.what();
      INFO(what);
      for (const auto& w : words) CHECK(what.find(w) != std::string::npos);
    }
    // found before anything is queued: no wait for a timeout
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 5);
  };
  Transfers sizes(2);
  sizes[0].sends.push_back({1, a.data(), 256});
  sizes[1].recvs.push_back({0, b.data(), 128});
  expect_error(sizes, {"message #1 from rank 0 to rank 1 has 256 bytes", "expects 128"});
  Transfers second(2);
  second[0].sends = {{1, a.data(), 64}, {1, a.data(), 64}};
  second[1].recvs = {{0, b.data(), 64}, {0, b.data(), 32}};
  expect_error(second, {"message #2 from rank 0 to rank 1 has 64 bytes", "expects 32"});
  Transfers no_send(2);
  no_send[1].recvs.push_back({0, b.data(), 256});
  expect_error(no_send, {"rank 1 expects message #1 from rank 0"});
  Transfers no_recv(2);
  no_recv[1].sends.push_back({0, b.data(), 256});
  expect_error(no_recv, {"rank 1 sends 1 message(s) to rank 0, which receives 0"});
  Transfers to_self(2);
  to_self[0].sends.push_back({0, a.data(), 256});
  CHECK_THROWS_AS(t.start(to_self), InvalidValue);
  // nothing was queued: the communicator is not aborted, and a product over it is right
  const auto A = random_matrix(90, 90, 4, 31, true);
  const Case cs{"even", Partition::even(90, comm->size()), Partition::even(90, comm->size())};
  check_against_single_device(A, random_dense(90, 8, 32), semiring::min_plus<float>{}, "after the errors", *comm, cs,
                              {});
}

TEST_CASE("dist read_binary: each rank reads its rows of a binary file", "[dist][io]") {
  const auto A = random_matrix(203, 150, 5, 61, false);
  const auto path =
      (std::filesystem::temp_directory_path() / ("geblas-dist-" + std::to_string(::getpid()) + "-binary-rows.bin"))
          .string();
  io::write_binary(path, A);
  const int p = std::min(3, disttest::max_ranks());
  const Communicator comm = disttest::communicator(p);
  // the default split (Partition::for_products), the same one scatter makes
  const auto read = dist::DistSparseMatrix<float>::read_binary(comm, path);
  const auto scattered = dist::DistSparseMatrix<float>::scatter(comm, A);
  REQUIRE(read.nrows() == A.nrows());
  REQUIRE(read.ncols() == A.ncols());
  for (int k = 0; k < p; ++k) {
    INFO("rank " << k);
    CHECK(read.partition().begin(k) == scattered.partition().begin(k));
    CHECK(read.partition().end(k) == scattered.partition().end(k));
    CHECK(read.local(k).to(Device::cpu()).extract_tuples() ==
          rows_of(A, read.partition().begin(k), read.partition().end(k)));
  }
  // an uneven split with an empty rank
  if (p == 3) {
    const Partition part({0, 0, 150, A.nrows()});
    const auto uneven = dist::DistSparseMatrix<float>::read_binary(comm, path, part);
    for (int k = 0; k < 3; ++k)
      CHECK(uneven.local(k).to(Device::cpu()).extract_tuples() == rows_of(A, part.begin(k), part.end(k)));
  }
  // a split of the wrong size for the file is a clear error on every rank
  CHECK_THROWS_AS(dist::DistSparseMatrix<float>::read_binary(comm, path, Partition::even(A.nrows() - 1, p)),
                  DimensionMismatch);
  std::filesystem::remove(path);
}
