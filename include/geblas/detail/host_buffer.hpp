// Moving std::vector contents in and out of RawBuffers. std::vector<bool> has no
// data(), so bool goes element by element.
#pragma once

#include <cstring>
#include <vector>

#include "geblas/detail/storage.hpp"

namespace geblas::detail {

template <class T>
RawBuffer host_buffer_from(const std::vector<T>& v, Device device = Device::cpu()) {
  RawBuffer host(v.size() * sizeof(T), Device::cpu());
  if constexpr (std::is_same_v<T, bool>) {
    for (std::size_t i = 0; i < v.size(); ++i) host.as<bool>()[i] = v[i];
  } else if (!v.empty()) {
    std::memcpy(host.data(), v.data(), v.size() * sizeof(T));
  }
  return device.is_cpu() ? host : host.to(device);
}

template <class T>
std::vector<T> vector_from(const RawBuffer& b, std::size_t count) {
  RawBuffer host = b.device().is_cpu() ? RawBuffer{} : b.to(Device::cpu());
  const RawBuffer& src = b.device().is_cpu() ? b : host;
  std::vector<T> out(count);
  if constexpr (std::is_same_v<T, bool>) {
    for (std::size_t i = 0; i < count; ++i) out[i] = src.as<bool>()[i];
  } else if (count) {
    std::memcpy(out.data(), src.data(), count * sizeof(T));
  }
  return out;
}

}  // namespace geblas::detail
