// The device of the gpu-labelled algorithm test program (its main() skips with exit
// code 77 when no CUDA device is usable).
#include "algorithms/graphs.hpp"

geblas::Device algotest::device() { return geblas::Device::cuda(0); }
