// Built without CUDA: there is no CUDA backend, and no CUDA device is usable.
#include "core/backend.hpp"

namespace geblas::detail {
const Backend* cuda_backend() { return nullptr; }
int cuda_device_count_impl() { return 0; }
}  // namespace geblas::detail
