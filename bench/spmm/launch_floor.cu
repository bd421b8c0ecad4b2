// The floor under the per-call host overhead: what queuing one empty kernel costs the
// host, through the runtime's plain launch and through cudaLaunchKernelEx with the
// programmatic-serialization attribute (the launch row_pieces' fold and nnz_split's
// combine use). No geblas call can cost less than the launches it makes.
#include "launch_floor.hpp"

namespace {
__global__ void empty_kernel() {}
}  // namespace

cudaError_t launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t launch_empty_programmatic(cudaStream_t stream) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, empty_kernel);
}
