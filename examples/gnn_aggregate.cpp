// GraphSAGE max-pool aggregation over a graph's node features: every vertex takes,
// feature by feature, the maximum over its neighbours (one max_times SpMM). The features
// come from a Matrix Market file (sparse, one row per vertex: Cora's bag-of-words, say)
// or, without one, are one-hot labels: vertex v has feature v mod 16.
//   example_gnn_aggregate [graph.mtx[.gz] [features.mtx[.gz]]]     (default: the bundled graph)
#include <geblas/geblas.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "bundled_graph.hpp"

int main(int argc, char** argv) {
  using namespace geblas;
  const std::string graph = argc > 1 ? argv[1] : bundled_graph();
  try {
    const Device dev = default_device();
    // The adjacency as a pattern of ones, so that max_times gives the plain maximum.
    const auto A = io::read_matrix_market<float>(graph).to(dev);
    // An SpMM operand is dense (vertices x features), row-major here.
    Index nfeatures = 16;
    std::vector<float> x;
    if (argc > 2) {
      const auto F = io::read_matrix_market<float>(argv[2]);
      nfeatures = F.ncols();
      x.assign(static_cast<std::size_t>(F.nrows() * nfeatures), 0.0f);
      for (const auto& t : F.extract_tuples()) x[static_cast<std::size_t>(t.row * nfeatures + t.col)] = t.value;
    } else {
      x.assign(static_cast<std::size_t>(A.ncols() * nfeatures), 0.0f);
      for (Index v = 0; v < A.ncols(); ++v) x[static_cast<std::size_t>(v * nfeatures + v % nfeatures)] = 1.0f;
    }
    const auto X = DenseMatrix<float>::from_row_major(static_cast<Index>(x.size()) / nfeatures, nfeatures, x, dev);

    DenseMatrix<float> H(A.nrows(), X.ncols(), dev);
    algo::sage_max_aggregate(H, A, X);  // H(i,:) = max over neighbours j of X(j,:)

    // How many features does the neighbourhood add that the vertex itself lacks?
    const auto h = H.to_row_major();
    Index gained = 0;
    for (std::size_t k = 0; k < h.size(); ++k) gained += h[k] > 0 && x[k] == 0;
    std::printf("%s on %s: %lld x %lld features aggregated; %lld (vertex, feature) pairs gained from neighbours\n",
                graph.c_str(), dev.str().c_str(), static_cast<long long>(H.nrows()),
                static_cast<long long>(H.ncols()), static_cast<long long>(gained));
  } catch (const Error& e) {
    std::fprintf(stderr, "example_gnn_aggregate: %s\n", e.what());
    return 1;
  }
}
