// Build-wide macros: symbol visibility of libgeblas.so and the host/device qualifier
// that lets one semiring definition serve the CPU and the CUDA kernels.
#pragma once

#if defined(GEBLAS_BUILDING_LIBRARY)
#define GEBLAS_API __attribute__((visibility("default")))
#else
#define GEBLAS_API
#endif

#if defined(__CUDACC__)
#define GEBLAS_HD __host__ __device__ __forceinline__
#else
#define GEBLAS_HD inline
#endif
