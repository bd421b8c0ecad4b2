// The array checks of the Python module (array_checks.hpp), without Python.
#include "array_checks.hpp"

#include <algorithm>
#include <limits>

#include "geblas/error.hpp"

namespace geblas::python::checks {
namespace {

// Sizes up to 2^62 bytes: far beyond any memory, and small enough that byte offsets,
// element counts and their sums stay far from the limits of std::int64_t.
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 62;

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string type_name(TypeId t) { return std::string(to_string(t)); }

void check_shape(const std::vector<std::int64_t>& shape, const std::string& what) {
  for (std::int64_t s : shape)
    if (s < 0) throw InvalidValue("geblas: " + what + " has a negative dimension in shape " + shape_string(shape));
}

}  // namespace

TypeId type_from_numpy(char kind, std::int64_t itemsize, char byteorder, const std::string& dtype_name,
                       const std::string& what) {
  if (byteorder == '>') throw DomainMismatch("geblas: " + what + " has big-endian values; convert it to native order");
  if (kind == 'b' && itemsize == 1) return TypeId::boolean;
  if (kind == 'i' && itemsize == 4) return TypeId::int32;
  if (kind == 'i' && itemsize == 8) return TypeId::int64;
  if (kind == 'f' && itemsize == 2) return TypeId::float16;
  if (kind == 'f' && itemsize == 4) return TypeId::float32;
  if (kind == 'f' && itemsize == 8) return TypeId::float64;
  throw DomainMismatch("geblas: " + what + " has dtype " + dtype_name +
                       ", which geblas does not store (bool, int32, int64, float16, float32, float64; "
                       "bfloat16 through DLPack)");
}

DLDataType dlpack_dtype(TypeId t) {
  switch (t) {
    case TypeId::boolean: return {6, 8, 1};
    case TypeId::int32: return {0, 32, 1};
    case TypeId::int64: return {0, 64, 1};
    case TypeId::float16: return {2, 16, 1};
    case TypeId::float32: return {2, 32, 1};
    case TypeId::float64: return {2, 64, 1};
    case TypeId::bfloat16: return {4, 16, 1};
  }
  throw InvalidValue("geblas: internal: no DLPack dtype for type id " + std::to_string(static_cast<int>(t)));
}

// The inverse of dlpack_dtype, so that the codes are written once.
TypeId type_from_dlpack(DLDataType t, const std::string& what) {
  for (int k = 0; k < stored_type_count; ++k) {
    const DLDataType d = dlpack_dtype(stored_type(k));
    if (t.code == d.code && t.bits == d.bits && t.lanes == d.lanes) return stored_type(k);
  }
  throw DomainMismatch("geblas: " + what + " has DLPack dtype (code " + std::to_string(t.code) + ", " +
                       std::to_string(t.bits) + " bits, " + std::to_string(t.lanes) +
                       " lanes), which geblas does not store (" + stored_type_names() + ")");
}

std::string stored_type_names() {
  std::string names;
  for (int k = 0; k < stored_type_count; ++k) names += (k ? ", " : "") + type_name(stored_type(k));
  return names;
}

std::size_t byte_count(const ArrayView& v, const std::string& what) {
  check_shape(v.shape, what);
  std::uint64_t bytes = size_of(v.type);
  for (std::int64_t s : v.shape) {
    if (s == 0) return 0;
    if (bytes > kMaxBytes / static_cast<std::uint64_t>(s))
      throw InvalidValue("geblas: " + what + " of shape " + shape_string(v.shape) + " and dtype " + type_name(v.type) +
                         " would take more than 2^62 bytes");
    bytes *= static_cast<std::uint64_t>(s);
  }
  return static_cast<std::size_t>(bytes);
}

ArrayView numpy_view(void* data, TypeId type, bool writable, int ndim, const std::int64_t* shape,
                     const std::int64_t* byte_strides, std::int64_t itemsize, const std::string& what) {
  if (ndim < 0 || ndim > max_ndim)
    throw InvalidValue("geblas: " + what + " has " + std::to_string(ndim) + " dimensions");
  ArrayView v;
  v.type = type;
  v.device = Device::cpu();
  v.data = data;
  v.writable = writable;
  for (int d = 0; d < ndim; ++d) {
    v.shape.push_back(shape[d]);
    // A stride that is no multiple of the element (a view into a record array) cannot be
    // expressed in elements; such an array is not contiguous anyway.
    if (itemsize <= 0 || byte_strides[d] % itemsize != 0)
      throw InvalidValue("geblas: " + what + " has a stride of " + std::to_string(byte_strides[d]) +
                         " bytes, not a multiple of its element size; pass a contiguous array");
    v.strides.push_back(byte_strides[d] / itemsize);
  }
  (void)byte_count(v, what);
  return v;
}

ArrayView dlpack_view(const DLTensor& t, std::shared_ptr<void> owner, const std::string& what) {
  ArrayView v;
  v.owner = std::move(owner);
  switch (t.device.device_type) {
    case 1: v.device = Device::cpu(); break;
    case 2:
      if (t.device.device_id < 0)
        throw InvalidValue("geblas: " + what + " names CUDA device " + std::to_string(t.device.device_id));
      v.device = Device::cuda(t.device.device_id);
      break;
    default:
      throw InvalidValue("geblas: " + what + " lives on DLPack device type " + std::to_string(t.device.device_type) +
                         "; geblas takes CPU (1) and CUDA (2) memory");
  }
  v.type = type_from_dlpack(t.dtype, what);
  if (t.ndim < 0 || t.ndim > max_ndim)
    throw InvalidValue("geblas: " + what + " is a DLPack tensor with " + std::to_string(t.ndim) + " dimensions");
  if (t.ndim > 0 && !t.shape) throw InvalidValue("geblas: " + what + " is a DLPack tensor without a shape");
  v.shape.assign(t.shape, t.shape + t.ndim);
  const std::size_t bytes = byte_count(v, what);  // also: no negative dimension
  if (bytes > 0 && !t.data) throw InvalidValue("geblas: " + what + " is a non-empty DLPack tensor at address 0");
  v.data = static_cast<char*>(t.data) + t.byte_offset;
  // Compact strides; an empty array may have huge other dimensions, whose product then
  // saturates (no element is ever addressed through it).
  std::int64_t compact = 1;
  v.strides.assign(static_cast<std::size_t>(t.ndim), 0);
  for (int d = t.ndim - 1; d >= 0; --d) {
    v.strides[static_cast<std::size_t>(d)] = t.strides ? t.strides[d] : compact;
    if (__builtin_mul_overflow(compact, std::max<std::int64_t>(t.shape[d], 1), &compact))
      compact = std::numeric_limits<std::int64_t>::max();
  }
  return v;
}

bool contiguous(const ArrayView& v, bool row_major) {
  std::int64_t expected = 1;
  const auto n = static_cast<int>(v.shape.size());
  if (v.strides.size() != v.shape.size()) return false;
  for (int k = 0; k < n; ++k) {
    const int d = row_major ? n - 1 - k : k;
    const auto size = v.shape[static_cast<std::size_t>(d)];
    if (size == 0) return true;
    if (size != 1 && v.strides[static_cast<std::size_t>(d)] != expected) return false;
    if (__builtin_mul_overflow(expected, size, &expected)) return false;
  }
  return true;
}

DenseStorage dense_from_view(const ArrayView& v, const std::string& what) {
  if (v.shape.size() != 2)
    throw DimensionMismatch("geblas: " + what + " must be 2-dimensional, has shape " + shape_string(v.shape));
  const std::size_t bytes = byte_count(v, what);
  const bool row = contiguous(v, true), col = !row && contiguous(v, false);
  if (!row && !col)
    throw InvalidValue("geblas: " + what + " of shape " + shape_string(v.shape) + " is not contiguous (strides " +
                       shape_string(v.strides) +
                       " elements); geblas uses arrays in place and makes no hidden copy: pass a C- or "
                       "Fortran-contiguous array (numpy.ascontiguousarray, tensor.contiguous())");
  lib::check_dimensions(v.shape[0], v.shape[1], what.c_str());
  DenseStorage s;
  s.nrows = v.shape[0];
  s.ncols = v.shape[1];
  s.layout = row ? Layout::row_major : Layout::col_major;
  s.ld = row ? s.ncols : s.nrows;
  s.type = v.type;
  s.device = v.device;
  s.data = RawBuffer::borrow(v.data, bytes, v.device, v.owner);
  return s;
}

RawBuffer buffer_from_view(const ArrayView& v, const std::string& what) {
  if (v.shape.size() != 1)
    throw DimensionMismatch("geblas: " + what + " must be 1-dimensional, has shape " + shape_string(v.shape));
  const std::size_t bytes = byte_count(v, what);
  if (!contiguous(v, true))
    throw InvalidValue("geblas: " + what + " is not contiguous (stride " + std::to_string(v.strides[0]) +
                       "); geblas uses arrays in place and makes no hidden copy: pass a contiguous array");
  return RawBuffer::borrow(v.data, bytes, v.device, v.owner);
}

VectorStorage vector_from_view(const ArrayView& v, const std::string& what) {
  VectorStorage s;
  s.values = buffer_from_view(v, what);
  lib::check_dimensions(v.shape[0], 1, what.c_str());
  s.size = s.nvals = v.shape[0];
  s.dense = true;
  s.type = v.type;
  s.device = v.device;
  return s;
}

SparseStorage csr_from_views(Index nrows, Index ncols, const ArrayView& ro, const ArrayView& ci, const ArrayView& va,
                             bool validate, bool copy) {
  const Device dev = va.device;
  if (ro.device != dev || ci.device != dev)
    throw DeviceMismatch("Matrix.from_csr: indptr is on " + ro.device.str() + ", indices on " + ci.device.str() +
                         ", values on " + dev.str() + "; all three must be on one device");
  if (ro.type != TypeId::int32 && ro.type != TypeId::int64)
    throw DomainMismatch("Matrix.from_csr: indptr must be int32 or int64, is " + type_name(ro.type));
  if (ci.type != TypeId::int32 && ci.type != TypeId::int64)
    throw DomainMismatch("Matrix.from_csr: indices must be int32 or int64, is " + type_name(ci.type));
  lib::check_dimensions(nrows, ncols, "Matrix.from_csr");
  VectorStorage rov = vector_from_view(ro, "indptr"), civ = vector_from_view(ci, "indices");
  if (rov.size != nrows + 1)
    throw DimensionMismatch("Matrix.from_csr: indptr has " + std::to_string(rov.size) + " entries; " +
                            std::to_string(nrows) + " rows need " + std::to_string(nrows + 1));
  RawBuffer vbuf = buffer_from_view(va, "values");
  // Column indices are 32-bit in geblas: wider ones are checked before narrowing, so
  // that an index beyond int32 is an error naming it, never a wrapped value.
  if (civ.type == TypeId::int64) {
    if (civ.size > 0) {
      std::int64_t lo = 0, hi = 0;
      lib::reduce_scalar(&lo, civ, MonoidId::min);
      lib::reduce_scalar(&hi, civ, MonoidId::max);
      if (lo < 0) throw InvalidIndex("Matrix.from_csr: a column index is " + std::to_string(lo) + " (negative)");
      if (hi > std::numeric_limits<std::int32_t>::max())
        throw InvalidIndex("Matrix.from_csr: column index " + std::to_string(hi) +
                           " does not fit int32 (geblas stores 32-bit column indices; dimensions are below 2^31)");
    }
    civ = lib::convert(civ, TypeId::int32);
  }
  if (rov.type == TypeId::int32) rov = lib::convert(rov, TypeId::int64);
  if (civ.size != va.shape[0])
    throw DimensionMismatch("Matrix.from_csr: " + std::to_string(civ.size) + " column indices but " +
                            std::to_string(va.shape[0]) + " values");
  SparseStorage s;
  if (dev.is_cpu() || validate) {
    // adopt_csr validates on the host; for device arrays it checks host copies of the
    // index arrays and the matrix then uses the device arrays.
    RawBuffer ro_h = dev.is_cpu() ? std::move(rov.values) : rov.values.to(Device::cpu());
    RawBuffer ci_h = dev.is_cpu() ? std::move(civ.values) : civ.values.to(Device::cpu());
    // adopt_csr checks only that the values match the columns in length: for device
    // values it gets a host stand-in of the right byte count, nothing is copied.
    RawBuffer v_h = dev.is_cpu() ? std::move(vbuf) : RawBuffer::borrow(nullptr, vbuf.bytes(), Device::cpu(), va.owner);
    s = lib::adopt_csr(nrows, ncols, std::move(ro_h), std::move(ci_h), std::move(v_h), va.type, Device::cpu());
    if (!dev.is_cpu()) {
      s.device = dev;
      s.row_offsets = std::move(rov.values);
      s.col_indices = std::move(civ.values);
      s.values = std::move(vbuf);
    }
  } else {
    s.nrows = nrows;
    s.ncols = ncols;
    s.nvals = civ.size;
    s.type = va.type;
    s.device = dev;
    s.row_offsets = std::move(rov.values);
    s.col_indices = std::move(civ.values);
    s.values = std::move(vbuf);
  }
  if (copy) s = SparseStorage(s);
  return s;
}

SparseStorage coo_from_views(Index nrows, Index ncols, const ArrayView& r, const ArrayView& c, const ArrayView& v,
                             Duplicates dup, Device device) {
  for (const ArrayView* a : {&r, &c, &v})
    if (!a->device.is_cpu()) throw DeviceMismatch("Matrix.from_coo: the tuples must be host arrays");
  if (r.type != TypeId::int64 || c.type != TypeId::int64)
    throw DomainMismatch("Matrix.from_coo: rows and cols must be int64");
  RawBuffer rb = buffer_from_view(r, "rows"), cb = buffer_from_view(c, "cols"), vb = buffer_from_view(v, "values");
  const Index count = r.shape[0];
  if (c.shape[0] != count || v.shape[0] != count)
    throw DimensionMismatch("Matrix.from_coo: rows, cols and values differ in length (" + std::to_string(count) + ", " +
                            std::to_string(c.shape[0]) + ", " + std::to_string(v.shape[0]) + ")");
  return lib::build_csr(nrows, ncols, rb.as<Index>(), cb.as<Index>(), vb.data(), count, v.type, dup, device);
}

}  // namespace geblas::python::checks
