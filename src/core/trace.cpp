// Dispatch records and the GEBLAS_TRACE switch.
#include "core/trace.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace geblas {
namespace {
bool trace_from_environment() {
  const char* v = std::getenv("GEBLAS_TRACE");
  return v && *v && std::strcmp(v, "0") != 0;
}
std::atomic<bool> g_trace{trace_from_environment()};
thread_local DispatchRecord t_record;
}  // namespace

void set_trace(bool on) { g_trace.store(on); }
bool trace_enabled() { return g_trace.load(); }
DispatchRecord last_dispatch() { return t_record; }

namespace detail {
DispatchRecord& begin_dispatch(const char* operation, const char* backend) {
  t_record = DispatchRecord{operation, backend, "", ""};
  return t_record;
}
void end_dispatch() {
  if (!trace_enabled()) return;
  std::fprintf(stderr, "geblas: %s -> %s -> %s%s%s%s\n", t_record.operation.c_str(),
               t_record.backend.c_str(), t_record.variant.empty() ? "-" : t_record.variant.c_str(),
               t_record.reason.empty() ? "" : " (", t_record.reason.c_str(),
               t_record.reason.empty() ? "" : ")");
}
}  // namespace detail
}  // namespace geblas
