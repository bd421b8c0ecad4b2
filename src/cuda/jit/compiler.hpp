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

// The template instances `set` needs, as name expressions over the generated ops struct.
std::vector<std::string> kernel_names(const KernelSet& set);

// The module for (s, set, cc), from memory, disk or NVRTC; `info` says which and how long.
std::shared_ptr<const CompiledModule> compiled_module(const SemiringImpl& s, const KernelSet& set, int cc,
                                                      ::geblas::jit::CompileInfo* info);

// Forgets the functions loaded from compiled modules (spmm_jit.cu), so that the next call
// goes back to the module caches.
void clear_loaded_functions();

}  // namespace geblas::detail::jit
