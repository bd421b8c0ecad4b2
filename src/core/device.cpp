// Device queries and the choice of backend by device.
#include <string>

#include "core/backend.hpp"
#include "geblas/device.hpp"
#include "geblas/error.hpp"

namespace geblas {

namespace detail {
// Defined by src/cuda (built with CUDA) or src/cuda_off (built without).
int cuda_device_count_impl();

const Backend& backend_for(Device device) {
  if (device.is_cpu()) return cpu_backend();
  const Backend* cuda = cuda_backend();
  if (!cuda)
    throw InvalidValue("device " + device.str() + " requested, but libgeblas.so was built without CUDA");
  const int count = cuda_device_count_impl();
  if (device.ordinal() < 0 || device.ordinal() >= count)
    throw InvalidValue("device " + device.str() + " does not exist (" + std::to_string(count) +
                       " CUDA device" + (count == 1 ? "" : "s") + " usable)");
  return *cuda;
}
}  // namespace detail

bool cuda_compiled() { return detail::cuda_backend() != nullptr; }
int cuda_device_count() { return detail::cuda_backend() ? detail::cuda_device_count_impl() : 0; }
Device default_device() { return cuda_device_count() > 0 ? Device::cuda(0) : Device::cpu(); }
void synchronize(Device device) {
  if (device.is_cpu()) return;
  const detail::Backend& b = detail::backend_for(device);
  b.synchronize(device.ordinal());
}

}  // namespace geblas
