// Reductions over a monoid on the GPU: one warp per row for the row reductions of sparse
// and dense matrices (lanes fold strided entries, then shuffle), and CUB's DeviceReduce
// for the reduction of a whole array to one value. The monoid is chosen at run time, so
// each kernel is compiled once per value type.
//
// Every fold starts from a term, never from the identity, as the CPU backend does: a
// monoid whose operator normalises (lor / land / lxor over int32 or float keep 0 or 1)
// leaves a single term as it is, and `any` keeps a term it met rather than its identity.
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_reduce.cuh>

#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "cuda/ops/runtime_ops.cuh"
#include "geblas/detail/nan_rule.hpp"

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

// get(i, k) reads entry k of row i; len(i) is the row's length. A row without terms gets
// the identity (a dense row of zero columns) or is absent (present[i] = 0, sparse rows).
template <class V, class Len, class Get>
__global__ void row_reduce_kernel(Index m, MonoidId mon, Len len, Get get, V* out, std::uint8_t* present) {
  const int lane = threadIdx.x % 32;
  const Index warp = (Index(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const Index warps = Index(gridDim.x) * blockDim.x / 32;
  for (Index i = warp; i < m; i += warps) {
    const Index L = len(i);
    bool has = false;
    V acc = monoid_identity<V>(mon);
    for (Index k = lane; k < L; k += 32) {
      const V x = get(i, k);
      acc = has ? monoid_apply<V>(mon, acc, x) : first_term(mon, x);
      has = true;
    }
    for (int off = 16; off > 0; off /= 2) {
      const bool oh = __shfl_down_sync(0xffffffffu, static_cast<int>(has), off) != 0;
      const V ov = shfl_down_any(acc, off);
      if (oh) {
        acc = has ? monoid_apply<V>(mon, acc, ov) : first_term(mon, ov);
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
      A.nrows, mon, len, get, out, present);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

template <class V>
void reduce_rows_dense_typed(V* out, const DenseStorage& A, MonoidId mon, cudaStream_t s) {
  const DenseView<V> a = dense_view<V>(A);
  const Index n = A.ncols;
  auto len = [=] __device__(Index) { return n; };
  auto get = [=] __device__(Index i, Index k) { return a(i, k); };
  row_reduce_kernel<V><<<blocks_for(A.nrows * 32, RowReducePolicy::threads), RowReducePolicy::threads, 0, s>>>(
      A.nrows, mon, len, get, out, nullptr);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

// A value and whether it is one: CUB's reduction needs an initial value, and starting
// from the monoid's identity would normalise a single term (see the top of the file).
// {_, false} is the identity of this pair monoid, so it is associative like the monoid.
template <class V>
struct Term {
  V value;
  bool has;
};

template <class V>
struct TermOf {
  __device__ Term<V> operator()(V x) const { return {x, true}; }
};

template <class V>
struct TermMonoid {
  MonoidId id;
  __device__ Term<V> operator()(const Term<V>& a, const Term<V>& b) const {
    if (!a.has) return b;
    if (!b.has) return a;
    return {monoid_apply<V>(id, a.value, b.value), true};
  }
};

template <class V>
void reduce_values_typed(ScalarBytes& result, const void* values, Index count, MonoidId mon, const Ctx& c) {
  const Term<V> init{monoid_identity<V>(mon), false};
  RawBuffer out = temp<Term<V>>(1, c.device);
  std::size_t bytes = 0;
  const auto in = thrust::make_transform_iterator(static_cast<const V*>(values), TermOf<V>{});
  GEBLAS_CUDA_CHECK(
      cub::DeviceReduce::Reduce(nullptr, bytes, in, out.as<Term<V>>(), count, TermMonoid<V>{mon}, init, c.stream));
  RawBuffer tmp(bytes, c.device);
  GEBLAS_CUDA_CHECK(
      cub::DeviceReduce::Reduce(tmp.data(), bytes, in, out.as<Term<V>>(), count, TermMonoid<V>{mon}, init, c.stream));
  Term<V> host{};
  read_to_host(&host, out.data(), sizeof(host), c.stream);
  *static_cast<V*>(result.data()) = host.has ? first_term(mon, host.value) : monoid_identity<V>(mon);
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
