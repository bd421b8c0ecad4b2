// A semiring of your own: (max, min) "widest path", written at run time as a
// geblas::jit::semiring. Widest path: the capacity of a path is its narrowest edge; we
// want the widest path to each vertex. On a GPU the library compiles the two operators
// into its tuned SpMM kernels (NVRTC, cached on disk: no nvcc in this program's build);
// without one the same semiring runs on the CPU, with the same results.
//   example_custom_semiring [graph.mtx[.gz]]     (default: the bundled graph)
#include <geblas/geblas.hpp>
#include <geblas/jit.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "bundled_graph.hpp"

int main(int argc, char** argv) {
  using namespace geblas;
  const std::string path = argc > 1 ? argv[1] : bundled_graph();
  try {
    const Device dev = default_device();  // the GPU when there is one, else the CPU
    // add = max, identity 0 (no path); multiply = min (the bottleneck). Each half is a
    // built-in name or an expression over a and b (<geblas/jit.hpp> gives the grammar).
    const jit::semiring<double> widest(jit::monoid{"max(a, b)", "0"}, "min");
    const auto A = io::read_matrix_market<double>(path).to(dev);
    const Index n = A.nrows();
    // w(v) = widest capacity from vertex 0 to v; iterate w = max(w, A' (max.min) w).
    std::vector<double> w0(static_cast<std::size_t>(n), 0.0);
    w0[0] = std::numeric_limits<double>::infinity();
    auto w = DenseMatrix<double>::from_row_major(n, 1, w0, dev);
    for (int round = 1;; ++round) {
      DenseMatrix<double> next(n, 1, dev);
      mxm(next, A, w, widest, {.transpose_a = true});
      auto a = w.to_row_major(), b = next.to_row_major();
      bool changed = false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (b[i] > a[i]) {
          a[i] = b[i];
          changed = true;
        }
      w = DenseMatrix<double>::from_row_major(n, 1, a, dev);
      if (!changed) {
        std::printf("%s on %s: widest paths from vertex 0 settled after %d rounds\n", path.c_str(), dev.str().c_str(), round);
        break;
      }
    }
    const auto cap = w.to_row_major();
    for (Index v = 1; v < std::min<Index>(n, 6); ++v) std::printf("  vertex %lld: capacity %.4f\n", static_cast<long long>(v), cap[v]);
  } catch (const Error& e) {
    std::fprintf(stderr, "example_custom_semiring: %s\n", e.what());
    return 1;
  }
}
