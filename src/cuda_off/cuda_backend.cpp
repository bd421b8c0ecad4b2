// Built without CUDA: there is no CUDA backend, and no CUDA device is usable.
#include "core/backend.hpp"
#include "geblas/detail/stream_state.hpp"
#include "geblas/error.hpp"

namespace geblas::detail {
const Backend* cuda_backend() { return nullptr; }
int cuda_device_count_impl() { return 0; }
// Unreachable: the stream API checks the device through backend_for first.
void* cuda_own_stream(int) { throw NotImplemented("CUDA streams: libgeblas.so was built without CUDA"); }
void* cuda_check_stream(int, void*) { throw NotImplemented("CUDA streams: libgeblas.so was built without CUDA"); }
void cuda_stream_wait(int, void*, void*) { throw NotImplemented("CUDA streams: libgeblas.so was built without CUDA"); }
}  // namespace geblas::detail
