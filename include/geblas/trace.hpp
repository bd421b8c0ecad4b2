// Which path an operation took. With tracing on (set_trace(true) or the environment
// variable GEBLAS_TRACE=1) every dispatch prints one line to stderr:
//   geblas: mxm(sparse x dense) -> cuda -> cwm (N=128, mean row 12.1: coarse warp merge)
// last_dispatch() returns the calling thread's most recent record whether or not
// tracing is on, so tests can assert on the variant that ran.
#pragma once

#include <string>

#include "geblas/config.hpp"

namespace geblas {

struct DispatchRecord {
  std::string operation;  // "mxm(sparse x dense)"
  std::string backend;    // "cpu" or "cuda"
  std::string variant;    // kernel variant name
  std::string reason;     // the facts that chose it
};

GEBLAS_API void set_trace(bool on);
GEBLAS_API bool trace_enabled();
GEBLAS_API DispatchRecord last_dispatch();

}  // namespace geblas
