// The interface every backend provides, declared once. The core validates a call,
// picks the backend from the operands' device and calls through this table; a backend
// that does not provide an operation leaves its entry null, and the core reports that
// as NotImplemented naming the operation and the device (never a silent fallback).
// Backends work on storage and plain views, never on the public classes.
#pragma once

#include <cstddef>
#include <string_view>

#include "geblas/detail/storage.hpp"
#include "geblas/options.hpp"
#include "geblas/semiring.hpp"
#include "geblas/trace.hpp"

namespace geblas::detail {

// C = A (+).(x) B with A sparse, B and C dense, all on the backend's device. Rows of A
// with no entries give the identity, or leave C alone when accumulating. With
// `accumulate`, C = C (+) T using the semiring's own add (the fused accumulator case).
// The backend handles either layout of B and C, fills record->variant and ->reason.
struct SpmmArgs {
  const SparseStorage* A = nullptr;
  const DenseStorage* B = nullptr;
  DenseStorage* C = nullptr;
  SemiringId semiring = SemiringId::plus_times;
  bool accumulate = false;
  std::string_view variant{};  // forced variant; empty: the backend chooses
  DispatchRecord* record = nullptr;
};

// A dense product T (row-major, on the backend's device) and which of its entries are
// present in the GraphBLAS sense: all of them, those in rows where `rows_of` has
// entries (sparse x dense), or those in columns where `cols_of` has entries
// (dense x sparse).
struct DenseProduct {
  const DenseStorage* T = nullptr;
  const SparseStorage* rows_of = nullptr;
  const SparseStorage* cols_of = nullptr;
};

// One value of any supported type, passed by address to type-erased code.
struct ScalarBytes {
  alignas(8) unsigned char bytes[8] = {};
  const void* data() const { return bytes; }
  void* data() { return bytes; }
};

struct Backend {
  const char* name;

  // memory (ordinal: the device's index; ignored on the CPU)
  void* (*allocate)(std::size_t bytes, int ordinal);
  void (*deallocate)(void* ptr, int ordinal) noexcept;
  void (*zero)(void* ptr, std::size_t bytes, int ordinal);
  // Copies where either side is on this backend's devices (the CPU backend: host only).
  void (*copy)(void* dst, Device dst_device, const void* src, Device src_device, std::size_t bytes);
  void (*synchronize)(int ordinal);

  // products
  void (*mxm_sparse_dense)(const SpmmArgs& args);
  void (*mxm_sparse_sparse)(SparseStorage& T, const SparseStorage& A, const SparseStorage& B,
                            SemiringId s, const Options& o);  // o.mask honoured during the product
  void (*mxm_dense_sparse)(DenseStorage& T, const DenseStorage& A, const SparseStorage& B, SemiringId s);
  void (*mxm_dense_dense)(DenseStorage& T, const DenseStorage& A, const DenseStorage& B, SemiringId s);

  // layout and transposes
  void (*transpose_sparse)(SparseStorage& T, const SparseStorage& A);
  void (*transpose_dense)(DenseStorage& T, const DenseStorage& A);  // T row-major
  void (*relayout_dense)(DenseStorage& T, const DenseStorage& A, Layout layout);

  // C<M, replace> = accum(C, T): the last step of every operation with a dense output.
  void (*write_dense)(DenseStorage& C, const DenseProduct& T, const Options& o, const ScalarBytes& identity);
  // The same for a sparse output; T's pattern is exactly the entries it holds.
  void (*write_sparse)(SparseStorage& C, SparseStorage& T, const Options& o);  // T is consumed
};

GEBLAS_API const Backend& cpu_backend();
// Null when libgeblas.so was built without CUDA.
const Backend* cuda_backend();
// The backend for `device`; throws InvalidValue when it is not available (no CUDA
// backend compiled, no such device).
const Backend& backend_for(Device device);

// Calls through an entry, or throws NotImplemented("<op> on <device>").
template <class Fn>
Fn required(Fn fn, const char* op, Device device) {
  if (!fn) throw NotImplemented(std::string(op) + " is not implemented on " + device.str());
  return fn;
}

}  // namespace geblas::detail
