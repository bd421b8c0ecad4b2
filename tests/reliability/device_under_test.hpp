// The device a reliability test program runs on: the host, or cuda:0 when the program is
// the gpu-labelled build of the same source (GEBLAS_RELIABILITY_ON_GPU), so that both
// backends face the same edge cases.
#pragma once

#include "geblas/device.hpp"

namespace geblas::test {

inline Device device_under_test() {
#if defined(GEBLAS_RELIABILITY_ON_GPU)
  return Device::cuda(0);
#else
  return Device::cpu();
#endif
}

}  // namespace geblas::test
