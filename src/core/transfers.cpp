// Host <-> device traffic counters (geblas/device.hpp). Relaxed atomics: the counts are
// totals read between operations, never used to order memory.
#include "core/transfers.hpp"

#include <atomic>
#include <cstdint>

namespace geblas {
namespace {
std::atomic<std::uint64_t> g_h2d_bytes{0}, g_d2h_bytes{0}, g_h2d_copies{0}, g_d2h_copies{0};
}  // namespace

namespace detail {
void count_transfer(Device dst, Device src, std::size_t bytes) {
  if (dst.is_cuda() && src.is_cpu()) {
    g_h2d_bytes.fetch_add(bytes, std::memory_order_relaxed);
    g_h2d_copies.fetch_add(1, std::memory_order_relaxed);
  } else if (dst.is_cpu() && src.is_cuda()) {
    g_d2h_bytes.fetch_add(bytes, std::memory_order_relaxed);
    g_d2h_copies.fetch_add(1, std::memory_order_relaxed);
  }
}
}  // namespace detail

TransferCounts transfer_counts() {
  TransferCounts c;
  c.host_to_device_bytes = g_h2d_bytes.load(std::memory_order_relaxed);
  c.device_to_host_bytes = g_d2h_bytes.load(std::memory_order_relaxed);
  c.host_to_device_copies = g_h2d_copies.load(std::memory_order_relaxed);
  c.device_to_host_copies = g_d2h_copies.load(std::memory_order_relaxed);
  return c;
}

void reset_transfer_counts() {
  g_h2d_bytes.store(0, std::memory_order_relaxed);
  g_d2h_bytes.store(0, std::memory_order_relaxed);
  g_h2d_copies.store(0, std::memory_order_relaxed);
  g_d2h_copies.store(0, std::memory_order_relaxed);
}

}  // namespace geblas
