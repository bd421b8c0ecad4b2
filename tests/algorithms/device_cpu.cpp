// The device of the cpu-labelled algorithm test program.
#include "algorithms/graphs.hpp"

geblas::Device algotest::device() { return geblas::Device::cpu(); }
