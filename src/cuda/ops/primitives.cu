// The device-wide building blocks of src/cuda/ops/: prefix sums and radix sorts (CUB,
// compiled once here for the few key/value types geblas needs), CSR assembly from
// row-major keys, and the dense <-> sparse conversions of vectors.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda/ops/common.cuh"

namespace geblas::detail::cuda::ops {

MaskView mask_view(const Mask& m) {
  MaskView v;
  v.structural = m.structural();
  v.complemented = m.complemented();
  switch (m.kind()) {
    case Mask::Kind::none: v.complemented = false; break;
    case Mask::Kind::sparse: {
      const SparseStorage& s = *m.sparse();
      v.kind = MaskView::csr;
      v.type = s.type;
      v.ro = s.row_offsets.as<Index>();
      v.ci = s.col_indices.as<ColIndex>();
      v.values = s.values.data();
      v.nvals = s.nvals;
      break;
    }
    case Mask::Kind::dense: {
      const DenseStorage& s = *m.dense();
      v.kind = MaskView::dense_matrix;
      v.type = s.type;
      v.values = s.data.data();
      v.ld = s.ld;
      v.row_major = s.layout == Layout::row_major;
      break;
    }
    case Mask::Kind::vector: {
      const VectorStorage& s = *m.vector();
      v.kind = s.dense ? MaskView::dense_vector : MaskView::sparse_vector;
      v.type = s.type;
      v.ci = s.indices.as<ColIndex>();
      v.values = s.values.data();
      v.nvals = s.nvals;
      break;
    }
  }
  return v;
}

void exclusive_scan(Index* data, Index n, cudaStream_t s) {
  if (n <= 0) return;
  std::size_t bytes = 0;
  GEBLAS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, data, data, n, s));
  int ordinal = 0;
  GEBLAS_CUDA_CHECK(cudaGetDevice(&ordinal));
  RawBuffer tmp(bytes, Device::cuda(ordinal));
  GEBLAS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, data, data, n, s));
}

Index read_index(const Index* p, cudaStream_t s) {
  Index v = 0;
  read_to_host(&v, p, sizeof(Index), s);
  return v;
}

Index counts_to_offsets(Index* counts, Index n, cudaStream_t s) {
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(counts + n, 0, sizeof(Index), s));
  exclusive_scan(counts, n + 1, s);
  return read_index(counts + n, s);
}

int bits_for(std::uint64_t bound) {
  int b = 1;
  while (b < 64 && (std::uint64_t{1} << b) < bound) ++b;
  return b;
}

SparseStorage new_sparse(Index m, Index n, Index nvals, TypeId type, Device d) {
  check_dimensions(m, n, "SparseMatrix");
  SparseStorage s;
  s.nrows = m;
  s.ncols = n;
  s.nvals = nvals;
  s.type = type;
  s.device = d;
  s.row_offsets = RawBuffer(static_cast<std::size_t>(m + 1) * sizeof(Index), d);
  s.col_indices = RawBuffer(static_cast<std::size_t>(nvals) * sizeof(ColIndex), d);
  s.values = RawBuffer(static_cast<std::size_t>(nvals) * size_of(type), d);
  return s;
}

VectorStorage new_sparse_vector(Index size, Index nvals, TypeId type, Device d) {
  VectorStorage v = make_sparse_vector(size, type, d);
  v.nvals = nvals;
  v.indices = RawBuffer(static_cast<std::size_t>(nvals) * sizeof(ColIndex), d);
  v.values = RawBuffer(static_cast<std::size_t>(nvals) * size_of(type), d);
  return v;
}

VectorResult dense_result(Index n, TypeId type, bool with_presence, const Ctx& c) {
  VectorResult r;
  r.t.size = n;
  r.t.nvals = n;
  r.t.dense = true;
  r.t.type = type;
  r.t.device = c.device;
  r.t.values = temp_bytes(n, size_of(type), c.device);
  if (with_presence) r.present = temp<std::uint8_t>(n, c.device);
  return r;
}

DenseStorage new_dense(Index m, Index n, Layout layout, TypeId type, Device d) {
  check_dimensions(m, n, "DenseMatrix");
  DenseStorage s;
  s.nrows = m;
  s.ncols = n;
  s.ld = layout == Layout::row_major ? n : m;
  s.layout = layout;
  s.type = type;
  s.device = d;
  // as make_dense: the product can wrap within the dimension limit (the buffer is not zeroed:
  // its users write every element)
  s.data = RawBuffer(checked_bytes(m, n, size_of(type), "DenseMatrix"), d);
  return s;
}

namespace {

template <class V>
void gather_values(void* out, const void* in, const Index* perm, Index K, cudaStream_t s) {
  V* o = static_cast<V*>(out);
  const V* x = static_cast<const V*>(in);
  for_each(K, s, [=] __device__(Index p) { o[p] = x[perm[p]]; });
}

template <class V>
void scatter_vector(void* values, std::uint8_t* present, const VectorStorage& v, cudaStream_t s) {
  V* out = static_cast<V*>(values);
  const V* in = v.values.as<V>();
  const ColIndex* idx = v.indices.as<ColIndex>();
  for_each(v.nvals, s, [=] __device__(Index k) {
    out[idx[k]] = in[k];
    present[idx[k]] = 1;
  });
}

template <class V>
void compact_values(void* out_values, ColIndex* out_idx, const void* values, const std::uint8_t* present,
                    const Index* pos, Index n, cudaStream_t s) {
  V* o = static_cast<V*>(out_values);
  const V* x = static_cast<const V*>(values);
  for_each(n, s, [=] __device__(Index i) {
    if (!present || present[i]) {
      o[pos[i]] = x[i];
      out_idx[pos[i]] = static_cast<ColIndex>(i);
    }
  });
}

}  // namespace

SparseStorage csr_from_keys(Index m, Index n, RawBuffer& keys, const RawBuffer& values, Index K, TypeId type,
                            const Ctx& c) {
  SparseStorage out = new_sparse(m, n, K, type, c.device);
  Index* ro = out.row_offsets.as<Index>();
  GEBLAS_CUDA_CHECK(cudaMemsetAsync(ro, 0, static_cast<std::size_t>(m + 1) * sizeof(Index), c.stream));
  if (K == 0) return out;
  const cudaStream_t s = c.stream;
  RawBuffer perm_in = temp<Index>(K, c.device), perm_out = temp<Index>(K, c.device);
  RawBuffer keys_out = temp<std::uint64_t>(K, c.device);
  Index* pin = perm_in.as<Index>();
  for_each(K, s, [=] __device__(Index p) { pin[p] = p; });
  const int end_bit = bits_for(static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n));
  std::size_t bytes = 0;
  GEBLAS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys.as<std::uint64_t>(),
                                                    keys_out.as<std::uint64_t>(), pin, perm_out.as<Index>(), K, 0,
                                                    end_bit, s));
  RawBuffer tmp(bytes, c.device);
  GEBLAS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, keys.as<std::uint64_t>(),
                                                    keys_out.as<std::uint64_t>(), pin, perm_out.as<Index>(), K, 0,
                                                    end_bit, s));
  const std::uint64_t* sk = keys_out.as<std::uint64_t>();
  const std::uint64_t nn = static_cast<std::uint64_t>(n);
  ColIndex* ci = out.col_indices.as<ColIndex>();
  for_each(K, s, [=] __device__(Index p) {
    const std::uint64_t key = sk[p];
    ci[p] = static_cast<ColIndex>(key % nn);
    atomicAdd(reinterpret_cast<unsigned long long*>(ro + key / nn), 1ull);
  });
  exclusive_scan(ro, m + 1, s);
  const Index* perm = perm_out.as<Index>();
  visit_type(type, [&]<class V>() { gather_values<V>(out.values.data(), values.data(), perm, K, s); });
  return out;
}

DenseVec densify(const VectorStorage& v, const Ctx& c) {
  DenseVec d;
  if (v.dense) {
    d.values = v.values.data();
    return d;
  }
  d.values_holder = temp_bytes(v.size, size_of(v.type), c.device);
  d.present_holder = temp<std::uint8_t>(v.size, c.device);
  if (v.size > 0) {
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(d.present_holder.data(), 0, d.present_holder.bytes(), c.stream));
    // values at absent positions are never read, but keep them defined for the sanitizer
    GEBLAS_CUDA_CHECK(cudaMemsetAsync(d.values_holder.data(), 0, d.values_holder.bytes(), c.stream));
  }
  visit_type(v.type, [&]<class V>() {
    scatter_vector<V>(d.values_holder.data(), d.present_holder.as<std::uint8_t>(), v, c.stream);
  });
  d.values = d.values_holder.data();
  d.present = d.present_holder.as<std::uint8_t>();
  return d;
}

DenseVec densify(const VectorResult& t, const Ctx& c) {
  if (!t.t.dense) return densify(t.t, c);
  DenseVec d;
  d.values = t.t.values.data();
  d.present = t.present.bytes() ? t.present.as<std::uint8_t>() : nullptr;
  return d;
}

VectorStorage compact_vector(Index size, const void* values, const std::uint8_t* present, TypeId type, const Ctx& c) {
  if (size == 0) return make_sparse_vector(size, type, c.device);
  const KeptPlaces places = kept_places(size, c, [=] __device__(Index i) { return !present || present[i]; });
  VectorStorage out = new_sparse_vector(size, places.count, type, c.device);
  ColIndex* oi = out.indices.as<ColIndex>();
  const Index* pos = places.pos();
  visit_type(type, [&]<class V>() { compact_values<V>(out.values.data(), oi, values, present, pos, size, c.stream); });
  return out;
}

}  // namespace geblas::detail::cuda::ops
