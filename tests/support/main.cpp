// The main() of every test program, compiled once (Catch2's runner is the slowest file of
// the tests to compile). A program of the gpu label (support/gpu_gate.cpp says which)
// exits with code 77 (ctest reports it as skipped) and says why when no CUDA device can
// be used, so a missing GPU is never mistaken for a pass.
#if GEBLAS_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include <cstdio>
#include <iostream>

#include "geblas/device.hpp"
#include "support/catch.hpp"

namespace geblas::test {
bool program_needs_gpu();  // support/gpu_gate.cpp
}

int main(int argc, char** argv) {
  // Unbuffered: a program that ctest kills at its time limit still shows the failures it
  // reported before (its output was lost in a pipe's buffer).
  std::cout << std::unitbuf;
  if (geblas::test::program_needs_gpu()) {
    if (!geblas::cuda_compiled()) {
      std::printf("SKIPPED: libgeblas.so was built without CUDA (GEBLAS_CUDA=OFF or no nvcc)\n");
      return 77;
    }
    if (geblas::cuda_device_count() == 0) {
      std::printf("SKIPPED: no usable CUDA device (no GPU or no driver on this machine)\n");
      return 77;
    }
  }
  return Catch::Session().run(argc, argv);
}
