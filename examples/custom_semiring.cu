// The GPU build of custom_semiring.cpp: the same program compiled by nvcc with
// <geblas/cuda.cuh>, so that geblas::cuda_mxm instantiates the user-defined semiring's
// kernel here and its products run on the GPU when there is one.
//   nvcc -std=c++20 -I<prefix>/include custom_semiring.cu -L<prefix>/lib -lgeblas
#include <geblas/cuda.cuh>

#include "custom_semiring.cpp"
