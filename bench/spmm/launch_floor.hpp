// Empty-kernel launches by each way of launching one: the host-cost floor that the
// overhead table of bench_spmm prints.
#pragma once

#include <cuda_runtime.h>

enum class LaunchWay { chevrons, runtime, runtime_ex, runtime_ex_programmatic, driver };
inline constexpr LaunchWay launch_ways[] = {LaunchWay::chevrons, LaunchWay::runtime, LaunchWay::runtime_ex,
                                            LaunchWay::runtime_ex_programmatic, LaunchWay::driver};

const char* launch_way_name(LaunchWay way);
cudaError_t launch_empty(LaunchWay way, cudaStream_t stream);
