// Reductions over a monoid on the GPU: one warp per row for the row reductions of sparse
// and dense matrices (lanes fold strided entries, then shuffle), and CUB's DeviceReduce
// for the reduction of a whole array to one value. The monoid is chosen at run time, so
// each kernel is compiled once per value type.
#include <cub/device/device_reduce.cuh>

#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "cuda/ops/runtime_ops.cuh"

namespace geblas::detail::cuda::ops {
namespace {

// One warp per row: rows of graphs range from empty to millions of entries, and a warp
// per row keeps long rows coalesced; 8 rows per 256-thread block as LaunchPolicy.
struct RowReducePolicy {
  static constexpr int threads = 256;
};

template <class T>
__device__ inline T shfl_down_any(T v, int off) {
  if constexpr (std::is_same_v<T, bool>) return __shfl_down_sync(0xffffffffu, static_cast<int>(v), off) != 0;
  else return __shfl_down_sync(0xffffffffu, v, off);
}

// get(i, k) reads entry k of row i; len(i) is the row's length. With seed_identity the
// fold starts from the monoid's identity (dense rows, as the CPU backend does); without,
// from the row's first entry (sparse rows: an empty row is absent).
template <class V, class Len, class Get>
__global__ void row_reduce_kernel(Index m, MonoidId mon, Len len, Get get, V* out, std::uint8_t* present,
                                  bool seed_identity) {
  const int lane = threadIdx.x % 32;
  const Index warp = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const Index warps = Index(gridDim.x) * blockDim.x / 32;
  for (Index i = warp; i < m; i += warps) {
    const Index L = len(i);
    bool has = seed_identity && lane == 0;
    V acc = monoid_identity<V>(mon);
    for (Index k = lane; k < L; k += 32) {
      const V x = get(i, k);
      acc = has ? monoid_apply<V>(mon, acc, x) : x;
      has = true;
    }
    for (int off = 16; off > 0; off /= 2) {
      const bool oh = __shfl_down_sync(0xffffffffu, static_cast<int>(has), off) != 0;
      const V ov = shfl_down_any(acc, off);
      if (oh) {
        acc = has ? monoid_apply<V>(mon, acc, ov) : ov;
        has = true;
      }
    }
    if (lane == 0) {
      out[i] = has ? acc : monoid_identity<V>(mon);
      if (present) present[i] = has;
    }
  }
}

template <class V>
void reduce_rows_sparse_typed(V* out, std::uint8_t* present, const SparseStorage& A, MonoidId mon, cudaStream_t s) {
  const Index* ro = A.row_offsets.as<Index>();
  const V* v = A.values.as<V>();
  auto len = [=] __device__(Index i) { return ro[i + 1] - ro[i]; };
  auto get = [=] __device__(Index i, Index k) { return v[ro[i] + k]; };
  row_reduce_kernel<V><<<blocks_for(A.nrows * 32, RowReducePolicy::threads), RowReducePolicy::threads, 0, s>>>(
      A.nrows, mon, len, get, out, present, false);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

template <class V>
void reduce_rows_dense_typed(V* out, const DenseStorage& A, MonoidId mon, cudaStream_t s) {
  const DenseView<V> a = dense_view<V>(A);
  const Index n = A.ncols;
  auto len = [=] __device__(Index) { return n; };
  auto get = [=] __device__(Index i, Index k) { return a(i, k); };
  row_reduce_kernel<V><<<blocks_for(A.nrows * 32, RowReducePolicy::threads), RowReducePolicy::threads, 0, s>>>(
      A.nrows, mon, len, get, out, nullptr, true);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

template <class V>
struct MonoidOp {
  MonoidId id;
  __device__ V operator()(V a, V b) const { return monoid_apply<V>(id, a, b); }
};

template <class V>
void reduce_values_typed(ScalarBytes& result, const void* values, Index count, MonoidId mon, const Ctx& c) {
  const V init = monoid_identity<V>(mon);
  RawBuffer out = temp<V>(1, c.device);
  std::size_t bytes = 0;
  const V* in = static_cast<const V*>(values);
  GEBLAS_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, in, out.as<V>(), count, MonoidOp<V>{mon}, init, c.stream));
  RawBuffer tmp(bytes, c.device);
  GEBLAS_CUDA_CHECK(
      cub::DeviceReduce::Reduce(tmp.data(), bytes, in, out.as<V>(), count, MonoidOp<V>{mon}, init, c.stream));
  V host{};
  read_to_host(&host, out.data(), sizeof(V), c.stream);
  *static_cast<V*>(result.data()) = host;
}

}  // namespace

void reduce_rows_sparse(VectorResult& t, const SparseStorage& A, MonoidId m) {
  Ctx c(A.device);
  VectorResult r = dense_result(A.nrows, A.type, true, c);
  if (A.nrows > 0)
    visit_type(A.type, [&]<class V>() {
      reduce_rows_sparse_typed<V>(r.t.values.as<V>(), r.present.as<std::uint8_t>(), A, m, c.stream);
    });
  t = std::move(r);
}

void reduce_rows_dense(VectorStorage& t, const DenseStorage& A, MonoidId m) {
  Ctx c(A.device);
  VectorStorage out;
  out.size = A.nrows;
  out.nvals = A.nrows;
  out.dense = true;
  out.type = A.type;
  out.device = c.device;
  out.values = RawBuffer(static_cast<std::size_t>(A.nrows) * size_of(A.type), c.device);
  if (A.nrows > 0)
    visit_type(A.type, [&]<class V>() { reduce_rows_dense_typed<V>(out.values.as<V>(), A, m, c.stream); });
  t = std::move(out);
}

void reduce_values(ScalarBytes& result, const void* values, Index count, TypeId type, MonoidId m, int ordinal) {
  visit_type(type, [&]<class V>() {
    if (count == 0) {
      *static_cast<V*>(result.data()) = monoid_identity<V>(m);
      return;
    }
    Ctx c(Device::cuda(ordinal));
    reduce_values_typed<V>(result, values, count, m, c);
  });
}

}  // namespace geblas::detail::cuda::ops
