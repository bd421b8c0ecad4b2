// Builds the row-window plan on the GPU: one radix sort of (window, column) keys gives
// every window's distinct columns in order; a scan numbers them; each entry learns its
// condensed column from its sorted position. The routing is a flag per window and two
// scans that list tensor-core windows and the rows of the others.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "core/derived_cache.hpp"
#include "cuda/check.cuh"
#include "cuda/context.cuh"
#include "cuda/spmm/window_plan.cuh"

namespace geblas::detail::cuda {
namespace {

using Key = unsigned long long;
constexpr int W = WindowPolicy::window_rows;
constexpr int block = WindowPolicy::block;

unsigned grid_for(Index n) { return static_cast<unsigned>((n + block - 1) / block); }

// Row offsets of the window's first row (clipped at nrows).
__device__ __forceinline__ Index window_start(const Index* ro, Index nrows, Index w) {
  const Index r = w * W;
  return ro[r < nrows ? r : nrows];
}

__global__ void fill_keys(const Index* ro, const ColIndex* cols, Index nrows, Index nvals, Key* keys, int* ids) {
  const Index e = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= nvals) return;
  // the row holding entry e: the last r with ro[r] <= e
  Index lo = 0, hi = nrows;  // invariant: ro[lo] <= e < ro[hi]
  while (hi - lo > 1) {
    const Index mid = (lo + hi) / 2;
    if (ro[mid] <= e) lo = mid;
    else hi = mid;
  }
  keys[e] = (static_cast<Key>(lo / W) << 32) | static_cast<unsigned>(cols[e]);
  ids[e] = static_cast<int>(e);
}

__global__ void mark_heads(const Key* keys, Index n, int* head) {
  const Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) head[i] = (i == 0 || keys[i] != keys[i - 1]) ? 1 : 0;
}

// Windows are contiguous in the sorted keys and start where their CSR entries start, so
// a window's first distinct column is numbered rank[start] - 1 (or the total when no
// entries follow).
__global__ void window_offsets(const Index* ro, Index nrows, Index nvals, Index windows, const int* rank, int* wco) {
  const Index w = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w > windows) return;
  const Index p = window_start(ro, nrows, w);
  wco[w] = p < nvals ? rank[p] - 1 : rank[nvals - 1];
}

__global__ void scatter_columns(const Key* keys, const int* ids, const int* head, const int* rank, const int* wco,
                                Index n, int* window_cols, int* local_cols) {
  const Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Key k = keys[i];
  const int g = rank[i] - 1;
  if (head[i]) window_cols[g] = static_cast<int>(k & 0xffffffffull);
  local_cols[ids[i]] = g - wco[k >> 32];
}

__device__ __forceinline__ int ceil_div(Index a, Index b) { return static_cast<int>((a + b - 1) / b); }

// Per window: its kind and how many work items and zeroed rows it gives.
__global__ void route_counts(const Index* ro, Index nrows, Index windows, const int* wco, double threshold,
                             int* tc_count, int* cc_count, int* zero_count, unsigned long long* stats) {
  const Index w = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w > windows) return;
  if (w == windows) {  // the sentinel makes the exclusive scans end with the totals
    tc_count[w] = cc_count[w] = zero_count[w] = 0;
    return;
  }
  const Index first = w * W;
  const Index last = first + W < nrows ? first + W : nrows;
  const Index nvals = ro[last] - ro[first];
  const int ncols = wco[w + 1] - wco[w];
  const bool tc = threshold <= 0 ? nvals > 0 : window_goes_to_tensor_cores(static_cast<int>(nvals), ncols, threshold);
  if (tc) {
    const int segments = ceil_div(ncols, WindowPolicy::segment_columns);
    tc_count[w] = segments;
    cc_count[w] = 0;
    zero_count[w] = segments > 1 ? static_cast<int>(last - first) : 0;
    atomicAdd(&stats[0], 1ull);
    atomicAdd(&stats[2], static_cast<unsigned long long>(nvals));
  } else {
    int items = 0, split = 0;
    for (Index r = first; r < last; ++r) {
      const int pieces = ceil_div(ro[r + 1] - ro[r], WindowPolicy::piece_entries);
      items += pieces > 1 ? pieces : 1;
      split += pieces > 1;
    }
    tc_count[w] = 0;
    cc_count[w] = items;
    zero_count[w] = split;
    if (nvals == 0) atomicAdd(&stats[1], 1ull);
  }
}

__global__ void route_lists(const Index* ro, Index nrows, Index windows, const int* wco, const int* tc_count,
                            const int* tc_pos, const int* cc_pos, const int* zero_pos, int2* tc_list, int2* cc_list,
                            int* zero_list) {
  const Index w = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= windows) return;
  const Index first = w * W;
  const Index last = first + W < nrows ? first + W : nrows;
  if (tc_count[w] > 0) {
    for (int s = 0; s < tc_count[w]; ++s) tc_list[tc_pos[w] + s] = make_int2(static_cast<int>(w), s);
    if (tc_count[w] > 1)
      for (Index r = first; r < last; ++r) zero_list[zero_pos[w] + (r - first)] = static_cast<int>(r);
  } else {
    int c = cc_pos[w], z = zero_pos[w];
    for (Index r = first; r < last; ++r) {
      const int pieces = ceil_div(ro[r + 1] - ro[r], WindowPolicy::piece_entries);
      for (int p = 0; p < (pieces > 1 ? pieces : 1); ++p) cc_list[c++] = make_int2(static_cast<int>(r), p);
      if (pieces > 1) zero_list[z++] = static_cast<int>(r);
    }
  }
}

RawBuffer device_buffer(Device d, std::size_t bytes) { return RawBuffer(bytes > 0 ? bytes : 4, d); }

void check_plan_limits(const SparseStorage& A) {
  if (A.nvals >= (Index{1} << 31) - 1)
    throw NotImplemented("tc_window: the window plan indexes entries with int32; A has " + std::to_string(A.nvals) +
                         " entries (at most 2^31 - 2 are supported)");
  if (!A.device.is_cuda()) throw InvalidValue("tc_window: the window plan is built on a CUDA device, A is on " + A.device.str());
}

WindowPlan build_plan(const SparseStorage& A) {
  check_plan_limits(A);
  const auto t0 = std::chrono::steady_clock::now();
  const int ordinal = A.device.ordinal();
  DeviceGuard guard(ordinal);
  cudaStream_t s = stream(ordinal);
  const Index n = A.nvals;
  const Index windows = (A.nrows + W - 1) / W;
  const Index* ro = A.row_offsets.as<Index>();

  WindowPlan p;
  p.nrows = A.nrows;
  p.nvals = n;
  p.windows = windows;
  p.window_col_offsets = device_buffer(A.device, sizeof(int) * static_cast<std::size_t>(windows + 1));
  p.local_cols = device_buffer(A.device, sizeof(int) * static_cast<std::size_t>(n));
  if (n == 0) {
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(p.window_col_offsets.data(), 0, sizeof(int) * static_cast<std::size_t>(windows + 1), s));
    p.window_cols = device_buffer(A.device, 0);
  } else {
    RawBuffer keys_in = device_buffer(A.device, sizeof(Key) * n), keys = device_buffer(A.device, sizeof(Key) * n);
    RawBuffer ids_in = device_buffer(A.device, sizeof(int) * n), ids = device_buffer(A.device, sizeof(int) * n);
    fill_keys<<<grid_for(n), block, 0, s>>>(ro, A.col_indices.as<ColIndex>(), A.nrows, n, keys_in.as<Key>(),
                                            ids_in.as<int>());
    GEBLAS_CUDA_CHECK_LAUNCH();
    int window_bits = 1;
    while ((Index{1} << window_bits) < windows) ++window_bits;
    const int end_bit = 32 + window_bits;
    std::size_t sort_bytes = 0, scan_bytes = 0;
    GEBLAS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys_in.as<Key>(), keys.as<Key>(),
                                                      ids_in.as<int>(), ids.as<int>(), static_cast<int>(n), 0,
                                                      end_bit, s));
    RawBuffer head = device_buffer(A.device, sizeof(int) * n), rank = device_buffer(A.device, sizeof(int) * n);
    GEBLAS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, head.as<int>(), rank.as<int>(),
                                                    static_cast<int>(n), s));
    RawBuffer temp = device_buffer(A.device, std::max(sort_bytes, scan_bytes));
    GEBLAS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), sort_bytes, keys_in.as<Key>(), keys.as<Key>(),
                                                      ids_in.as<int>(), ids.as<int>(), static_cast<int>(n), 0,
                                                      end_bit, s));
    mark_heads<<<grid_for(n), block, 0, s>>>(keys.as<Key>(), n, head.as<int>());
    GEBLAS_CUDA_CHECK_LAUNCH();
    GEBLAS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), scan_bytes, head.as<int>(), rank.as<int>(),
                                                    static_cast<int>(n), s));
    int total = 0;
    GEBLAS_CUDA_CHECK(cudaMemcpyAsync(&total, rank.as<int>() + (n - 1), sizeof(int), cudaMemcpyDeviceToHost, s));
    window_offsets<<<grid_for(windows + 1), block, 0, s>>>(ro, A.nrows, n, windows, rank.as<int>(),
                                                           p.window_col_offsets.as<int>());
    GEBLAS_CUDA_CHECK_LAUNCH();
    GEBLAS_CUDA_CHECK(cudaStreamSynchronize(s));  // `total` sizes the column map
    p.distinct_columns = total;
    p.window_cols = device_buffer(A.device, sizeof(int) * static_cast<std::size_t>(total));
    scatter_columns<<<grid_for(n), block, 0, s>>>(keys.as<Key>(), ids.as<int>(), head.as<int>(), rank.as<int>(),
                                                  p.window_col_offsets.as<int>(), n, p.window_cols.as<int>(),
                                                  p.local_cols.as<int>());
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
  GEBLAS_CUDA_CHECK(cudaStreamSynchronize(s));
  p.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

WindowRoute build_route(const SparseStorage& A, const WindowPlan& plan, double threshold) {
  const auto t0 = std::chrono::steady_clock::now();
  const int ordinal = A.device.ordinal();
  DeviceGuard guard(ordinal);
  cudaStream_t s = stream(ordinal);
  const Index windows = plan.windows;
  const Index* ro = A.row_offsets.as<Index>();
  const int* wco = plan.window_col_offsets.as<int>();
  WindowRoute r;
  r.threshold = threshold;
  const std::size_t ints = sizeof(int) * static_cast<std::size_t>(windows + 1);
  RawBuffer tcn = device_buffer(A.device, ints), ccn = device_buffer(A.device, ints), zn = device_buffer(A.device, ints);
  RawBuffer tcp = device_buffer(A.device, ints), ccp = device_buffer(A.device, ints), zp = device_buffer(A.device, ints);
  RawBuffer stats = device_buffer(A.device, sizeof(unsigned long long) * 3);
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(stats.data(), 0, stats.bytes(), s));
  route_counts<<<grid_for(windows + 1), block, 0, s>>>(ro, A.nrows, windows, wco, threshold, tcn.as<int>(),
                                                       ccn.as<int>(), zn.as<int>(), stats.as<unsigned long long>());
  GEBLAS_CUDA_CHECK_LAUNCH();
  std::size_t scan_bytes = 0;
  const int count = static_cast<int>(windows + 1);
  GEBLAS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, tcn.as<int>(), tcp.as<int>(), count, s));
  RawBuffer temp = device_buffer(A.device, scan_bytes);
  GEBLAS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, tcn.as<int>(), tcp.as<int>(), count, s));
  GEBLAS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, ccn.as<int>(), ccp.as<int>(), count, s));
  GEBLAS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, zn.as<int>(), zp.as<int>(), count, s));
  int totals[3] = {};
  unsigned long long host[3] = {};
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(&totals[0], tcp.as<int>() + windows, sizeof(int), cudaMemcpyDeviceToHost, s));
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(&totals[1], ccp.as<int>() + windows, sizeof(int), cudaMemcpyDeviceToHost, s));
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(&totals[2], zp.as<int>() + windows, sizeof(int), cudaMemcpyDeviceToHost, s));
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(host, stats.data(), sizeof(host), cudaMemcpyDeviceToHost, s));
  GEBLAS_CUDA_CHECK(cudaStreamSynchronize(s));  // the totals size the lists
  r.tc_items = totals[0];
  r.cc_items = totals[1];
  r.zero_rows = totals[2];
  r.tc_windows = static_cast<Index>(host[0]);
  r.empty_windows = static_cast<Index>(host[1]);
  r.tc_nvals = static_cast<Index>(host[2]);
  r.cc_windows = windows - r.tc_windows - r.empty_windows;
  r.tc_item_list = device_buffer(A.device, sizeof(int2) * static_cast<std::size_t>(r.tc_items));
  r.cc_item_list = device_buffer(A.device, sizeof(int2) * static_cast<std::size_t>(r.cc_items));
  r.zero_row_list = device_buffer(A.device, sizeof(int) * static_cast<std::size_t>(r.zero_rows));
  if (windows > 0) {
    route_lists<<<grid_for(windows), block, 0, s>>>(ro, A.nrows, windows, wco, tcn.as<int>(), tcp.as<int>(),
                                                    ccp.as<int>(), zp.as<int>(), r.tc_item_list.as<int2>(),
                                                    r.cc_item_list.as<int2>(), r.zero_row_list.as<int>());
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
  GEBLAS_CUDA_CHECK(cudaStreamSynchronize(s));
  r.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

std::shared_ptr<const WindowPlan> cached_window_plan(const SparseStorage& A, bool* was_cached) {
  bool built = false;
  auto p = derived<WindowPlan>(A, "tc_window_plan", [&] {
    built = true;
    return build_plan(A);
  });
  if (was_cached) *was_cached = !built;
  return p;
}

std::shared_ptr<const WindowRoute> cached_window_route(const SparseStorage& A, const WindowPlan& plan,
                                                       double threshold, bool* was_cached) {
  char key[64];
  std::snprintf(key, sizeof(key), "tc_window_route/%a", threshold);
  bool built = false;
  auto r = derived<WindowRoute>(A, key, [&] {
    built = true;
    return build_route(A, plan, threshold);
  });
  if (was_cached) *was_cached = !built;
  return r;
}

WindowPlanInfo window_plan_info(const SparseStorage& A) {
  bool plan_cached = false, route_cached = false;
  auto plan = cached_window_plan(A, &plan_cached);
  auto route = cached_window_route(A, *plan, tc_window_threshold(), &route_cached);
  WindowPlanInfo info;
  info.windows = plan->windows;
  info.tensor_core_windows = route->tc_windows;
  info.cuda_core_windows = route->cc_windows;
  info.empty_windows = route->empty_windows;
  info.tensor_core_nvals = route->tc_nvals;
  info.distinct_columns = plan->distinct_columns;
  info.threshold = route->threshold;
  info.build_ms = plan->build_ms + route->build_ms;
  info.cached = plan_cached && route_cached;
  return info;
}

}  // namespace geblas::detail::cuda
