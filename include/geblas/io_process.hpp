// Process-wide behaviour of geblas's readers and writers that a program opts into: the
// most bytes a reader takes from a stream (a pipe, FIFO, socket, character device or
// standard input, which have no size to check up front), and the removal of the
// temporary files of unfinished writes when the process is stopped by a signal.
// Kept apart from <geblas/io.hpp> so that programs that do neither need not see it.
#pragma once

#include <cstdint>

#include "geblas/config.hpp"

namespace geblas::io {

// A stream has no size to check before parsing, so a reader stops with an IoError (naming
// the input and the limit) after this many bytes (decompressed bytes for gzip). 4 GiB of
// text is about 200 million edge lines of 20 bytes, some 3 GB of CSR: a larger graph is
// better given as a file, which is read without a limit.
inline constexpr std::uint64_t default_max_stream_bytes = std::uint64_t{4} << 30;

// Sets the stream limit for every later read (0 restores the default); thread-safe.
GEBLAS_API void set_max_stream_bytes(std::uint64_t bytes);
GEBLAS_API std::uint64_t max_stream_bytes();

// Installs handlers for SIGINT, SIGTERM and SIGHUP (each only where its disposition is
// still the default) that remove the temporary files of every io::OutputFile not yet
// committed, then restore the default disposition and raise the signal again, so the
// process ends as it would have. Files left by a process killed outright (SIGKILL) are
// named after their process and removed by the next write into the same folder.
GEBLAS_API void remove_temporary_files_on_signals();

}  // namespace geblas::io
