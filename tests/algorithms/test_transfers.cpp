// The algorithms stay on A's device: with A on a GPU, a call moves only scalars and
// small per-round or per-source data between host and device, never an array of n or
// nnz entries. Checked with geblas::transfer_counts() around each call, on a graph large
// enough that any O(n) copy (300k vertices: 1.2 MB of 4-byte values) is far above the
// bound. On the CPU every count is zero, which the same test also checks on a smaller
// graph (the CPU's masked sparse x sparse product is quadratic in n, and CI runs this
// program under the sanitizers).
#include <string>
#include <vector>

#include "algorithms/graphs.hpp"
#include "support/catch.hpp"

using namespace geblas;

namespace {

std::int64_t vertices() { return algotest::device().is_cpu() ? 20000 : 300000; }

// Fixed per call (options, a handful of scalars, k x k teleport matrices for k seed
// sets) plus a little per round: far below one O(n) array.
std::uint64_t bound(std::int64_t rounds, std::int64_t k) {
  return 64 * 1024 + 64 * static_cast<std::uint64_t>(rounds) + 32 * static_cast<std::uint64_t>(k * k);
}

// A sparse random graph with a few hubs, built once.
const oracle::Graph& graph() {
  static const oracle::Graph g = [] {
    const std::int64_t n = vertices();
    oracle::Graph h = algotest::random_graph(n, 3.0, 97);
    for (std::int64_t v = 10; v < n; v += 7) h.edges.push_back({v, v % 5, 1.0});
    return h;
  }();
  return g;
}

template <class F>
void check_traffic(const std::string& what, std::int64_t k, F&& run) {
  reset_transfer_counts();
  const std::int64_t rounds = run();
  const TransferCounts t = transfer_counts();
  const std::uint64_t moved = t.host_to_device_bytes + t.device_to_host_bytes;
  INFO(what << ": " << rounds << " rounds, host->device " << t.host_to_device_bytes << " B in "
            << t.host_to_device_copies << " copies, device->host " << t.device_to_host_bytes << " B in "
            << t.device_to_host_copies << " copies, bound " << bound(rounds, k) << " B");
  if (algotest::device().is_cpu()) CHECK(moved == 0);
  CHECK(moved <= bound(rounds, k));
}

}  // namespace

TEST_CASE("algorithms move no O(n) data between host and device", "[algo][transfers]") {
  const auto A = algotest::to_matrix<float>(graph());
  const auto P = algotest::to_matrix<std::int32_t>(graph());
  const std::vector<Index> sources{0, 1, 12345, vertices() - 1};
  synchronize(A.device());
  // Each algorithm twice: the first call builds A's derived facts (on the device), the
  // second reuses them; both must stay within the bound.
  for (int call = 1; call <= 2; ++call) {
    const std::string n = " (call " + std::to_string(call) + ")";
    check_traffic("pagerank" + n, 1, [&] { return algo::pagerank(A, {.tolerance = 1e-7}).iterations; });
    check_traffic("personalized pagerank, 1 set" + n, 1,
                  [&] { return algo::personalized_pagerank(A, {{0, 5}}, {.tolerance = 1e-7}).iterations; });
    check_traffic("personalized pagerank, 4 sets" + n, 4, [&] {
      return algo::personalized_pagerank(A, {{0}, {1}, {2, 3}, {vertices() - 1}}, {.tolerance = 1e-7}).iterations;
    });
    check_traffic("sssp" + n, 1, [&] { return algo::sssp(A, Index{0}).rounds; });
    check_traffic("sssp, 4 sources" + n, 4, [&] { return algo::sssp(A, sources).rounds; });
    check_traffic("bfs" + n, 1, [&] { return algo::bfs(P, Index{0}).depth; });
    check_traffic("bfs, 4 sources" + n, 4, [&] { return algo::bfs(P, sources).depth; });
    check_traffic("connected components" + n, 1, [&] { return algo::connected_components(P).rounds; });
    check_traffic("triangle count" + n, 1, [&] {
      (void)algo::triangle_count(P);
      return std::int64_t{1};
    });
    const auto X = DenseMatrix<float>::random(vertices(), 16, A.device(), 5);
    DenseMatrix<float> Y(vertices(), 16, A.device());
    synchronize(A.device());
    check_traffic("graphsage mean" + n, 1, [&] {
      algo::sage_mean_aggregate(Y, A, X);
      return std::int64_t{1};
    });
    check_traffic("gcn normalize + aggregate" + n, 1, [&] {
      const auto H = algo::gcn_normalize(A);
      algo::gcn_aggregate(Y, H, X);
      return std::int64_t{1};
    });
  }
}
