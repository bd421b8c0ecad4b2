// Builds a 3-vertex path graph, runs one min-plus product against the installed
// library, and checks the answer, so the packaging test fails if anything is off.
#include <geblas/geblas.hpp>

#include <cstdio>
#include <cstring>
#include <limits>

int main() {
  using namespace geblas;
  // 0 -> 1 (weight 2), 1 -> 2 (weight 3)
  auto A = SparseMatrix<float>::from_tuples(3, 3, std::vector<Tuple<float>>{{0, 1, 2.f}, {1, 2, 3.f}});
  const float inf = std::numeric_limits<float>::infinity();
  // B(k, 0) = distance from the source 2 to k... here simply one column: 0, inf, 10
  auto B = DenseMatrix<float>::from_row_major(3, 1, {0.f, inf, 10.f});
  DenseMatrix<float> C(3, 1);
  mxm(C, A, B, semiring::min_plus<float>{});
  const auto c = C.to_row_major();
  // row 0: 2 + inf = inf; row 1: 3 + 10 = 13; row 2: no entries -> identity inf
  bool ok = c[0] == inf && c[1] == 13.f && c[2] == inf;
  // The loaded library, the headers and the build system must agree on the version.
  ok = ok && std::strcmp(geblas::version(), GEBLAS_VERSION_STRING) == 0;
#ifdef EXPECT_VERSION
  ok = ok && std::strcmp(geblas::version(), EXPECT_VERSION) == 0;
#endif
  std::printf("consumer: %s (library %s, headers %s, cuda compiled: %d)\n", ok ? "ok" : "WRONG", geblas::version(),
              GEBLAS_VERSION_STRING, cuda_compiled() ? 1 : 0);
  return ok ? 0 : 1;
}
