// The CPU backend's table: host memory and the OpenMP kernels of src/cpu.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "core/backend.hpp"
#include "cpu/graph/graph.hpp"
#include "cpu/kernels.hpp"
#include "geblas/error.hpp"

namespace geblas::detail {
namespace {

constexpr std::size_t host_alignment = 64;  // a cache line; also enough for any SIMD load

// posix_memalign rather than aligned_alloc: it takes the exact size (aligned_alloc wants
// a multiple of the alignment), so AddressSanitizer sees a read one past the end.
void* host_allocate(std::size_t bytes, int) {
  void* p = nullptr;
  if (posix_memalign(&p, host_alignment, bytes) != 0 || !p)
    throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes failed", bytes);
  return p;
}
void host_deallocate(void* p, int) noexcept { std::free(p); }
void host_zero(void* p, std::size_t bytes, int) { std::memset(p, 0, bytes); }
void host_copy(void* dst, Device, const void* src, Device, std::size_t bytes) { std::memmove(dst, src, bytes); }
void host_synchronize(int) {}

}  // namespace

const Backend& cpu_backend() {
  static const Backend table = [] {
    Backend b{};
    b.name = "cpu";
    b.allocate = host_allocate;
    b.deallocate = host_deallocate;
    b.zero = host_zero;
    b.copy = host_copy;
    b.synchronize = host_synchronize;
    b.mxm_sparse_dense = cpu::mxm_sparse_dense;
    b.mxm_sparse_sparse = cpu::mxm_sparse_sparse;
    b.mxm_dense_sparse = cpu::mxm_dense_sparse;
    b.mxm_dense_dense = cpu::mxm_dense_dense;
    b.row_stats = cpu::row_stats;
    b.transpose_sparse = cpu::transpose_sparse;
    b.transpose_dense = cpu::transpose_dense;
    b.relayout_dense = cpu::relayout_dense;
    b.write_dense = cpu::write_dense;
    b.write_sparse = cpu::write_sparse;
    b.write_vector = cpu::write_vector;
    b.mxv_pull = cpu::mxv_pull;
    b.mxv_push = cpu::mxv_push;
    b.ewise_sparse = cpu::ewise_sparse;
    b.ewise_dense = cpu::ewise_dense;
    b.ewise_vector = cpu::ewise_vector;
    b.apply_values = cpu::apply_values;
    b.convert_values = cpu::convert_values;
    b.reduce_rows_sparse = cpu::reduce_rows_sparse;
    b.reduce_rows_dense = cpu::reduce_rows_dense;
    b.reduce_values = cpu::reduce_values;
    b.select_sparse = cpu::select_sparse;
    b.select_vector = cpu::select_vector;
    b.extract_sparse = cpu::extract_sparse;
    b.extract_vector = cpu::extract_vector;
    b.assign_sparse = cpu::assign_sparse;
    b.assign_vector = cpu::assign_vector;
    b.graph = &cpu::graph::kernels();
    return b;
  }();
  return table;
}

}  // namespace geblas::detail
