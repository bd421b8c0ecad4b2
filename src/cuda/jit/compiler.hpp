// NVRTC compilation of the SpMM kernel templates for a run-time semiring, and the two
// caches in front of it: compiled images in memory, and image files on disk (keyed by
// everything the code depends on, written atomically, checked on reading).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/jit_semiring.hpp"

namespace geblas::detail::jit {

// The kernels of one launch configuration of a variant: V values per 16-byte vector (or
// 1) and the layout of B and C.
struct KernelSet {
  std::string variant;  // a name of jit::variants()
  int vector = 1;
  bool row_major = true;
};

// A compiled module: the cubin and the lowered (mangled) names of its kernels, in the
// order kernel_names(set) lists them.
struct CompiledModule {
  std::string key;
  std::vector<std::string> lowered;
  std::string image;
};

// Whether run-time semirings are compiled for `variant` (a name of jit::variants()).
bool is_jit_variant(const std::string& variant);
// Why run-time semirings cannot run `variant` (no such variant, a tensor-core one, ...),
// with the list of those they run: the text of the InvalidValue a forced variant gets.
std::string not_compiled_reason(const std::string& variant);
// The kernel set of `variant` for B and C of that layout with `vector`-wide 16-byte
// vectors (or 1): `vector` becomes 1 for the variants whose kernels read one column per
// lane (crc, cwm), so that every width shares one image. Throws InvalidValue
// (not_compiled_reason) for a variant outside jit::variants().
KernelSet kernel_set(const std::string& variant, int vector, bool row_major);

// The template instances `set` needs, as name expressions over the generated ops struct.
std::vector<std::string> kernel_names(const KernelSet& set);

// The module for (s, set, cc), from memory, disk or NVRTC; `info` says which and how long.
std::shared_ptr<const CompiledModule> compiled_module(const SemiringImpl& s, const KernelSet& set, int cc,
                                                      ::geblas::jit::CompileInfo* info);

// Forgets the functions loaded from compiled modules (spmm_jit.cu), so that the next call
// goes back to the module caches.
void clear_loaded_functions();

}  // namespace geblas::detail::jit
