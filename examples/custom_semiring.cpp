// A user-defined semiring: (max, min) "widest path" written by hand, without an id, so
// that mxm instantiates the library's kernel templates in this program. Widest path:
// the capacity of a path is its narrowest edge; we want the widest path to each vertex.
// Compiled as C++ it runs on the CPU; custom_semiring.cu compiles the same file with nvcc
// and <geblas/cuda.cuh>, whose geblas::cuda_mxm runs the products on the GPU when there is one.
//   example_custom_semiring [graph.mtx[.gz]]     (default: data/astro-ph-weighted.mtx.gz)
#include <geblas/geblas.hpp>

#include <cstdio>
#include <algorithm>
#include <limits>
#include <vector>

// The semiring: add = max (identity 0: no path), multiply = min (the bottleneck).
struct Widest {
  using value_type = double;
  // GEBLAS_HD: callable on the host and, under nvcc, on the device.
  static GEBLAS_HD double identity() { return 0.0; }
  static GEBLAS_HD double add(double a, double b) { return a > b ? a : b; }
  static GEBLAS_HD double mul(double a, double b) { return a < b ? a : b; }
};

int main(int argc, char** argv) {
  using namespace geblas;
  const char* path = argc > 1 ? argv[1] : "data/astro-ph-weighted.mtx.gz";
  try {
#if defined(__CUDACC__)
    const Device dev = default_device();  // the GPU when there is one
#else
    const Device dev = Device::cpu();  // without nvcc, a user-defined semiring runs on the CPU
#endif
    const auto A = io::read_matrix_market<double>(path).to(dev);
    const Index n = A.nrows();
    // w(v) = widest capacity from vertex 0 to v; iterate w = max(w, A' (max.min) w).
    std::vector<double> w0(static_cast<std::size_t>(n), 0.0);
    w0[0] = std::numeric_limits<double>::infinity();
    auto w = DenseMatrix<double>::from_row_major(n, 1, w0, dev);
    for (int round = 1;; ++round) {
      DenseMatrix<double> next(n, 1, dev);
#if defined(__CUDACC__)
      cuda_mxm(next, A, w, Widest{}, {.transpose_a = true});  // the kernel of <geblas/cuda.cuh>
#else
      mxm(next, A, w, Widest{}, {.transpose_a = true});
#endif
      auto a = w.to_row_major(), b = next.to_row_major();
      bool changed = false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (b[i] > a[i]) {
          a[i] = b[i];
          changed = true;
        }
      w = DenseMatrix<double>::from_row_major(n, 1, a, dev);
      if (!changed) {
        std::printf("%s on %s: widest paths from vertex 0 settled after %d rounds\n", path, dev.str().c_str(), round);
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
