// The per-thread stream bookkeeping behind geblas::cuda::StreamGuard (<geblas/stream.hpp>),
// exposed for the host-side tests of its nesting and for the Python package's DLPack
// export. Not part of the stable API.
#pragma once

#include "geblas/config.hpp"

namespace geblas::detail {

// The stream this thread has named for one CUDA device: `set` false means none (geblas's
// own stream is used). `stream` is a cudaStream_t as void*; 0 is a valid stream (the
// legacy default stream), which is why "none" is a separate flag.
struct StreamOverride {
  bool set = false;
  void* stream = nullptr;
};

// This thread's override for device `ordinal` (none for an ordinal never set).
GEBLAS_API StreamOverride stream_override(int ordinal) noexcept;

// Replaces this thread's override for `ordinal` with `next` and returns the one before.
// Throws InvalidValue for a negative ordinal.
GEBLAS_API StreamOverride exchange_stream_override(int ordinal, StreamOverride next);

// Makes stream `waiter` wait for the work queued so far on stream `waited` (both streams
// of CUDA device `ordinal`, as void*): an event recorded on one and waited for by the
// other, no host wait. Nothing when they are the same stream. NotImplemented without CUDA.
GEBLAS_API void cuda_stream_wait(int ordinal, void* waiter, void* waited);

}  // namespace geblas::detail
