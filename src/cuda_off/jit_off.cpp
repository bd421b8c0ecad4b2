// Built without CUDA: run-time semirings run on the CPU only; their GPU entries report
// the missing backend.
#include "core/jit_semiring.hpp"
#include "geblas/error.hpp"

namespace geblas {
namespace detail::jit {
// Unreachable through mxm (no matrix lives on a CUDA device in this build).
void cuda_jit_spmm(const JitSpmmArgs&) {
  throw NotImplemented("geblas::jit: libgeblas.so was built without CUDA; run-time semirings run on the CPU only");
}
}  // namespace detail::jit

namespace jit {
CompileInfo compile(const Semiring&, const std::string&, int, int, bool) {
  throw NotImplemented("geblas::jit::compile: libgeblas.so was built without CUDA (no NVRTC)");
}
std::vector<std::string> variants() { return {}; }
void clear_memory_cache() {}
}  // namespace jit
}  // namespace geblas
