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
namespace cpu {
namespace {
constexpr std::size_t host_alignment = 64;  // a cache line; also enough for any SIMD load

}  // namespace

// posix_memalign rather than aligned_alloc: it takes the exact size (aligned_alloc wants
// a multiple of the alignment), so AddressSanitizer sees a read one past the end.
void* allocate(std::size_t bytes, int) {
  void* p = nullptr;
  if (posix_memalign(&p, host_alignment, bytes) != 0 || !p)
    throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes failed", bytes);
  return p;
}
void deallocate(void* p, int) noexcept { std::free(p); }
void zero(void* p, std::size_t bytes, int) { std::memset(p, 0, bytes); }
void copy(void* dst, Device, const void* src, Device, std::size_t bytes) { std::memmove(dst, src, bytes); }
void synchronize(int) {}

namespace {
// The table, built in namespace cpu so that each entry name finds cpu::'s function.
Backend make_table() {
  return Backend{.name = "cpu", GEBLAS_BACKEND_ENTRIES(GEBLAS_BACKEND_TABLE_FIELD).graph = &graph::kernels()};
}
}  // namespace

}  // namespace cpu

const Backend& cpu_backend() {
  static const Backend table = cpu::make_table();
  return table;
}

}  // namespace geblas::detail
