// The device a device-generic test program runs on. A test source that calls device()
// is compiled once and linked into one program per device, each with one definition
// (support/device_cpu.cpp, label cpu; support/device_gpu.cpp, label gpu, whose main()
// skips with exit code 77 and the reason when no CUDA device is usable).
#pragma once

#include "geblas/device.hpp"

namespace geblas::test {

Device device();

}  // namespace geblas::test
