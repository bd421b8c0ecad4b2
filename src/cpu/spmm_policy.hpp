// The tuning of the built-in semirings' sparse x dense kernels on the CPU, beyond the
// generic kernel's SpmmPolicy (include/geblas/detail/cpu/spmm.hpp, public because
// user-defined semirings compile that kernel in their own code): the widths of the
// AVX-512 copy of the generic kernel (src/cpu/mxm.cpp) and the tiles of the plus-family
// kernels (src/cpu/spmm_plus.cpp). Nothing here is seen by a user's code.
#pragma once

#include <cstddef>

#include "geblas/detail/cpu/spmm.hpp"

namespace geblas::detail::cpu {

// The generic kernel compiled for AVX-512F (built-in floating plus, max, min that the
// plus-family kernels do not take: max_times, min_plus, ... and plus on a column-major C):
// one zmm register per vector, tiles of 64 floats (4 registers). Against the baseline code
// (float, N = 16 / 64 / 256, 2-core AMD EPYC, load 3-8): plus_times 24 / 85 / 280 ms
// against 44 / 193 / 481, max_times 31 / 111 / 397 against 62 / 243 / 746, min_plus
// 39 / 102 / 558 against 69 / 229 / 973 (thread CPU time, one thread, interleaved). Tiles
// of 128 and 512 bytes were not consistently faster than 256 (plus_times N = 64: 96 and
// 98 ms against 85; max_times N = 256: 434 and 446 against 397).
struct SpmmAvx512Policy : SpmmPolicy {
  static constexpr std::size_t vector_bytes = 64;
  static constexpr std::size_t tile_bytes = 256;
};

// The plus-family kernels (plus_times, plus_second on float and double): vectors per
// column tile held in registers, per instruction set. SSE2 and AVX2 have 16 vector
// registers (4 accumulators leave room for the loads of B; not measured against 8),
// AVX-512 32. AVX-512, on the 2-core AMD EPYC (Zen 5) machine, load
// about 7, one thread's CPU time of bench_cpu_spmm plus_times float N = 256 in three
// interleaved process pairs, 8 vectors against 4: ego-Twitter-undirected 49 / 40 / 41 ms
// against 54 / 57 / 44, soc-Slashdot0902 29 / 25 / 33 against 32 / 34 / 26, cit-HepPh
// 9.3 / 8.2 / 10.3 against 10.2 / 11.1 / 8.4 (N = 64 runs the same 4-vector tile in both):
// about 8% on the geomean, near the noise (docs/notes/cpu-spmm-vs-suitesparse.md).
struct PlusPolicy {
  static constexpr int sse2_tile_vectors = 4;
  static constexpr int avx2_tile_vectors = 4;
  static constexpr int avx512_tile_vectors = 8;
};

}  // namespace geblas::detail::cpu
