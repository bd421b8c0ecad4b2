// Fuzz target: the checks the Python module applies to incoming arrays
// (python/src/array_checks.hpp), without Python. The fuzzer describes arrays as a
// producer would (a DLPack tensor's dtype, device, ndim, shape, strides and byte offset;
// a NumPy array's dtype and byte strides) over memory the harness allocates to exactly
// the extent that shape and strides describe, and CSR / COO inputs for Matrix.from_csr
// and Matrix.from_coo. Every check must accept or throw a geblas::Error, and:
//  - an accepted view takes exactly prod(shape) x itemsize bytes (computed here in 128
//    bits), which lie inside the described memory: the harness reads every one of them,
//    so ASan reports a byte outside;
//  - an accepted CSR is valid by an independent check (offsets from 0, monotone, ending
//    at nvals; columns in range and increasing in each row) and holds the given arrays;
//  - an accepted COO input had every index in range, and the matrix holds each tuple
//    (summed duplicates exact: the values are small integers).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "array_checks.hpp"
#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "geblas/error.hpp"

using namespace geblas;
namespace checks = geblas::python::checks;

namespace {

// Memory a producer owns: `bytes` bytes, zero-filled, kept alive by the view's owner.
std::shared_ptr<std::vector<unsigned char>> memory(std::size_t bytes) {
  return std::make_shared<std::vector<unsigned char>>(bytes);
}

// Reads every byte of an accepted buffer (ASan checks each against its allocation).
unsigned touch(const void* p, std::size_t bytes) {
  unsigned sum = 0;
  const auto* b = static_cast<const volatile unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i) sum += b[i];
  return sum;
}

__int128 exact_bytes(const std::vector<std::int64_t>& shape, TypeId t) {
  __int128 n = static_cast<__int128>(size_of(t));
  for (auto s : shape) {
    if (s == 0) return 0;
    n *= s;  // |n| <= 2^64 before, so no overflow
    const __int128 big = static_cast<__int128>(1) << 64;
    if (n > big || n < -big) return n;  // far beyond anything accepted
  }
  return n;
}

// The described extent in elements: 1 + sum (shape - 1) x stride (saturated at 2^100),
// or -1 when a dimension is negative or one longer than 1 has a negative stride (the
// harness then allocates nothing to read).
__int128 extent(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides) {
  const __int128 cap = static_cast<__int128>(1) << 100;
  __int128 e = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] <= 0) return shape[d] == 0 ? 0 : -1;
    if (shape[d] == 1) continue;  // its stride moves nowhere
    if (strides[d] < 0) return -1;
    e += static_cast<__int128>(shape[d] - 1) * strides[d];  // each term below 2^126
    if (e > cap) e = cap;
  }
  return e;
}

// An accepted view's buffer: the byte count it claims is exact and within the memory the
// shape and strides describe (`described` bytes from the data pointer; -1 when they
// describe none), and every byte of it is read where the harness allocated that memory.
void check_accepted(const checks::ArrayView& v, const void* data, std::size_t bytes, __int128 described,
                    std::size_t allocated_from_data, const char* what) {
  const __int128 want = exact_bytes(v.shape, v.type);
  GEBLAS_FUZZ_CHECK(static_cast<__int128>(bytes) == want, "%s: accepted with %zu bytes, the shape takes %lld", what,
                    bytes, static_cast<long long>(want));
  GEBLAS_FUZZ_CHECK(bytes == 0 || data == v.data, "%s: the buffer is not the array's memory", what);
  GEBLAS_FUZZ_CHECK(bytes == 0 || static_cast<__int128>(bytes) <= described,
                    "%s: %zu bytes accepted over %lld bytes of described memory", what, bytes,
                    static_cast<long long>(described));
  if (v.device.is_cpu() && bytes <= allocated_from_data) (void)touch(data, bytes);
}

std::int64_t dimension(fuzz::Input& in) {
  switch (in.below(8)) {
    case 0: return in.take<std::int64_t>();  // anything, huge and negative included
    case 1: return -static_cast<std::int64_t>(in.below(3)) - 1;
    default: return static_cast<std::int64_t>(in.below(6));
  }
}

// A DLPack tensor or NumPy array from the input, then each way the module uses one.
void fuzz_view(fuzz::Input& in, bool numpy) {
  static const TypeId types[] = {TypeId::boolean, TypeId::int32, TypeId::int64, TypeId::float16,
                                 TypeId::float32, TypeId::float64, TypeId::bfloat16};
  const int ndim = in.below(10) == 0 ? static_cast<int>(in.take<std::int8_t>()) : static_cast<int>(in.below(4));
  const int kept = ndim < 0 ? 0 : std::min(ndim, 4);
  std::vector<std::int64_t> shape, strides;
  for (int d = 0; d < kept; ++d) shape.push_back(dimension(in));
  const bool null_strides = !numpy && in.flag();
  for (int d = 0; d < kept; ++d)
    strides.push_back(in.below(4) == 0 ? in.take<std::int64_t>() : static_cast<std::int64_t>(in.below(40)) - 8);
  const std::uint64_t offset = in.below(4) ? 0 : in.below(64);
  checks::ArrayView v;
  std::size_t item = 1;
  __int128 described = -1;
  try {
    if (numpy) {
      const char kind = "bifuc?"[in.below(6)];
      const std::int64_t itemsize = static_cast<std::int64_t>(in.below(10));
      const char order = in.below(8) == 0 ? '>' : '=';
      const TypeId t = checks::type_from_numpy(kind, itemsize, order, "fuzzed", "A");
      item = size_of(t);
      std::vector<std::int64_t> byte_strides, element_strides;
      for (std::size_t d = 0; d < strides.size(); ++d) {
        std::int64_t b = strides[d];
        if (in.flag() && __builtin_mul_overflow(strides[d], itemsize, &b)) b = strides[d];
        byte_strides.push_back(b);
        element_strides.push_back(b / itemsize);  // itemsize > 0: type_from_numpy accepted it
      }
      if (ndim != kept) return;  // NumPy always gives its ndim entries
      const __int128 e = extent(shape, element_strides);
      described = e >= 0 ? e * static_cast<__int128>(item) : -1;
      const std::size_t alloc = e >= 0 && e * 8 <= (1 << 20) ? static_cast<std::size_t>(e) * item : 0;
      auto mem = memory(alloc);
      v = checks::numpy_view(mem->data(), t, true, ndim, shape.data(), byte_strides.data(), itemsize, "A");
      v.owner = mem;
    } else {
      checks::DLTensor t{};
      t.dtype = in.below(4) == 0 ? checks::DLDataType{in.byte(), in.byte(), in.take<std::uint16_t>()}
                                 : [&] {
                                     const TypeId id = types[in.below(7)];
                                     const std::uint8_t code = id == TypeId::boolean   ? 6
                                                               : id == TypeId::bfloat16 ? 4
                                                               : (id == TypeId::int32 || id == TypeId::int64) ? 0
                                                                                                              : 2;
                                     return checks::DLDataType{code, static_cast<std::uint8_t>(size_of(id) * 8), 1};
                                   }();
      static const std::int32_t devices[] = {1, 1, 1, 2, 3, 13, -1};
      t.device = {devices[in.below(7)], in.below(4) == 0 ? in.take<std::int32_t>() : 0};
      t.ndim = ndim;
      // A tensor whose ndim exceeds what is given here gets no shape (it must be refused).
      t.shape = ndim == kept && !(ndim > 0 && in.below(16) == 0) ? shape.data() : nullptr;
      if (ndim > kept && ndim > 0) t.shape = nullptr;
      t.strides = null_strides ? nullptr : strides.data();
      if (null_strides) {
        // The compact strides, for the extent below (saturated: such a shape is refused).
        std::int64_t c = 1;
        for (int d = kept - 1; d >= 0; --d) {
          const auto k = static_cast<std::size_t>(d);
          strides[k] = c;
          if (shape[k] > 0 && __builtin_mul_overflow(c, shape[k], &c)) c = std::numeric_limits<std::int64_t>::max() / 4;
        }
      }
      const bool known_type = t.dtype.lanes == 1 && t.dtype.bits % 8 == 0 && t.dtype.bits > 0;
      item = known_type ? t.dtype.bits / 8 : 1;
      const __int128 e = extent(shape, strides);
      const bool null_data = in.below(16) == 0;
      // A tensor at address 0 describes no memory.
      described = e >= 0 && !null_data ? e * static_cast<__int128>(item) : -1;
      const std::size_t alloc = e >= 0 && e * 8 <= (1 << 20) ? static_cast<std::size_t>(e) * item : 0;
      auto mem = memory(null_data ? 0 : alloc + offset);
      t.data = null_data ? nullptr : mem->data();
      t.byte_offset = t.data ? offset : 0;
      v = checks::dlpack_view(t, mem, "A");
    }
  } catch (const Error&) {
    return;
  }
  const auto* base = static_cast<const unsigned char*>(std::static_pointer_cast<std::vector<unsigned char>>(v.owner)->data());
  const std::size_t total = std::static_pointer_cast<std::vector<unsigned char>>(v.owner)->size();
  const auto* start = static_cast<const unsigned char*>(v.data);
  const std::size_t from_data = (start >= base && start <= base + total) ? total - static_cast<std::size_t>(start - base) : 0;
  try {
    const auto s = checks::dense_from_view(v, "A");
    check_accepted(v, s.data.data(), s.data.bytes(), described, from_data, "dense_from_view");
    GEBLAS_FUZZ_CHECK(s.nrows == v.shape[0] && s.ncols == v.shape[1], "dense_from_view: shape changed");
  } catch (const Error&) {
  }
  try {
    const auto b = checks::buffer_from_view(v, "x");
    check_accepted(v, b.data(), b.bytes(), described, from_data, "buffer_from_view");
  } catch (const Error&) {
  }
  try {
    const auto u = checks::vector_from_view(v, "x");
    check_accepted(v, u.values.data(), u.values.bytes(), described, from_data, "vector_from_view");
  } catch (const Error&) {
  }
}

// A 1-D host array of `n` values of type t, from the input, as a view and its bytes.
struct Array1 {
  std::shared_ptr<std::vector<unsigned char>> mem;
  checks::ArrayView view;
};
Array1 array1(fuzz::Input& in, TypeId t, std::int64_t n, bool small_values) {
  Array1 a;
  a.mem = memory(static_cast<std::size_t>(n) * size_of(t));
  for (std::int64_t k = 0; k < n; ++k) {
    unsigned char* p = a.mem->data() + k * static_cast<std::int64_t>(size_of(t));
    if (t == TypeId::int64) {
      const std::int64_t x = in.below(6) == 0 ? in.take<std::int64_t>() : static_cast<std::int64_t>(in.below(8)) - 1;
      std::memcpy(p, &x, 8);
    } else if (t == TypeId::int32) {
      const std::int32_t x = in.below(6) == 0 ? in.take<std::int32_t>() : static_cast<std::int32_t>(in.below(8)) - 1;
      std::memcpy(p, &x, 4);
    } else if (t == TypeId::float64) {
      const double x = small_values ? static_cast<double>(in.below(16)) : in.take<double>();
      std::memcpy(p, &x, 8);
    } else {
      for (std::size_t b = 0; b < size_of(t); ++b) p[b] = in.byte();
    }
  }
  a.view.data = a.mem->data();
  a.view.type = t;
  a.view.device = Device::cpu();
  a.view.shape = {n};
  a.view.strides = {1};
  a.view.owner = a.mem;
  return a;
}

template <class I>
std::vector<std::int64_t> ints(const Array1& a) {
  std::vector<std::int64_t> r(static_cast<std::size_t>(a.view.shape[0]));
  for (std::size_t k = 0; k < r.size(); ++k) {
    I x;
    std::memcpy(&x, a.mem->data() + k * sizeof(I), sizeof(I));
    r[k] = x;
  }
  return r;
}
std::vector<std::int64_t> ints_of(const Array1& a) {
  return a.view.type == TypeId::int32 ? ints<std::int32_t>(a) : ints<std::int64_t>(a);
}

void fuzz_csr(fuzz::Input& in) {
  static const TypeId index_types[] = {TypeId::int32, TypeId::int64, TypeId::int64, TypeId::float32};
  const Index nrows = in.below(8) == 0 ? in.take<std::int32_t>() : static_cast<Index>(in.below(5));
  const Index ncols = in.below(8) == 0 ? in.take<std::int32_t>() : static_cast<Index>(in.below(5));
  const TypeId pt = index_types[in.below(4)], ct = index_types[in.below(4)];
  const std::int64_t np = in.below(8), nc = in.below(10);
  const std::int64_t nv = in.below(6) == 0 ? static_cast<std::int64_t>(in.below(10)) : nc;
  const bool validate = in.below(4) != 0, copy = in.flag();
  Array1 p = array1(in, pt, np, false), c = array1(in, ct, nc, false), v = array1(in, TypeId::float64, nv, false);
  detail::SparseStorage s;
  try {
    s = checks::csr_from_views(nrows, ncols, p.view, c.view, v.view, validate, copy);
  } catch (const Error&) {
    return;
  }
  // An accepted host CSR was validated (host arrays always are): check it independently.
  GEBLAS_FUZZ_CHECK(s.nrows == nrows && s.ncols == ncols, "from_csr: shape changed");
  const std::vector<std::int64_t> offsets = ints_of(p), cols = ints_of(c);
  GEBLAS_FUZZ_CHECK(static_cast<Index>(offsets.size()) == nrows + 1, "from_csr: %zu offsets for %lld rows accepted",
                    offsets.size(), static_cast<long long>(nrows));
  GEBLAS_FUZZ_CHECK(offsets[0] == 0 && offsets.back() == nc && nv == nc && s.nvals == nc,
                    "from_csr: offsets from %lld to %lld over %lld columns and %lld values accepted",
                    static_cast<long long>(offsets[0]), static_cast<long long>(offsets.back()),
                    static_cast<long long>(nc), static_cast<long long>(nv));
  for (Index i = 0; i < nrows; ++i) {
    GEBLAS_FUZZ_CHECK(offsets[i] <= offsets[i + 1], "from_csr: decreasing offsets accepted at row %lld",
                      static_cast<long long>(i));
    for (std::int64_t e = offsets[i]; e < offsets[i + 1]; ++e) {
      GEBLAS_FUZZ_CHECK(cols[e] >= 0 && cols[e] < ncols, "from_csr: column %lld accepted in %lld columns",
                        static_cast<long long>(cols[e]), static_cast<long long>(ncols));
      GEBLAS_FUZZ_CHECK(e == offsets[i] || cols[e - 1] < cols[e], "from_csr: unsorted or repeated columns accepted");
    }
  }
  std::vector<std::int64_t> stored_offsets(offsets.size());
  std::memcpy(stored_offsets.data(), s.row_offsets.data(), offsets.size() * 8);
  GEBLAS_FUZZ_CHECK(stored_offsets == offsets, "from_csr: the stored offsets differ from the given ones");
  for (std::int64_t e = 0; e < nc; ++e) {
    std::int32_t col;
    std::memcpy(&col, static_cast<const unsigned char*>(s.col_indices.data()) + e * 4, 4);
    GEBLAS_FUZZ_CHECK(col == cols[e], "from_csr: stored column %d, given %lld", col, static_cast<long long>(cols[e]));
  }
  GEBLAS_FUZZ_CHECK(nv == 0 || std::memcmp(s.values.data(), v.mem->data(), static_cast<std::size_t>(nv) * 8) == 0,
                    "from_csr: the stored values differ from the given ones");
}

// A COO dimension: small, negative, or large up to 2^16 (CSR row offsets take memory in
// proportion to the rows, by design: 2^31 rows would be 16 GiB and minutes per input).
Index coo_dimension(fuzz::Input& in) {
  if (in.below(8) != 0) return static_cast<Index>(in.below(5));
  const std::int32_t x = in.take<std::int32_t>();
  return x < 0 ? x : x % 65536;
}

void fuzz_coo(fuzz::Input& in) {
  const Index nrows = coo_dimension(in);
  const Index ncols = coo_dimension(in);
  const TypeId it = in.below(6) == 0 ? TypeId::int32 : TypeId::int64;
  const std::int64_t n = in.below(10);
  const std::int64_t nc = in.below(6) == 0 ? static_cast<std::int64_t>(in.below(10)) : n;
  const bool sum = in.flag();
  Array1 r = array1(in, it, n, false), c = array1(in, TypeId::int64, nc, false),
         v = array1(in, TypeId::float64, n, true);
  Duplicates dup;
  if (sum) dup = binop::plus<double>{};
  detail::SparseStorage s;
  try {
    s = checks::coo_from_views(nrows, ncols, r.view, c.view, v.view, dup, Device::cpu());
  } catch (const Error&) {
    return;
  }
  const std::vector<std::int64_t> rows = ints_of(r), cols = ints_of(c);
  std::map<std::pair<std::int64_t, std::int64_t>, double> want;
  for (std::int64_t k = 0; k < n; ++k) {
    GEBLAS_FUZZ_CHECK(rows[k] >= 0 && rows[k] < nrows && cols[k] >= 0 && cols[k] < ncols,
                      "from_coo: tuple (%lld, %lld) accepted in %lld x %lld", static_cast<long long>(rows[k]),
                      static_cast<long long>(cols[k]), static_cast<long long>(nrows), static_cast<long long>(ncols));
    double x;
    std::memcpy(&x, v.mem->data() + k * 8, 8);
    const auto [it2, fresh] = want.emplace(std::pair{rows[k], cols[k]}, x);
    GEBLAS_FUZZ_CHECK(fresh || sum, "from_coo: a repeated tuple accepted without a duplicate rule");
    if (!fresh) it2->second += x;
  }
  GEBLAS_FUZZ_CHECK(s.nvals == static_cast<Index>(want.size()), "from_coo: %lld entries for %zu distinct tuples",
                    static_cast<long long>(s.nvals), want.size());
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(nrows) + 1);
  std::memcpy(offsets.data(), s.row_offsets.data(), offsets.size() * 8);
  auto expected = want.begin();
  for (Index i = 0; i < nrows; ++i)
    for (std::int64_t e = offsets[i]; e < offsets[i + 1]; ++e, ++expected) {
      std::int32_t col;
      double x;
      std::memcpy(&col, static_cast<const unsigned char*>(s.col_indices.data()) + e * 4, 4);
      std::memcpy(&x, static_cast<const unsigned char*>(s.values.data()) + e * 8, 8);
      const bool same = expected != want.end() && expected->first.first == i && expected->first.second == col &&
                        expected->second == x;
      GEBLAS_FUZZ_CHECK(same,
                        "from_coo: entry (%lld, %d) = %g is not the tuples' one", static_cast<long long>(i), col, x);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  switch (in.byte() % 4) {
    case 0: fuzz_view(in, false); break;
    case 1: fuzz_view(in, true); break;
    case 2: fuzz_csr(in); break;
    default: fuzz_coo(in); break;
  }
  return 0;
}
