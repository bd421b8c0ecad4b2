// The device a device-generic test program runs on. A test source that calls device()
// is compiled once and linked into one program per device, each with one definition
// (support/device_cpu.cpp, label cpu; support/device_gpu.cpp, label gpu, whose main()
// skips with exit code 77 and the reason when no CUDA device is usable).
#pragma once

#include "geblas/device.hpp"

namespace geblas::test {

Device device();

// Every how many combinations of an all-operator sweep (tests/ops) this device runs: 1 on
// the CPU; 7 on the GPU, where each case pays allocations, uploads and synchronisations
// (ewise's and select's full sweeps ran past 200 s each there, against 2-3 s on
// the CPU). The skipped combinations keep their seeds, so a GPU case is the CPU case of the
// same seed; an odd stride keeps every pattern of the flags drawn from the combination's
// bits, and every operator, type and mask case is still run on the GPU.
int sweep_stride();

inline bool in_sweep(int combo) { return combo % sweep_stride() == 0; }

}  // namespace geblas::test
