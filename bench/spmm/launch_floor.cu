// The floor under the per-call host overhead: what queuing one empty kernel costs the
// host, by each way of launching one: the triple-chevron launch (what nvcc lowers <<< >>>
// to), cudaLaunchKernel called directly, cudaLaunchKernelEx without and with the
// programmatic-serialization attribute (row_pieces' fold, nnz_split's combine), and the
// driver's cuLaunchKernel on the kernel's CUfunction (cudaGetFuncBySymbol, looked up once).
// No geblas call can cost less than the launches it makes.
#include <cuda.h>

#include "launch_floor.hpp"

namespace {
__global__ void empty_kernel() {}

using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void**, void**);
}  // namespace

const char* launch_way_name(LaunchWay way) {
  switch (way) {
    case LaunchWay::chevrons: return "<<< >>>";
    case LaunchWay::runtime: return "cudaLaunchKernel";
    case LaunchWay::runtime_ex: return "cudaLaunchKernelEx";
    case LaunchWay::runtime_ex_programmatic: return "cudaLaunchKernelEx (programmatic serialization)";
    case LaunchWay::driver: return "cuLaunchKernel";
  }
  return "?";
}

cudaError_t launch_empty(LaunchWay way, cudaStream_t stream) {
  switch (way) {
    case LaunchWay::chevrons: empty_kernel<<<1, 32, 0, stream>>>(); return cudaGetLastError();
    case LaunchWay::runtime:
      return cudaLaunchKernel(reinterpret_cast<const void*>(&empty_kernel), dim3(1), dim3(32), nullptr, 0, stream);
    case LaunchWay::runtime_ex:
    case LaunchWay::runtime_ex_programmatic: {
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(1);
      config.blockDim = dim3(32);
      config.stream = stream;
      cudaLaunchAttribute attribute{};
      attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attribute.val.programmaticStreamSerializationAllowed = 1;
      config.attrs = &attribute;
      config.numAttrs = way == LaunchWay::runtime_ex_programmatic ? 1 : 0;
      return cudaLaunchKernelEx(&config, empty_kernel);
    }
    case LaunchWay::driver: {
      static LaunchFn launch = nullptr;
      static CUfunction function = nullptr;
      if (!launch) {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult status{};
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuLaunchKernel", &p, 12000, cudaEnableDefault, &status);
        if (e != cudaSuccess) return e;
        if (status != cudaDriverEntryPointSuccess) return cudaErrorNotSupported;
        cudaFunction_t f = nullptr;
        e = cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(&empty_kernel));
        if (e != cudaSuccess) return e;
        function = reinterpret_cast<CUfunction>(f);
        launch = reinterpret_cast<LaunchFn>(p);
      }
      return launch(function, 1, 1, 1, 32, 1, 1, 0, reinterpret_cast<CUstream>(stream), nullptr, nullptr) ==
                     CUDA_SUCCESS
                 ? cudaSuccess
                 : cudaErrorLaunchFailure;
    }
  }
  return cudaErrorInvalidValue;
}
