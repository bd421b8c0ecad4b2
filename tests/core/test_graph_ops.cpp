// The graph operations (src/core/graph_ops.hpp), the validated way from the algorithms
// to the backends' graph entries: each argument that is on the wrong device, of the
// wrong type, size or form is refused with the matching geblas error naming the
// operation and the argument, before any backend code runs; and valid arguments reach
// the entry, whose results are checked against answers worked out by hand (or by a
// plain loop here) on a small graph. The algorithms' own oracle tests (tests/algorithms)
// cover the entries at scale.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/graph_ops.hpp"
#include "geblas/algorithms/bfs.hpp"
#include "geblas/geblas.hpp"
#include "support/catch.hpp"
#include "support/device.hpp"

using namespace geblas;
namespace gd = geblas::detail;

namespace {

Device dev() { return test::device(); }
// A device the test's data is not on. Storage is moved there only by its tag, which is
// what the checks read first (on the host-only build no such device exists).
Device elsewhere() { return dev().is_cpu() ? Device::cuda(0) : Device::cpu(); }

// Equal to a relative 1e-12 (float: 1e-6), for sums the backend may add in another order.
template <class T>
bool near(T got, T want) {
  const double tol = sizeof(T) == 4 ? 1e-6 : 1e-12;
  return std::fabs(static_cast<double>(got) - static_cast<double>(want)) <= tol * std::max(1.0, std::fabs(static_cast<double>(want)));
}

template <class E, class F>
void expect_error(F&& f, const std::string& part) {
  try {
    f();
  } catch (const E& e) {
    CHECK_THAT(std::string(e.what()), test::contains(part));
    return;
  }
  FAIL("no error; expected one saying \"" << part << "\"");
}

// The undirected graph: triangles {0, 1, 2} and {1, 2, 3}, the path 3 - 4, vertex 5
// alone, the edge 6 - 7; each edge stored in both directions, weight 1 + u + v.
constexpr Index n = 8;
const std::vector<std::pair<Index, Index>> edges = {{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}, {3, 4}, {6, 7}};

template <class T>
SparseMatrix<T> graph() {
  std::vector<Index> r, c;
  std::vector<T> v;
  for (auto [a, b] : edges) {
    r.push_back(a), c.push_back(b), v.push_back(static_cast<T>(1 + a + b));
    r.push_back(b), c.push_back(a), v.push_back(static_cast<T>(1 + a + b));
  }
  return SparseMatrix<T>::from_tuples(n, n, r, c, v, {}, dev());
}

gd::VectorStorage ids(Index size) { return gd::make_dense_vector(size, TypeId::int64, dev()); }

gd::DenseStorage id_columns(Index rows, Index k) {
  return gd::make_dense(rows, k, Layout::col_major, TypeId::int64, dev());
}

template <class T>
std::vector<T> host(const gd::VectorStorage& v) {
  return Vector<T>(gd::VectorStorage(v)).to_std_vector();
}

std::vector<std::int64_t> host_column(const gd::DenseStorage& d, Index c) {
  const auto all = DenseMatrix<std::int64_t>(gd::DenseStorage(d)).to(Device::cpu()).to_col_major();
  return {all.begin() + c * d.nrows, all.begin() + (c + 1) * d.nrows};
}

}  // namespace

TEST_CASE("bfs_levels: valid arguments reach the traversal", "[core][graph_ops]") {
  const auto A = graph<float>();
  for (auto dir : {algo::BfsDirection::automatic, algo::BfsDirection::push, algo::BfsDirection::pull}) {
    auto levels = ids(n), parents = ids(n);
    const auto s = gd::bfs_levels(A.storage(), 0, dir, levels, parents);
    CHECK(host<std::int64_t>(levels) == std::vector<std::int64_t>{0, 1, 1, 2, 3, -1, -1, -1});
    CHECK(host<std::int64_t>(parents) == std::vector<std::int64_t>{0, 0, 0, 1, 3, -1, -1, -1});
    CHECK(s.depth == 3);
    CHECK(s.reached == 5);
    CHECK(s.level_sizes == std::vector<std::int64_t>{2, 1, 1});
    CHECK(s.record.operation == "bfs");
  }
  // Columns: source c into column c of 8 x 2 results.
  auto levels = id_columns(n, 2), parents = id_columns(n, 2);
  const auto At = gd::bfs_in_edges(A.storage(), algo::BfsDirection::pull);
  gd::bfs_levels_column(A.storage(), At.get(), 7, algo::BfsDirection::pull, levels, parents, 1);
  gd::bfs_levels_column(A.storage(), At.get(), 4, algo::BfsDirection::pull, levels, parents, 0);
  CHECK(host_column(levels, 0) == std::vector<std::int64_t>{3, 2, 2, 1, 0, -1, -1, -1});
  CHECK(host_column(levels, 1) == std::vector<std::int64_t>{-1, -1, -1, -1, -1, -1, 1, 0});
  CHECK(host_column(parents, 0) == std::vector<std::int64_t>{1, 3, 3, 4, 4, -1, -1, -1});
}

TEST_CASE("bfs_levels: wrong arguments give clear errors", "[core][graph_ops]") {
  const auto A = graph<double>();
  const auto& S = A.storage();
  auto levels = ids(n), parents = ids(n);
  const auto run = [&](const gd::SparseStorage& M, Index source, gd::VectorStorage& l, gd::VectorStorage& p) {
    gd::bfs_levels(M, source, algo::BfsDirection::automatic, l, p);
  };
  const auto rect = SparseMatrix<double>(n, n + 1, dev());
  expect_error<DimensionMismatch>([&] { run(rect.storage(), 0, levels, parents); }, "bfs: the adjacency matrix must be square, got 8 x 9");
  expect_error<IndexOutOfBounds>([&] { run(S, n, levels, parents); }, "bfs: source 8 is outside the graph's vertices [0, 8)");
  expect_error<IndexOutOfBounds>([&] { run(S, -1, levels, parents); }, "source -1");

  auto away = levels;
  away.device = elsewhere();
  expect_error<DeviceMismatch>([&] { run(S, 0, away, parents); }, "bfs: levels is on " + elsewhere().str());
  auto wrong_type = gd::make_dense_vector(n, TypeId::float64, dev());
  expect_error<DomainMismatch>([&] { run(S, 0, levels, wrong_type); }, "bfs: parents is float64, expected int64");
  auto short_vector = ids(n - 1);
  expect_error<DimensionMismatch>([&] { run(S, 0, short_vector, parents); }, "bfs: levels has size 7, expected 8");
  auto sparse = gd::make_sparse_vector(n, TypeId::int64, dev());
  expect_error<InvalidValue>([&] { run(S, 0, levels, sparse); }, "bfs: parents must be a dense vector");
  auto small_buffer = ids(n);
  small_buffer.values = gd::RawBuffer(8, dev());
  expect_error<InvalidObject>([&] { run(S, 0, small_buffer, parents); }, "bfs: levels holds 8 bytes");
  expect_error<InvalidValue>([&] { run(S, 0, levels, levels); }, "levels and parents are the same buffer");
  // A on another device than its results.
  auto A_away = S;
  A_away.device = elsewhere();
  expect_error<DeviceMismatch>([&] { run(A_away, 0, levels, parents); }, "bfs: levels is on " + dev().str());
  if (!dev().is_cpu()) {
    auto on_host = gd::make_dense_vector(n, TypeId::int64, Device::cpu());
    expect_error<DeviceMismatch>([&] { run(S, 0, levels, on_host); }, "bfs: parents is on cpu");
  }
}

TEST_CASE("bfs_levels_column and bfs_many_levels: wrong arguments give clear errors", "[core][graph_ops]") {
  const auto A = graph<float>();
  const auto& S = A.storage();
  const auto At = gd::bfs_in_edges(S, algo::BfsDirection::pull);
  const auto pull = algo::BfsDirection::pull;
  auto levels = id_columns(n, 2), parents = id_columns(n, 2);
  expect_error<IndexOutOfBounds>([&] { gd::bfs_levels_column(S, At.get(), 0, pull, levels, parents, 2); },
                                 "bfs: result column 2 is outside [0, 2)");
  auto row_major = gd::make_dense(n, 2, Layout::row_major, TypeId::int64, dev());
  expect_error<InvalidValue>([&] { gd::bfs_levels_column(S, At.get(), 0, pull, row_major, parents, 0); },
                             "bfs: levels must be column-major");
  auto narrow = id_columns(n, 1);
  expect_error<DimensionMismatch>([&] { gd::bfs_levels_column(S, At.get(), 0, pull, levels, narrow, 0); },
                                  "bfs: parents is 8 x 1, expected 8 x 2");
  auto floats = gd::make_dense(n, 2, Layout::col_major, TypeId::float64, dev());
  expect_error<DomainMismatch>([&] { gd::bfs_levels_column(S, At.get(), 0, pull, floats, parents, 0); },
                               "bfs: levels is float64, expected int64");
  auto away = levels;
  away.device = elsewhere();
  expect_error<DeviceMismatch>([&] { gd::bfs_levels_column(S, At.get(), 0, pull, away, parents, 0); },
                               "bfs: levels is on " + elsewhere().str());
  const auto other = SparseMatrix<float>(n + 1, n + 1, dev());
  expect_error<DimensionMismatch>(
      [&] { gd::bfs_levels_column(S, &other.storage(), 0, pull, levels, parents, 0); }, "bfs: A' is 9 x 9");
  expect_error<InvalidValue>([&] { gd::bfs_levels_column(S, nullptr, 0, pull, levels, parents, 0); },
                             "bfs: this traversal needs A'");
  expect_error<IndexOutOfBounds>([&] { gd::bfs_levels_column(S, At.get(), 9, pull, levels, parents, 0); },
                                 "bfs: source 9");

  // Many sources at once: where the backend has no such traversal, NotImplemented naming
  // the device; otherwise the results' checks.
  const std::vector<Index> sources = {0, 7};
  if (!gd::has_bfs_many(dev())) {
    expect_error<NotImplemented>([&] { gd::bfs_many_levels(S, sources, levels, parents); },
                                 "bfs (many sources) is not implemented on " + dev().str());
  } else {
    gd::bfs_many_levels(S, sources, levels, parents);
    CHECK(host_column(levels, 0) == std::vector<std::int64_t>{0, 1, 1, 2, 3, -1, -1, -1});
    CHECK(host_column(levels, 1) == std::vector<std::int64_t>{-1, -1, -1, -1, -1, -1, 1, 0});
  }
  expect_error<InvalidValue>([&] { gd::bfs_many_levels(S, {}, levels, parents); }, "no sources given");
  expect_error<IndexOutOfBounds>([&] { gd::bfs_many_levels(S, {0, 8}, levels, parents); }, "source 8");
  auto three = id_columns(n, 3);
  expect_error<DimensionMismatch>([&] { gd::bfs_many_levels(S, sources, three, parents); },
                                  "levels is 8 x 3, expected 8 x 2");
  auto padded = gd::make_dense(n + 2, 2, Layout::col_major, TypeId::int64, dev());
  padded.nrows = n;  // ld 10 over 8 rows: a valid view for one column at a time, not for all
  if (gd::has_bfs_many(dev()))
    expect_error<InvalidValue>([&] { gd::bfs_many_levels(S, sources, padded, parents); },
                               "leading dimension must be their 8 rows");
  gd::bfs_levels_column(S, At.get(), 0, pull, padded, parents, 1);
  CHECK(host_column(parents, 1) == std::vector<std::int64_t>{0, 0, 0, 1, 3, -1, -1, -1});
}

TEST_CASE("sssp_distances: valid and wrong arguments", "[core][graph_ops]") {
  const auto A = graph<double>();
  // Bellman-Ford on the host, the oracle.
  std::vector<double> want(n, std::numeric_limits<double>::infinity());
  want[0] = 0;
  for (Index round = 0; round < n; ++round)
    for (auto [a, b] : edges) {
      const double w = static_cast<double>(1 + a + b);
      want[b] = std::min(want[b], want[a] + w);
      want[a] = std::min(want[a], want[b] + w);
    }
  for (double delta : {0.5, 3.0, 100.0}) {
    auto d = gd::make_dense_vector(n, TypeId::float64, dev());
    const auto s = gd::sssp_distances(A.storage(), 0, delta, d);
    const auto got = host<double>(d);
    for (Index i = 0; i < n; ++i) CHECK(got[i] == want[i]);
    CHECK(s.rounds >= 1);
  }
  auto d = gd::make_dense_vector(n, TypeId::float64, dev());
  const auto ints = SparseMatrix<std::int64_t>(n, n, dev());
  expect_error<DomainMismatch>([&] { gd::sssp_distances(ints.storage(), 0, 1, d); },
                               "sssp: A is int64, expected float32 or float64");
  auto floats = gd::make_dense_vector(n, TypeId::float32, dev());
  expect_error<DomainMismatch>([&] { gd::sssp_distances(A.storage(), 0, 1, floats); },
                               "sssp: distances is float32, expected float64");
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::nan("")})
    expect_error<InvalidValue>([&] { gd::sssp_distances(A.storage(), 0, bad, d); },
                               "sssp: the bucket width must be finite and > 0");
  auto away = d;
  away.device = elsewhere();
  expect_error<DeviceMismatch>([&] { gd::sssp_distances(A.storage(), 0, 1, away); }, "sssp: distances is on");
  expect_error<IndexOutOfBounds>([&] { gd::sssp_distances(A.storage(), 8, 1, d); }, "sssp: source 8");
  auto longer = gd::make_dense_vector(n + 1, TypeId::float64, dev());
  expect_error<DimensionMismatch>([&] { gd::sssp_distances(A.storage(), 0, 1, longer); },
                                  "sssp: distances has size 9, expected 8");
}

TEST_CASE("component_labels and count_triangles: valid and wrong arguments", "[core][graph_ops]") {
  const auto A = graph<std::int32_t>();
  auto labels = ids(n);
  const auto c = gd::component_labels(A.storage(), labels);
  CHECK(host<std::int64_t>(labels) == std::vector<std::int64_t>{0, 0, 0, 0, 0, 5, 6, 6});
  CHECK(c.count == 3);
  const auto t = gd::count_triangles(A.storage());
  CHECK(t.triangles == 2);

  auto floats = gd::make_dense_vector(n, TypeId::float32, dev());
  expect_error<DomainMismatch>([&] { gd::component_labels(A.storage(), floats); },
                               "connected_components: labels is float32, expected int64");
  auto away = labels;
  away.device = elsewhere();
  expect_error<DeviceMismatch>([&] { gd::component_labels(A.storage(), away); }, "connected_components: labels is on");
  auto fewer = ids(n - 2);
  expect_error<DimensionMismatch>([&] { gd::component_labels(A.storage(), fewer); },
                                  "labels has size 6, expected 8");
  const auto rect = SparseMatrix<bool>(3, 4, dev());
  expect_error<DimensionMismatch>([&] { gd::component_labels(rect.storage(), fewer); }, "must be square, got 3 x 4");
  expect_error<DimensionMismatch>([&] { gd::count_triangles(rect.storage()); },
                                  "triangle_count: the adjacency matrix must be square, got 3 x 4");
}

TEST_CASE("diagonal_scaled: valid and wrong arguments", "[core][graph_ops]") {
  const auto A = graph<float>();
  std::vector<float> r(n), c(n);
  for (Index i = 0; i < n; ++i) r[i] = 1.0f + static_cast<float>(i), c[i] = 0.5f * static_cast<float>(i + 1);
  const auto R = Vector<float>::from_dense(r, dev()), C = Vector<float>::from_dense(c, dev());
  for (bool pattern_only : {false, true})
    for (bool unit_diagonal : {false, true}) {
      INFO("pattern_only=" << pattern_only << " unit_diagonal=" << unit_diagonal);
      const SparseMatrix<float> T(
          gd::diagonal_scaled(A.storage(), TypeId::float32, &R.storage(), &C.storage(), pattern_only, unit_diagonal));
      std::vector<float> want(n * n, 0), got(n * n, 0);
      std::vector<bool> present(n * n, false), seen(n * n, false);
      for (const auto& e : A.extract_tuples()) {
        want[e.row * n + e.col] = r[e.row] * (pattern_only ? 1.0f : e.value) * c[e.col];
        present[e.row * n + e.col] = true;
      }
      if (unit_diagonal)
        for (Index i = 0; i < n; ++i) want[i * n + i] = r[i] * c[i], present[i * n + i] = true;
      for (const auto& e : T.extract_tuples()) got[e.row * n + e.col] = e.value, seen[e.row * n + e.col] = true;
      CHECK(seen == present);
      for (Index k = 0; k < n * n; ++k) CHECK(near(got[k], want[k]));
    }
  const auto D = Vector<double>::from_dense(std::vector<double>(n, 2.0), dev());
  expect_error<DomainMismatch>(
      [&] { gd::diagonal_scaled(A.storage(), TypeId::float64, nullptr, nullptr, false, false); },
      "A is float32, expected float64");
  expect_error<DomainMismatch>(
      [&] { gd::diagonal_scaled(A.storage(), TypeId::float32, &D.storage(), nullptr, true, false); },
      "the row scaling is float64, expected float32");
  const auto shorter = Vector<float>::from_dense(std::vector<float>(n - 1, 1.0f), dev());
  expect_error<DimensionMismatch>(
      [&] { gd::diagonal_scaled(A.storage(), TypeId::float32, nullptr, &shorter.storage(), true, false); },
      "the column scaling has size 7, expected 8");
  auto away = R.storage();
  away.device = elsewhere();
  expect_error<DeviceMismatch>([&] { gd::diagonal_scaled(A.storage(), TypeId::float32, &away, nullptr, true, false); },
                               "the row scaling is on " + elsewhere().str());
}

TEST_CASE("PageRankIterations: valid and wrong arguments", "[core][graph_ops]") {
  const auto A = graph<double>();  // symmetric: A' = A
  const double d = 0.85;
  std::vector<double> out(n, 0), scale(n, 0);
  for (auto [a, b] : edges) out[a] += 1, out[b] += 1;
  for (Index j = 0; j < n; ++j) scale[j] = out[j] > 0 ? d / out[j] : 0;
  const auto S = Vector<double>::from_dense(scale, dev());
  // Two iterations by hand from the uniform start, unweighted.
  std::vector<double> x(n, 1.0 / n);
  std::vector<double> deltas;
  for (int it = 0; it < 2; ++it) {
    std::vector<double> next(n, (1 - d) / n);
    for (auto [a, b] : edges) next[a] += x[b] * scale[b], next[b] += x[a] * scale[a];
    double delta = 0;
    for (Index i = 0; i < n; ++i) delta += std::fabs(next[i] - x[i]);
    deltas.push_back(delta);
    x = next;
  }
  gd::PageRankIterations iterate(A.storage(), false, S.storage(), nullptr, (1 - d) / n, nullptr, 1.0 / n, 0);
  const auto b = iterate.run(0, 2);
  REQUIRE(b.deltas.size() == 2);
  for (int it = 0; it < 2; ++it) CHECK(near(b.deltas[it], deltas[it]));
  const auto got = host<double>(iterate.take_iterate(b.current));
  for (Index i = 0; i < n; ++i) CHECK(near(got[i], x[i]));

  expect_error<InvalidValue>([&] { iterate.run(2, 1); }, "from slot 2");
  expect_error<InvalidValue>([&] { iterate.run(0, -1); }, "got count -1");
  expect_error<InvalidValue>([&] { iterate.take_iterate(-1); }, "slot 0 or 1, not -1");

  const auto make = [&](const gd::SparseStorage& At, const gd::VectorStorage& s, const gd::VectorStorage* tele,
                        double tolerance) {
    gd::PageRankIterations bad(At, false, s, tele, 0.1, nullptr, 0.1, tolerance);
  };
  const auto ints = SparseMatrix<std::int64_t>(n, n, dev());
  expect_error<DomainMismatch>([&] { make(ints.storage(), S.storage(), nullptr, 0); },
                               "pagerank iterations: A' is int64, expected float32 or float64");
  const auto rect = SparseMatrix<double>(n, n - 1, dev());
  expect_error<DimensionMismatch>([&] { make(rect.storage(), S.storage(), nullptr, 0); }, "must be square");
  const auto F = Vector<float>::from_dense(std::vector<float>(n, 0.1f), dev());
  expect_error<DomainMismatch>([&] { make(A.storage(), F.storage(), nullptr, 0); },
                               "the scale d / out is float32, expected float64");
  const auto shorter = Vector<double>::from_dense(std::vector<double>(n - 1, 0.1), dev());
  expect_error<DimensionMismatch>([&] { make(A.storage(), shorter.storage(), nullptr, 0); },
                                  "the scale d / out has size 7, expected 8");
  auto away = S.storage();
  away.device = elsewhere();
  expect_error<DeviceMismatch>([&] { make(A.storage(), S.storage(), &away, 0); }, "the teleport term is on");
  expect_error<InvalidValue>([&] { make(A.storage(), S.storage(), nullptr, std::nan("")); }, "tolerance must be >= 0");
}
