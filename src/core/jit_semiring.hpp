// A run-time semiring as the library holds it (jit::Semiring's implementation): both
// halves parsed and typed, their CUDA text, the identity, and the key under which its
// compiled kernels are cached. The CUDA backend's entry for it is declared here too.
#pragma once

#include <cstdint>
#include <string>

#include "core/jit_expr.hpp"
#include "geblas/jit.hpp"
#include "geblas/trace.hpp"

namespace geblas::detail::jit {

struct SemiringImpl {
  TypeId type = TypeId::float32;
  std::string name;
  Expr add, mul;               // what the CPU evaluates (a built-in name: its equivalent expression)
  bool mul_cuda_only = false;  // jit::cuda_expr: no CPU form
  std::string add_cuda, mul_cuda;
  Value identity, terminal;
  bool has_terminal = false;
  std::string identity_cuda;  // the identity as an exact CUDA literal of the value type
  bool reads_a = true;
  std::string key;  // everything the generated code depends on, as text
  std::uint64_t hash = 0;

  // The operator struct the kernel templates are instantiated with (the Ops interface of
  // src/cuda/spmm/ops.cuh), named `name`.
  std::string ops_struct(const std::string& struct_name) const;
};

// 64-bit FNV-1a, for cache keys and file checksums.
std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h = 0xcbf29ce484222325ull);

struct JitSpmmArgs {
  const SparseStorage* A = nullptr;
  const DenseStorage* B = nullptr;
  DenseStorage* C = nullptr;
  const SemiringImpl* semiring = nullptr;
  std::string_view variant{};  // forced; empty: the dispatcher's rules
  DispatchRecord* record = nullptr;
};

// The product on a CUDA device (src/cuda/jit/; a stub that throws without CUDA).
void cuda_jit_spmm(const JitSpmmArgs& args);

}  // namespace geblas::detail::jit
