// The device of the gpu-labelled device-generic test programs (their main() skips with
// exit code 77 when no CUDA device is usable, before any test touches the device).
#include "support/device.hpp"

geblas::Device geblas::test::device() { return geblas::Device::cuda(0); }

int geblas::test::sweep_stride() { return 7; }
