// bench_link: the bandwidth between GPU 0 and GPU 1, the ceiling of dist::mxm's row
// exchange. Moves 2 GiB per direction by copy engines (cudaMemcpyPeerAsync, on one
// stream and split over four) and by SMs (a copy kernel storing into the peer's memory,
// and one loading from it), one way and both ways at once, for several grid sizes;
// median of 5 timed runs after one warm-up, CUDA events. POOL=1 takes the buffers from
// the devices' default pools (cudaMallocAsync, peer access granted as the distributed
// layer grants it) instead of cudaMalloc. Prints SKIPPED with fewer than 2 GPUs.
//
//   bench_link
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cudaError_t e, const char* what, int line) {
  if (e == cudaSuccess) return;
  std::printf("bench_link: %s: %s (line %d)\n", what, cudaGetErrorString(e), line);
  std::exit(1);
}
#define CK(x) check((x), #x, __LINE__)

__global__ void copy_words(float4* __restrict__ dst, const float4* __restrict__ src, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) dst[i] = src[i];
}
__global__ void fill(float4* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_float4(float(i), 1, 2, 3);
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
    std::printf("SKIPPED: bench_link needs 2 GPUs (%d visible)\n", count);
    return 0;
  }
  const size_t bytes = size_t(2) << 30, n4 = bytes / sizeof(float4);
  const bool pool = std::getenv("POOL") != nullptr;
  float4 *a[2], *b[2];
  cudaStream_t s[2][4];
  cudaEvent_t e0[2], e1[2];
  for (int d = 0; d < 2; ++d) {
    CK(cudaSetDevice(d));
    CK(cudaDeviceEnablePeerAccess(1 - d, 0));
    for (int k = 0; k < 4; ++k) CK(cudaStreamCreateWithFlags(&s[d][k], cudaStreamNonBlocking));
    if (pool) {
      CK(cudaMallocAsync(&a[d], bytes, s[d][0]));
      CK(cudaMallocAsync(&b[d], bytes, s[d][0]));
    } else {
      CK(cudaMalloc(&a[d], bytes));
      CK(cudaMalloc(&b[d], bytes));
    }
    fill<<<1024, 256, 0, s[d][0]>>>(a[d], n4);
    CK(cudaGetLastError());
    CK(cudaEventCreate(&e0[d]));
    CK(cudaEventCreate(&e1[d]));
    CK(cudaStreamSynchronize(s[d][0]));
  }
  if (pool)
    for (int d = 0; d < 2; ++d) {
      cudaMemPool_t p;
      CK(cudaDeviceGetMemPool(&p, d));
      cudaMemAccessDesc acc{};
      acc.location.type = cudaMemLocationTypeDevice;
      acc.location.id = 1 - d;
      acc.flags = cudaMemAccessFlagsProtReadWrite;
      CK(cudaMemPoolSetAccess(p, &acc, 1));
    }
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("# bench_link: GPU 0 <-> GPU 1, 2 GiB per direction, buffers from %s, median of 5 (ms, GB/s per direction)\n",
              pool ? "the default pools" : "cudaMalloc");
  const char* names[] = {"copy engine, 1 stream", "copy engine, 4 streams", "SM stores to the peer", "SM loads from the peer"};
  for (int mode = 0; mode < 4; ++mode)
    for (int both = 0; both < 2; ++both)
      for (int blocks : {sms, 2 * sms, 4 * sms, 8 * sms}) {
        if (mode < 2 && blocks != sms) continue;
        std::vector<float> ms;
        for (int rep = 0; rep < 6; ++rep) {
          for (int d = 0; d < 1 + both; ++d) {
            CK(cudaSetDevice(d));
            CK(cudaEventRecord(e0[d], s[d][0]));
            for (int k = 1; k < 4; ++k) CK(cudaStreamWaitEvent(s[d][k], e0[d]));
            const int o = 1 - d;
            if (mode == 0) CK(cudaMemcpyPeerAsync(b[o], o, a[d], d, bytes, s[d][0]));
            if (mode == 1)
              for (int k = 0; k < 4; ++k)
                CK(cudaMemcpyPeerAsync(reinterpret_cast<char*>(b[o]) + k * bytes / 4, o,
                                       reinterpret_cast<char*>(a[d]) + k * bytes / 4, d, bytes / 4, s[d][k]));
            if (mode == 2) copy_words<<<blocks, 512, 0, s[d][0]>>>(b[o], a[d], n4);
            if (mode == 3) copy_words<<<blocks, 512, 0, s[d][0]>>>(b[d], a[o], n4);
            CK(cudaGetLastError());
            for (int k = 1; k < 4; ++k) {
              cudaEvent_t ev;
              CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
              CK(cudaEventRecord(ev, s[d][k]));
              CK(cudaStreamWaitEvent(s[d][0], ev));
              CK(cudaEventDestroy(ev));
            }
            CK(cudaEventRecord(e1[d], s[d][0]));
          }
          float worst = 0;
          for (int d = 0; d < 1 + both; ++d) {
            CK(cudaSetDevice(d));
            CK(cudaEventSynchronize(e1[d]));
            float t = 0;
            CK(cudaEventElapsedTime(&t, e0[d], e1[d]));
            worst = std::max(worst, t);
          }
          if (rep > 0) ms.push_back(worst);
        }
        std::sort(ms.begin(), ms.end());
        const float med = ms[ms.size() / 2];
        std::printf("%-24s %-9s blocks %4d: %.3f ms, %.0f GB/s\n", names[mode], both ? "both ways" : "one way",
                    mode < 2 ? 0 : blocks, med, double(bytes) / med / 1e6);
      }
  return 0;
}
