// Empty-kernel launches: the host-cost floor the overhead table of bench_spmm prints.
#pragma once

#include <cuda_runtime.h>

cudaError_t launch_empty(cudaStream_t stream);
cudaError_t launch_empty_programmatic(cudaStream_t stream);
