// GraphSAGE max-pool aggregation over a real graph's node features: every vertex takes,
// feature by feature, the maximum over its neighbours (one max_times SpMM). Cora's
// citation graph and bag-of-words features are the default input.
//   example_gnn_aggregate [graph.mtx.gz features.mtx.gz]
//   (default: $GEBLAS_DATA_DIR or ../shared/data, cora.mtx.gz and cora.features.mtx.gz)
#include <geblas/geblas.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using namespace geblas;
  const char* env = std::getenv("GEBLAS_DATA_DIR");
  const std::string dir = env && *env ? env : "../shared/data";
  const std::string graph = argc > 2 ? argv[1] : dir + "/cora.mtx.gz";
  const std::string features = argc > 2 ? argv[2] : dir + "/cora.features.mtx.gz";
  try {
    const Device dev = default_device();
    // The adjacency as a pattern of ones, so that max_times gives the plain maximum.
    const auto A = io::read_matrix_market<float>(graph).to(dev);
    // Features are stored sparse; an SpMM operand is dense (n x f).
    const auto F = io::read_matrix_market<float>(features);
    std::vector<float> x(static_cast<std::size_t>(F.nrows() * F.ncols()), 0.0f);
    for (const auto& t : F.extract_tuples()) x[static_cast<std::size_t>(t.row * F.ncols() + t.col)] = t.value;
    const auto X = DenseMatrix<float>::from_row_major(F.nrows(), F.ncols(), x, dev);

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
