// Dispatch records and the GEBLAS_TRACE switch.
#include "core/trace.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "geblas/device.hpp"

namespace geblas {
namespace {
bool trace_from_environment() {
  const char* v = std::getenv("GEBLAS_TRACE");
  return v && *v && std::strcmp(v, "0") != 0;
}
std::atomic<bool> g_trace{trace_from_environment()};
thread_local DispatchRecord t_record;
// The traffic counters when the operation began, for the trace's bytes column.
thread_local TransferCounts t_counts_at_begin;
}  // namespace

void set_trace(bool on) { g_trace.store(on); }
bool trace_enabled() { return g_trace.load(); }
DispatchRecord last_dispatch() { return t_record; }

namespace detail {
DispatchRecord& begin_dispatch(const char* operation, const char* backend) {
  // Field by field, so that the strings keep their capacity: a call then allocates
  // nothing here (the per-call host cost of a small mxm is a few microseconds).
  t_record.operation.assign(operation);
  t_record.backend.assign(backend);
  t_record.variant.clear();
  t_record.reason.clear();
  if (trace_enabled()) t_counts_at_begin = transfer_counts();
  return t_record;
}
DispatchRecord& current_dispatch() { return t_record; }
void restore_dispatch(const DispatchRecord& record) { t_record = record; }
void end_dispatch() {
  if (!trace_enabled()) return;
  // Bytes moved between host and device while the operation ran (by any thread: the
  // counters are process-wide), printed only when there were some.
  const TransferCounts now = transfer_counts();
  const auto h2d = now.host_to_device_bytes - t_counts_at_begin.host_to_device_bytes;
  const auto d2h = now.device_to_host_bytes - t_counts_at_begin.device_to_host_bytes;
  char traffic[96] = "";
  if (h2d || d2h)
    std::snprintf(traffic, sizeof traffic, " [host->device %llu B, device->host %llu B]",
                  static_cast<unsigned long long>(h2d), static_cast<unsigned long long>(d2h));
  std::fprintf(stderr, "geblas: %s -> %s -> %s%s%s%s%s\n", t_record.operation.c_str(),
               t_record.backend.c_str(), t_record.variant.empty() ? "-" : t_record.variant.c_str(),
               t_record.reason.empty() ? "" : " (", t_record.reason.c_str(),
               t_record.reason.empty() ? "" : ")", traffic);
}
}  // namespace detail
}  // namespace geblas
