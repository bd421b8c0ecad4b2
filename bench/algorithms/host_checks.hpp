// Independent host computations bench_algorithms checks each result against, on plain
// CSR arrays and sharing nothing with the library: queue BFS, heap Dijkstra, union-find,
// degree-ordered triangle counting, one step of PageRank's power iteration (the residual
// of a claimed fixed point), and row-by-row GNN aggregations. Also the deterministic
// weights and roots, which networkx_compare.py reproduces (splitmix64).
#pragma once

#include <cstdint>
#include <vector>

#include "geblas/types.hpp"

namespace geblas::bench {

struct HostCsr {
  Index n = 0;
  std::vector<Index> ro;     // n + 1
  std::vector<ColIndex> ci;  // sorted within each row
  Index out_degree(Index i) const { return ro[static_cast<std::size_t>(i + 1)] - ro[static_cast<std::size_t>(i)]; }
  bool has_edge(Index i, Index j) const;
};

std::uint64_t splitmix64(std::uint64_t x);
// SSSP weight of edge (i, j): 1 + splitmix64(min << 32 | max) mod 100, an integer in
// [1, 100] (exact in float along any path below 2^24), the same in both directions.
float edge_weight(Index i, Index j);
// The first `count` vertices with out-degree > 0 of the stream splitmix64(seed << 32 | a)
// mod n, a = 0, 1, ... (repeats allowed). Throws InvalidValue when A has no edges.
std::vector<Index> pick_roots(const HostCsr& g, std::uint64_t seed, Index count);

std::vector<std::int64_t> bfs_levels(const HostCsr& g, Index source);  // -1: unreached
std::vector<double> dijkstra(const HostCsr& g, Index source);          // edge_weight; +inf: unreached
std::vector<std::int64_t> component_labels(const HostCsr& g);          // smallest vertex id, edges undirected
std::int64_t triangles(const HostCsr& g);                              // undirected simple graph under g
// The strictly "lower" half of the undirected simple graph under g in the order
// (degree, id): row i lists the j with (deg j, j) < (deg i, i). Every triangle appears
// once as L(a, b), L(a, c), L(b, c); L plus.pair L masked by L sums to the count.
HostCsr degree_oriented(const HostCsr& g);
std::int64_t triangles_oriented(const HostCsr& L);  // the count from degree_oriented's L

// ||T(r) - r||_1 for T one power-iteration step of (personalized) PageRank on the
// pattern of g: T(r) = d P' r + (d * dangling mass + 1 - d) p, with p uniform (seeds
// empty) or uniform over `seeds`.
double pagerank_residual(const HostCsr& g, const std::vector<float>& r, double damping,
                         const std::vector<Index>& seeds);

// Row i of the aggregations (f features, X row-major n x f), into out (f values):
// GCN over A + I with D^-1/2 scaling; GraphSAGE mean (0 for an isolated row) and max
// over the pattern (-inf for an isolated row).
void gcn_row(const HostCsr& g, const std::vector<float>& X, Index f, Index i, std::vector<double>& out);
void sage_mean_row(const HostCsr& g, const std::vector<float>& X, Index f, Index i, std::vector<double>& out);
void sage_max_row(const HostCsr& g, const std::vector<float>& X, Index f, Index i, std::vector<double>& out);

}  // namespace geblas::bench
