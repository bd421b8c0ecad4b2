// Shared pieces of the CUDA operations other than SpMM: launch helpers, stream-ordered
// temporary buffers, the device view of a mask, binary search in sorted index ranges,
// atomics for any value type, and the device-wide primitives (scan, key sort, CSR
// assembly, vector densify / compact) that every sparse-output operation is built from.
// Everything runs on the device's geblas stream; the only host waits are the reads of a
// result size that an allocation needs.
#pragma once

#include <cstdint>

#include "core/backend.hpp"
#include "cuda/check.cuh"
#include "cuda/context.cuh"
#include "geblas/detail/views.hpp"
#include "geblas/mask.hpp"

namespace geblas::detail::cuda::ops {

// Launch shape of the element-wise kernels (grid-stride loops). 256 threads is the
// usual choice for memory-bound loops on Hopper (8 warps, full occupancy at <= 64 regs);
// the grid cap keeps launches cheap for huge arrays, grid-stride loops cover the rest.
struct LaunchPolicy {
  static constexpr int threads = 256;
  static constexpr Index max_blocks = Index{1} << 16;
};

inline unsigned blocks_for(Index n, int threads = LaunchPolicy::threads) {
  Index b = (n + threads - 1) / threads;
  if (b > LaunchPolicy::max_blocks) b = LaunchPolicy::max_blocks;
  return static_cast<unsigned>(b < 1 ? 1 : b);
}

template <class F>
__global__ void for_each_kernel(Index n, F f) {
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += Index(gridDim.x) * blockDim.x) f(i);
}

// f(i) for i in [0, n) on the stream; nothing is launched when n == 0.
template <class F>
void for_each(Index n, cudaStream_t s, F f) {
  if (n <= 0) return;
  for_each_kernel<<<blocks_for(n), LaunchPolicy::threads, 0, s>>>(n, f);
  GEBLAS_CUDA_CHECK_LAUNCH();
}

// The context of one backend call: the device is current for its lifetime.
struct Ctx {
  explicit Ctx(Device d) : device(d), guard(d.ordinal()), stream(cuda::stream(d.ordinal())) {}
  Device device;
  DeviceGuard guard;
  cudaStream_t stream;
};

// A temporary device buffer (stream-ordered allocation through the backend). Byte
// arrays are rounded up to whole 32-bit words, so that a byte CAS on its containing
// word never touches memory past the allocation.
template <class T>
RawBuffer temp(Index count, Device d) {
  std::size_t bytes = static_cast<std::size_t>(count < 0 ? 0 : count) * sizeof(T);
  bytes = (bytes + 3) / 4 * 4;
  return RawBuffer(bytes, d);
}
inline RawBuffer temp_bytes(Index count, std::size_t elem, Device d) {
  std::size_t bytes = static_cast<std::size_t>(count < 0 ? 0 : count) * elem;
  bytes = (bytes + 3) / 4 * 4;
  return RawBuffer(bytes, d);
}

// ---- searching sorted ranges ----------------------------------------------------------

// The row holding entry p of a CSR matrix: the last i in [lo, nrows) with ro[i] <= p. A
// caller walking entries in order passes the row of the previous one as lo.
__device__ inline Index row_of_entry(const Index* ro, Index nrows, Index p, Index lo = 0) {
  Index hi = nrows;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const Index mid = lo + (hi - lo) / 2;
    if (ro[mid] <= p) lo = mid;
    else hi = mid;
  }
  return lo;
}

// Position of `key` in the sorted a[lo, hi), or -1 when absent.
template <class K>
__device__ inline Index search_sorted(const K* a, Index lo, Index hi, K key) {
  Index end = hi;
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (a[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return (lo < end && a[lo] == key) ? lo : Index{-1};
}

// ---- values of any type read at run time ----------------------------------------------

__device__ inline bool value_nonzero(TypeId t, const void* values, Index k) {
  switch (t) {
    case TypeId::boolean: return static_cast<const std::uint8_t*>(values)[k] != 0;
    case TypeId::int32: return static_cast<const std::int32_t*>(values)[k] != 0;
    case TypeId::int64: return static_cast<const std::int64_t*>(values)[k] != 0;
    case TypeId::float32: return static_cast<const float*>(values)[k] != 0.0f;
    case TypeId::float16:
    case TypeId::bfloat16: return (static_cast<const std::uint16_t*>(values)[k] & 0x7fffu) != 0;  // not +-0
    case TypeId::float64: break;
  }
  return static_cast<const double*>(values)[k] != 0.0;
}

// ---- masks -----------------------------------------------------------------------------

// A mask as the kernels read it. allows(i, j) applies the value / structural rule and the
// complement; a vector mask is read with j = 0. Sparse masks are searched (their rows /
// indices are sorted), dense ones indexed.
struct MaskView {
  enum Kind : std::uint8_t { none, csr, dense_matrix, sparse_vector, dense_vector };
  Kind kind = none;
  bool structural = false;
  bool complemented = false;
  TypeId type = TypeId::boolean;
  const Index* ro = nullptr;
  const ColIndex* ci = nullptr;
  const void* values = nullptr;
  Index nvals = 0;
  Index ld = 0;
  bool row_major = true;

  __device__ bool allows(Index i, Index j) const {
    bool v = true;
    switch (kind) {
      case none: return true;
      case csr: {
        const Index p = search_sorted<ColIndex>(ci, ro[i], ro[i + 1], static_cast<ColIndex>(j));
        v = p >= 0 && (structural || value_nonzero(type, values, p));
        break;
      }
      case dense_matrix: v = structural || value_nonzero(type, values, row_major ? i * ld + j : j * ld + i); break;
      case sparse_vector: {
        const Index p = search_sorted<ColIndex>(ci, 0, nvals, static_cast<ColIndex>(i));
        v = p >= 0 && (structural || value_nonzero(type, values, p));
        break;
      }
      case dense_vector: v = structural || value_nonzero(type, values, i); break;
    }
    return v != complemented;
  }
};

MaskView mask_view(const Mask& m);

// ---- atomics for any value type ---------------------------------------------------------

template <class To, class From>
__device__ inline To bits_as(From x) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  memcpy(&out, &x, sizeof(To));
  return out;
}

// *p = f(*p), atomically. 4- and 8-byte types use a CAS on themselves; bool (one byte)
// uses a CAS on its containing 32-bit word (buffers from temp() are word-padded).
template <class T, class F>
__device__ inline void atomic_update(T* p, F f) {
  if constexpr (sizeof(T) == 4) {
    auto* a = reinterpret_cast<unsigned int*>(p);
    unsigned int old = *a, assumed;
    do {
      assumed = old;
      const unsigned int next = bits_as<unsigned int>(f(bits_as<T>(assumed)));
      if (next == assumed) return;
      old = atomicCAS(a, assumed, next);
    } while (old != assumed);
  } else if constexpr (sizeof(T) == 8) {
    auto* a = reinterpret_cast<unsigned long long*>(p);
    unsigned long long old = *a, assumed;
    do {
      assumed = old;
      const unsigned long long next = bits_as<unsigned long long>(f(bits_as<T>(assumed)));
      if (next == assumed) return;
      old = atomicCAS(a, assumed, next);
    } while (old != assumed);
  } else {
    static_assert(sizeof(T) == 1);
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    auto* word = reinterpret_cast<unsigned int*>(addr & ~std::uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(addr & 3) * 8;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const std::uint8_t cur = static_cast<std::uint8_t>((assumed >> shift) & 0xffu);
      const std::uint8_t nb = bits_as<std::uint8_t>(f(bits_as<T>(cur)));
      if (nb == cur) return;
      const unsigned int next = (assumed & ~(0xffu << shift)) | (static_cast<unsigned int>(nb) << shift);
      old = atomicCAS(word, assumed, next);
    } while (old != assumed);
  }
}

// Sets the byte *p from 0 to 1; true for the one caller that did it.
__device__ inline bool atomic_claim_byte(std::uint8_t* p) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  auto* word = reinterpret_cast<unsigned int*>(addr & ~std::uintptr_t{3});
  const unsigned shift = static_cast<unsigned>(addr & 3) * 8;
  const unsigned int old = atomicOr(word, 1u << shift);
  return ((old >> shift) & 0xffu) == 0;
}

// ---- device-wide primitives (primitives.cu) ------------------------------------------------

// In place: data[0..n) becomes its exclusive prefix sum.
void exclusive_scan(Index* data, Index n, cudaStream_t s);
// One Index value from device memory (waits for the stream).
Index read_index(const Index* p, cudaStream_t s);
// counts[0..n) -> offsets[0..n] in place (counts needs n + 1 slots); returns offsets[n].
Index counts_to_offsets(Index* counts, Index n, cudaStream_t s);
// Bits needed to hold any value below `bound` (at least 1).
int bits_for(std::uint64_t bound);

// A CSR matrix of shape m x n from K unsorted, unique entries given as keys
// row * n + col and their values (`values` of `type`, K of them). Sort-based: the keys
// are radix-sorted (stable) with their positions, so rows and columns come out sorted.
SparseStorage csr_from_keys(Index m, Index n, RawBuffer& keys, const RawBuffer& values, Index K, TypeId type,
                            const Ctx& c);

// Where kernels write the entries that csr_from_keys takes: put(q, i, j, x) stores entry
// q as its key i * ncols + j and its value.
template <class V>
struct KeyedEntryView {
  std::uint64_t* keys;
  V* values;
  std::uint64_t ncols;
  __device__ void put(Index q, Index i, Index j, V x) const {
    keys[q] = static_cast<std::uint64_t>(i) * ncols + static_cast<std::uint64_t>(j);
    values[q] = x;
  }
};

// `count` unique entries of an nrows x ncols matrix of V, written in any order by the
// operation's kernels (through view()) and then put in order by csr_from_keys.
template <class V>
struct KeyedEntries {
  KeyedEntries(Index nrows, Index ncols, Index count, Device d)
      : nrows(nrows), ncols(ncols), count(count), keys(temp<std::uint64_t>(count, d)), values(temp<V>(count, d)) {}
  // The entries from `first` on, for a kernel that writes a part of them.
  KeyedEntryView<V> view(Index first = 0) {
    return {keys.as<std::uint64_t>() + first, values.as<V>() + first, static_cast<std::uint64_t>(ncols)};
  }
  SparseStorage to_csr(TypeId type, const Ctx& c) { return csr_from_keys(nrows, ncols, keys, values, count, type, c); }

  Index nrows, ncols, count;
  RawBuffer keys, values;
};

// A vector as a dense array of values plus a presence byte per entry; `present` is null
// when every entry is present (a dense vector). Sparse inputs are scattered.
struct DenseVec {
  RawBuffer values_holder, present_holder;
  const void* values = nullptr;
  const std::uint8_t* present = nullptr;
};
DenseVec densify(const VectorStorage& v, const Ctx& c);
// The same for a VectorResult.
DenseVec densify(const VectorResult& t, const Ctx& c);
// A sparse vector of `size` holding the present entries of (values, present).
VectorStorage compact_vector(Index size, const void* values, const std::uint8_t* present, TypeId type, const Ctx& c);

// A dense result vector of n entries of `type`, values not initialised; with_presence adds
// the presence bytes of an operation whose result may miss entries (also not initialised).
VectorResult dense_result(Index n, TypeId type, bool with_presence, const Ctx& c);

// A sparse storage / vector with buffers of the given sizes, nothing initialised.
SparseStorage new_sparse(Index m, Index n, Index nvals, TypeId type, Device d);
VectorStorage new_sparse_vector(Index size, Index nvals, TypeId type, Device d);
DenseStorage new_dense(Index m, Index n, Layout layout, TypeId type, Device d);

// A sparse m x n matrix of V built row by row: rows(i, emit) calls emit(j, x) for each entry
// of row i in column order. It runs twice per row, in a count pass and a fill pass around a
// prefix sum, and must emit the same entries both times.
template <class V, class Rows>
SparseStorage sparse_from_rows(Index m, Index n, TypeId type, const Ctx& c, Rows rows) {
  RawBuffer counts_buf = temp<Index>(m + 1, c.device);
  Index* counts = counts_buf.as<Index>();
  for_each(m, c.stream, [=] __device__(Index i) {
    Index k = 0;
    rows(i, [&](Index, V) { ++k; });
    counts[i] = k;
  });
  const Index nvals = counts_to_offsets(counts, m, c.stream);
  SparseStorage out = new_sparse(m, n, nvals, type, c.device);
  GEBLAS_CUDA_CHECK(cudaMemcpyAsync(out.row_offsets.data(), counts, static_cast<std::size_t>(m + 1) * sizeof(Index),
                                    cudaMemcpyDeviceToDevice, c.stream));
  ColIndex* oci = out.col_indices.as<ColIndex>();
  V* ov = out.values.as<V>();
  for_each(m, c.stream, [=] __device__(Index i) {
    Index p = counts[i];
    rows(i, [&](Index j, V x) {
      oci[p] = static_cast<ColIndex>(j);
      ov[p] = x;
      ++p;
    });
  });
  return out;
}

// The places of the items in [0, n) that keep(i) holds, as a stream compaction needs them:
// pos()[i] is item i's place among the kept ones (i is kept where pos()[i + 1] != pos()[i])
// and `count` their number, read back for the caller's allocation.
struct KeptPlaces {
  RawBuffer buf;
  Index count = 0;
  const Index* pos() const { return buf.as<Index>(); }
};
template <class Keep>
KeptPlaces kept_places(Index n, const Ctx& c, Keep keep) {
  KeptPlaces out{temp<Index>(n + 1, c.device)};
  Index* pos = out.buf.as<Index>();
  for_each(n, c.stream, [=] __device__(Index i) { pos[i] = keep(i) ? 1 : 0; });
  out.count = counts_to_offsets(pos, n, c.stream);
  return out;
}

// The entries p of the CSR matrix `pattern` that keep(p) holds, with values[p] (of `type`)
// as their values. The row offsets are read off the prefix sum that places the entries,
// so rows stay sorted. keep runs for every entry before any value is read: it may write
// the values it keeps.
template <class V, class Keep>
SparseStorage kept_entries(const SparseStorage& pattern, const V* values, TypeId type, const Ctx& c, Keep keep) {
  const Index m = pattern.nrows;
  const Index* ro = pattern.row_offsets.as<Index>();
  const ColIndex* ci = pattern.col_indices.as<ColIndex>();
  const KeptPlaces places = kept_places(pattern.nvals, c, keep);
  const Index* pos = places.pos();
  SparseStorage out = new_sparse(m, pattern.ncols, places.count, type, c.device);
  Index* oro = out.row_offsets.as<Index>();
  ColIndex* oci = out.col_indices.as<ColIndex>();
  V* ov = out.values.as<V>();
  for_each(m + 1, c.stream, [=] __device__(Index i) { oro[i] = pos[ro[i]]; });
  for_each(pattern.nvals, c.stream, [=] __device__(Index p) {
    if (pos[p + 1] != pos[p]) {
      oci[pos[p]] = ci[p];
      ov[pos[p]] = values[p];
    }
  });
  return out;
}

// The transpose of a CSR matrix (also the backend entry).
void transpose_sparse(SparseStorage& T, const SparseStorage& A);

}  // namespace geblas::detail::cuda::ops
