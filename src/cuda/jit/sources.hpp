// The kernel headers NVRTC compiles, embedded at build time (CMake generates
// jit_sources.cpp from the files themselves: one copy of the kernels, cmake/embed_sources.cmake).
#pragma once

namespace geblas::detail::jit {

struct EmbeddedSource {
  const char* name;  // as the kernels #include it, e.g. "cuda/spmm/warp_row.cuh"
  const char* text;
};
extern const EmbeddedSource embedded_sources[];
extern const int embedded_source_count;

}  // namespace geblas::detail::jit
