// Graphs the benches share: the shared data folder's Matrix Market files and the seeded
// generated graphs (R-MAT with the Graph500 parameters, uniform random rows), as host
// CSR matrices. bench_spmm and bench_algorithms build the same graphs from the same
// specs and seeds, so their numbers are about the same matrices.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "geblas/sparse_matrix.hpp"

namespace geblas::bench {

struct HostGraph {
  std::string name;
  bool shared = false;    // from the shared data folder (the issues' targets are stated over these)
  SparseMatrix<float> A;  // host CSR
};

// $GEBLAS_DATA_DIR when set, else `fallback` (the build's default).
std::filesystem::path data_dir(const char* fallback);

// Graph names (file name without .mtx.gz) of `dir`, sorted; feature matrices excluded.
std::vector<std::string> shared_graph_names(const std::filesystem::path& dir);

// Every row gets nnz / rows distinct random columns (values 1).
SparseMatrix<float> uniform_csr(Index rows, Index nnz, std::uint64_t seed);

// R-MAT (a, b, c, d) = (0.57, 0.19, 0.19, 0.05) (Graph500), 2^scale vertices and
// edge_factor * 2^scale generated edges, duplicates merged (values 1). Vertex ids are not
// permuted, so low ids are the hubs.
SparseMatrix<float> rmat_csr(int scale, int edge_factor, std::uint64_t seed);

// The undirected graph of rmat_csr's edges with the vertex ids randomly permuted, as the
// GAP Benchmark Suite's Kronecker generator builds it (-g SCALE -k EDGE_FACTOR): both
// directions of every edge, self-loops dropped, duplicates merged (values 1).
SparseMatrix<float> kronecker_csr(int scale, int edge_factor, std::uint64_t seed);

// A symmetric graph with power-law degrees whose largest row holds about max_row entries
// (Chung-Lu: vertex i gets the weight hub * (i + 1)^-beta, beta chosen so that the weights
// sum to `nnz`, hub raised until the largest row holds max_row entries to within 2%; nnz / 2
// edges with both ends drawn by weight, both directions stored, self-loops dropped,
// duplicates merged (so a little under nnz entries), ids permuted at random; values 1).
// It reproduces the shape of small follower networks with one hub row of thousands of
// entries, the case where a row-per-warp SpMM leaves the hub's warp running alone.
SparseMatrix<float> powerlaw_csr(Index rows, Index nnz, Index max_row, std::uint64_t seed);

// "uniform:ROWS:NNZ,rmat:SCALE:EF,kron:SCALE:EF,powerlaw:ROWS:NNZ:MAX_ROW,...": the k-th
// entry (1-based) gets seed first_seed + k, the numbering bench_spmm has always used, so
// that e.g. "uniform:1000000:16000000,rmat:20:16" is the same pair of graphs in both
// benches. Throws InvalidValue on a bad entry.
std::vector<HostGraph> generated_graphs(const std::string& specs, std::uint64_t first_seed = 20261123);

std::vector<std::string> split(const std::string& s, char sep);

}  // namespace geblas::bench
