// Recording the path each operation took (see geblas/trace.hpp).
#pragma once

#include "geblas/trace.hpp"

namespace geblas::detail {

// The calling thread's record, to be filled by the operation in progress.
DispatchRecord& begin_dispatch(const char* operation, const char* backend);
// The record of the operation in progress on the calling thread: a backend entry writes
// into it the variant that really ran and why (the core names only the operation and
// the backend).
DispatchRecord& current_dispatch();
// Prints the record when tracing is on.
void end_dispatch();
// Makes `record` the calling thread's last one again, without printing it: for an
// operation whose own steps (the packaging of its result) ran after the step that
// names the path it took.
void restore_dispatch(const DispatchRecord& record);

}  // namespace geblas::detail
