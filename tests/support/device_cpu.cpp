// The device of the cpu-labelled device-generic test programs.
#include "support/device.hpp"

geblas::Device geblas::test::device() { return geblas::Device::cpu(); }

int geblas::test::sweep_stride() { return 1; }
