// Builds the row-window plan on the GPU without sorting: an entry is the head of its
// column in its window when no earlier row of the window holds that column (binary
// searches in the window's other rows, which are sorted), one scan numbers the heads,
// and an entry's condensed column is the number of heads of its window with a smaller
// column (again one binary search per row of the window). Three launches and one host
// synchronisation, where the first builder's radix sort took about ten launches and two
// synchronisations (run 1, docs/PERFORMANCE.md). The routing is a count per window, one
// scan of all counts together and a pass that writes the lists: again one synchronisation.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <cub/device/device_scan.cuh>

#include "core/derived_cache.hpp"
#include "cuda/check.cuh"
#include "cuda/context.cuh"
#include "cuda/spmm/policy/tc_cost_model.hpp"
#include "cuda/spmm/window_plan.cuh"

namespace geblas::detail::cuda {
namespace {

constexpr int W = WindowPolicy::window_rows;
constexpr int block = WindowPolicy::block;

unsigned grid_for(Index n) { return static_cast<unsigned>((n + block - 1) / block); }

// The row holding entry e (e < nvals): the last r with ro[r] <= e.
__device__ __forceinline__ Index row_of(const Index* ro, Index nrows, Index e) {
  Index lo = 0, hi = nrows;  // invariant: ro[lo] <= e < ro[hi]
  while (hi - lo > 1) {
    const Index mid = (lo + hi) / 2;
    if (ro[mid] <= e) lo = mid;
    else hi = mid;
  }
  return lo;
}

// The first position in [lo, hi) (a sorted row) whose column is >= c.
__device__ __forceinline__ Index lower_bound(const ColIndex* ci, Index lo, Index hi, ColIndex c) {
  while (lo < hi) {
    const Index mid = (lo + hi) / 2;
    if (ci[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Heads among entries [0, p), from the inclusive scan of the head flags.
__device__ __forceinline__ int heads_before(const int* incl, Index p) { return p == 0 ? 0 : incl[p - 1]; }

__global__ void plan_heads(const Index* ro, const ColIndex* ci, Index nrows, Index nvals, int* head) {
  const Index e = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= nvals) return;
  const Index row = row_of(ro, nrows, e);
  const ColIndex c = ci[e];
  int h = 1;
  for (Index r = row / W * W; r < row && h; ++r) {
    const Index p = lower_bound(ci, ro[r], ro[r + 1], c);
    if (p < ro[r + 1] && ci[p] == c) h = 0;
  }
  head[e] = h;
}

// Thread i: window i's first condensed column (i <= windows; windows of entries are
// contiguous, so heads before a window's first entry are the columns of the windows
// before it), and entry i's condensed column (i < nvals), written into the column map
// when the entry is its column's head.
__global__ void plan_columns(const Index* ro, const ColIndex* ci, Index nrows, Index nvals, Index windows,
                             const int* incl, int* wco, int* window_cols, int* local) {
  const Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i <= windows) wco[i] = heads_before(incl, ro[i * W < nrows ? i * W : nrows]);
  if (i >= nvals) return;
  const Index row = row_of(ro, nrows, i);
  const Index first = row / W * W;
  const Index last = first + W < nrows ? first + W : nrows;
  const ColIndex c = ci[i];
  int l = 0;  // heads of the window with a column < c = distinct columns of the window below c
  for (Index r = first; r < last; ++r)
    l += heads_before(incl, lower_bound(ci, ro[r], ro[r + 1], c)) - heads_before(incl, ro[r]);
  local[i] = l;
  if (heads_before(incl, i + 1) != heads_before(incl, i)) window_cols[heads_before(incl, ro[first]) + l] = c;
}

__device__ __forceinline__ int ceil_div(Index a, Index b) { return static_cast<int>((a + b - 1) / b); }

// What a window contributes to the routing; summed by one scan (the exclusive scan of
// the counts gives each window its positions in the lists, the total the sizes).
// (A plain aggregate, zeroed by value-initialisation, as CUB's scan storage expects.)
struct RouteCounts {
  int tc_items, cc_items, zero_rows;
  int tc_windows, cc_windows, empty_windows;
  long long tc_nvals, tc_columns;
};
struct AddCounts {
  __host__ __device__ RouteCounts operator()(const RouteCounts& a, const RouteCounts& b) const {
    RouteCounts s{};
    s.tc_items = a.tc_items + b.tc_items;
    s.cc_items = a.cc_items + b.cc_items;
    s.zero_rows = a.zero_rows + b.zero_rows;
    s.tc_windows = a.tc_windows + b.tc_windows;
    s.cc_windows = a.cc_windows + b.cc_windows;
    s.empty_windows = a.empty_windows + b.empty_windows;
    s.tc_nvals = a.tc_nvals + b.tc_nvals;
    s.tc_columns = a.tc_columns + b.tc_columns;
    return s;
  }
};

// Per window: its kind and how many work items and zeroed rows it gives.
__global__ void route_counts(const Index* ro, Index nrows, Index windows, const int* wco, double threshold,
                             int k_step, RouteCounts* counts) {
  const Index w = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w > windows) return;
  RouteCounts k{};
  if (w < windows) {  // the sentinel (w == windows) stays zero, so the exclusive scan ends with the totals
    const Index first = w * W;
    const Index last = first + W < nrows ? first + W : nrows;
    const Index nvals = ro[last] - ro[first];
    const int ncols = wco[w + 1] - wco[w];
    const bool tc = threshold <= 0 ? nvals > 0 : window_goes_to_tensor_cores(static_cast<int>(nvals), ncols, threshold, k_step);
    if (tc) {
      const int segments = ceil_div(ncols, WindowPolicy::segment_columns);
      k.tc_items = segments;
      k.zero_rows = segments > 1 ? static_cast<int>(last - first) : 0;
      k.tc_windows = 1;
      k.tc_nvals = nvals;
      k.tc_columns = (ncols + k_step - 1) / k_step * k_step;
    } else {
      for (Index r = first; r < last; ++r) {
        const int pieces = ceil_div(ro[r + 1] - ro[r], WindowPolicy::piece_entries);
        k.cc_items += pieces > 1 ? pieces : 1;
        k.zero_rows += pieces > 1;
      }
      k.cc_windows = nvals > 0;
      k.empty_windows = nvals == 0;
    }
  }
  counts[w] = k;
}

__global__ void route_lists(const Index* ro, Index nrows, Index windows, const RouteCounts* counts,
                            const RouteCounts* pos, int2* tc_list, int2* cc_list, int* zero_list, int* row_slot) {
  const Index w = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= windows) return;
  const Index first = w * W;
  const Index last = first + W < nrows ? first + W : nrows;
  const RouteCounts k = counts[w], at = pos[w];
  if (k.tc_windows) {
    for (int s = 0; s < k.tc_items; ++s) tc_list[at.tc_items + s] = make_int2(static_cast<int>(w), s);
    if (k.tc_items > 1)
      for (Index r = first; r < last; ++r) {
        zero_list[at.zero_rows + (r - first)] = static_cast<int>(r);
        row_slot[r] = at.zero_rows + static_cast<int>(r - first);
      }
  } else {
    int c = at.cc_items, z = at.zero_rows;
    for (Index r = first; r < last; ++r) {
      const int pieces = ceil_div(ro[r + 1] - ro[r], WindowPolicy::piece_entries);
      for (int p = 0; p < (pieces > 1 ? pieces : 1); ++p) cc_list[c++] = make_int2(static_cast<int>(r), p);
      if (pieces > 1) {
        row_slot[r] = z;
        zero_list[z++] = static_cast<int>(r);
      }
    }
  }
}

RawBuffer device_buffer(Device d, std::size_t bytes) { return RawBuffer(bytes > 0 ? bytes : 4, d); }

void check_plan_limits(const SparseStorage& A) {
  if (!A.device.is_cuda()) throw InvalidValue("tc_window: the window plan is built on a CUDA device, A is on " + A.device.str());
  if (A.nvals >= (Index{1} << 31) - 1)
    throw NotImplemented("tc_window: the window plan indexes entries with int32; A has " + std::to_string(A.nvals) +
                         " entries (at most 2^31 - 2 are supported)");
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
  const ColIndex* ci = A.col_indices.as<ColIndex>();

  WindowPlan p;
  p.nrows = A.nrows;
  p.nvals = n;
  p.windows = windows;
  p.window_col_offsets = device_buffer(A.device, sizeof(int) * static_cast<std::size_t>(windows + 1));
  p.local_cols = device_buffer(A.device, sizeof(int) * static_cast<std::size_t>(n));
  // A window has at most as many distinct columns as entries: sized by nvals, the map
  // needs no count from the device before it is written.
  p.window_cols = device_buffer(A.device, sizeof(int) * static_cast<std::size_t>(n));
  if (n == 0) {
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(p.window_col_offsets.data(), 0, sizeof(int) * static_cast<std::size_t>(windows + 1), s));
  } else {
    RawBuffer head = device_buffer(A.device, sizeof(int) * n), incl = device_buffer(A.device, sizeof(int) * n);
    std::size_t scan_bytes = 0;
    GEBLAS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, head.as<int>(), incl.as<int>(),
                                                    static_cast<int>(n), s));
    RawBuffer temp = device_buffer(A.device, scan_bytes);
    plan_heads<<<grid_for(n), block, 0, s>>>(ro, ci, A.nrows, n, head.as<int>());
    GEBLAS_CUDA_CHECK_LAUNCH();
    GEBLAS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), scan_bytes, head.as<int>(), incl.as<int>(),
                                                    static_cast<int>(n), s));
    plan_columns<<<grid_for(std::max(n, windows + 1)), block, 0, s>>>(ro, ci, A.nrows, n, windows, incl.as<int>(),
                                                                      p.window_col_offsets.as<int>(),
                                                                      p.window_cols.as<int>(), p.local_cols.as<int>());
    GEBLAS_CUDA_CHECK_LAUNCH();
    int total = 0;
    read_to_host(&total, incl.as<int>() + (n - 1), sizeof(int), s);
    p.distinct_columns = total;
  }
  GEBLAS_CUDA_CHECK(cudaStreamSynchronize(s));
  p.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

WindowRoute build_route(const SparseStorage& A, const WindowPlan& plan, double threshold, int k_step) {
  const auto t0 = std::chrono::steady_clock::now();
  const int ordinal = A.device.ordinal();
  DeviceGuard guard(ordinal);
  cudaStream_t s = stream(ordinal);
  const Index windows = plan.windows;
  const Index* ro = A.row_offsets.as<Index>();
  WindowRoute r;
  r.threshold = threshold;
  r.k_step = k_step;
  const std::size_t slots = static_cast<std::size_t>(windows + 1);
  RawBuffer counts = device_buffer(A.device, sizeof(RouteCounts) * slots);
  RawBuffer pos = device_buffer(A.device, sizeof(RouteCounts) * slots);
  // The lists are sized by bounds, so that they are written before the totals are read:
  // a window gives at most 1 + distinct/segment tensor-core items, a row at most
  // 1 + entries/piece CUDA-core items, and a row is zeroed at most once.
  const Index tc_bound = windows + plan.distinct_columns / WindowPolicy::segment_columns + 1;
  const Index cc_bound = A.nrows + A.nvals / WindowPolicy::piece_entries + 1;
  r.tc_item_list = device_buffer(A.device, sizeof(int2) * static_cast<std::size_t>(tc_bound));
  r.cc_item_list = device_buffer(A.device, sizeof(int2) * static_cast<std::size_t>(cc_bound));
  r.zero_row_list = device_buffer(A.device, sizeof(int) * static_cast<std::size_t>(A.nrows));
  r.row_slot = device_buffer(A.device, sizeof(int) * static_cast<std::size_t>(A.nrows));
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(r.row_slot.data(), 0xff, sizeof(int) * static_cast<std::size_t>(A.nrows), s));
  route_counts<<<grid_for(windows + 1), block, 0, s>>>(ro, A.nrows, windows, plan.window_col_offsets.as<int>(),
                                                       threshold, k_step, counts.as<RouteCounts>());
  GEBLAS_CUDA_CHECK_LAUNCH();
  std::size_t scan_bytes = 0;
  const int count = static_cast<int>(windows + 1);
  GEBLAS_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, scan_bytes, counts.as<RouteCounts>(),
                                                   pos.as<RouteCounts>(), AddCounts{}, RouteCounts{}, count, s));
  RawBuffer temp = device_buffer(A.device, scan_bytes);
  GEBLAS_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp.data(), scan_bytes, counts.as<RouteCounts>(),
                                                   pos.as<RouteCounts>(), AddCounts{}, RouteCounts{}, count, s));
  if (windows > 0) {
    route_lists<<<grid_for(windows), block, 0, s>>>(ro, A.nrows, windows, counts.as<RouteCounts>(),
                                                    pos.as<RouteCounts>(), r.tc_item_list.as<int2>(),
                                                    r.cc_item_list.as<int2>(), r.zero_row_list.as<int>(),
                                                    r.row_slot.as<int>());
    GEBLAS_CUDA_CHECK_LAUNCH();
  }
  RouteCounts total{};
  read_to_host(&total, pos.as<RouteCounts>() + windows, sizeof(RouteCounts), s);
  r.tc_items = total.tc_items;
  r.cc_items = total.cc_items;
  r.zero_rows = total.zero_rows;
  r.tc_windows = total.tc_windows;
  r.cc_windows = total.cc_windows;
  r.empty_windows = total.empty_windows;
  r.tc_nvals = total.tc_nvals;
  r.tc_columns = total.tc_columns;
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
                                                       double threshold, int k_step, bool* was_cached) {
  char key[64];
  std::snprintf(key, sizeof(key), "tc_window_route/%a/k%d", threshold, k_step);
  bool built = false;
  auto r = derived<WindowRoute>(A, key, [&] {
    built = true;
    return build_route(A, plan, threshold, k_step);
  });
  if (was_cached) *was_cached = !built;
  return r;
}

WindowPlanInfo window_plan_info(const SparseStorage& A, Index n) {
  bool plan_cached = false, route_cached = false;
  const double threshold = tc_threshold(A.type, n);  // throws for types without tensor-core windows
  auto plan = cached_window_plan(A, &plan_cached);
  auto route = cached_window_route(A, *plan, threshold, tc_k_step(A.type), &route_cached);
  WindowPlanInfo info;
  info.windows = plan->windows;
  info.tensor_core_windows = route->tc_windows;
  info.cuda_core_windows = route->cc_windows;
  info.empty_windows = route->empty_windows;
  info.tensor_core_nvals = route->tc_nvals;
  info.tensor_core_columns = route->tc_columns;
  info.distinct_columns = plan->distinct_columns;
  info.k_step = route->k_step;
  info.threshold = route->threshold;
  info.predicted_gain = A.nvals == 0 ? 0.0
                                     : (static_cast<double>(route->tc_nvals) -
                                        route->threshold * static_cast<double>(route->tc_columns)) /
                                           static_cast<double>(A.nvals);
  info.build_ms = plan->build_ms + route->build_ms;
  info.cached = plan_cached && route_cached;
  return info;
}

}  // namespace geblas::detail::cuda
