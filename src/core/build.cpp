// Building CSR matrices and sparse vectors from tuples, adopting caller CSR arrays after
// validation (on the host, the result moved to the requested device at the end), and
// converting vectors between dense and sparse storage (on the vector's device).
#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "geblas/detail/value_convert.hpp"
#include "geblas/error.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas::detail {
namespace {

std::string tuple_text(Index k, Index i, Index j) {
  return "tuple " + std::to_string(k) + " (" + std::to_string(i) + ", " + std::to_string(j) + ")";
}

// Sorts entry positions by (key, input order) and combines equal keys with `dup`.
// `order` receives, for each output entry, the input positions in input order.
template <class T>
void combine_sorted(const std::vector<Index>& order, const std::vector<Index>& keys_of_order,
                    const T* values, Duplicates dup, std::vector<Index>& out_keys, std::vector<T>& out_values,
                    const std::function<std::string(Index)>& describe) {
  out_keys.clear();
  out_values.clear();
  out_keys.reserve(order.size());
  out_values.reserve(order.size());
  for (std::size_t p = 0; p < order.size(); ++p) {
    const T v = values[order[p]];
    if (!out_keys.empty() && out_keys.back() == keys_of_order[p]) {
      if (!dup.op) throw InvalidValue("duplicate entry at " + describe(order[p]) + " and no duplicate operator given");
      if constexpr (!std::is_same_v<T, std::uint16_t>)  // 16-bit bits are only moved, never combined
        out_values.back() = visit_binary_op<T>(*dup.op, [&]<class Op>() { return Op::apply(out_values.back(), v); });
    } else {
      out_keys.push_back(keys_of_order[p]);
      out_values.push_back(v);
    }
  }
}

// The combined values (host buffer of `type`) and their keys. 16-bit values without a
// duplicate operator move as plain bits; with one they are combined in float and
// rounded once per output entry, so that operators need no 16-bit instantiation.
RawBuffer combined_values(const std::vector<Index>& order, const std::vector<Index>& keys, const void* values,
                          TypeId type, Duplicates dup, std::vector<Index>& out_keys,
                          const std::function<std::string(Index)>& describe) {
  RawBuffer out;
  auto store = [&]<class T>(const std::vector<T>& v) {
    out = RawBuffer(v.size() * sizeof(T), Device::cpu());
    std::copy(v.begin(), v.end(), out.as<T>());
  };
  if (is_16bit_float(type) && !dup.op) {
    std::vector<std::uint16_t> v;
    combine_sorted<std::uint16_t>(order, keys, static_cast<const std::uint16_t*>(values), dup, out_keys, v, describe);
    store(v);
  } else if (is_16bit_float(type)) {
    visit_storage_type(type, [&]<class H>() {
      if constexpr (is_16bit_v<H>) {
        const H* in = static_cast<const H*>(values);
        std::vector<float> wide(order.size());  // indexed by input position, as `values`
        for (std::size_t k = 0; k < wide.size(); ++k) wide[k] = static_cast<float>(in[k]);
        std::vector<float> v;
        combine_sorted<float>(order, keys, wide.data(), dup, out_keys, v, describe);
        std::vector<H> narrow(v.size());
        for (std::size_t p = 0; p < v.size(); ++p) narrow[p] = H(v[p]);
        store(narrow);
      }
    });
  } else {
    visit_type(type, [&]<class T>() {
      std::vector<T> v;
      combine_sorted<T>(order, keys, static_cast<const T*>(values), dup, out_keys, v, describe);
      store(v);
    });
  }
  return out;
}

}  // namespace

SparseStorage build_csr(Index nrows, Index ncols, const Index* rows, const Index* cols, const void* values,
                        Index count, TypeId type, Duplicates dup, Device device) {
  check_dimensions(nrows, ncols, "SparseMatrix::from_tuples");
  if (count < 0) throw InvalidValue("SparseMatrix::from_tuples: negative tuple count");
  for (Index k = 0; k < count; ++k) {
    if (rows[k] < 0 || rows[k] >= nrows || cols[k] < 0 || cols[k] >= ncols)
      throw InvalidIndex("SparseMatrix::from_tuples: " + tuple_text(k, rows[k], cols[k]) + " outside " +
                         std::to_string(nrows) + " x " + std::to_string(ncols));
  }
  // Stable counting sort by row, then a stable sort by column inside each row, so that
  // duplicates meet in input order.
  std::vector<Index> offsets(static_cast<std::size_t>(nrows) + 1, 0);
  for (Index k = 0; k < count; ++k) ++offsets[static_cast<std::size_t>(rows[k]) + 1];
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  std::vector<Index> order(static_cast<std::size_t>(count));
  {
    std::vector<Index> next(offsets.begin(), offsets.end() - 1);
    for (Index k = 0; k < count; ++k) order[static_cast<std::size_t>(next[static_cast<std::size_t>(rows[k])]++)] = k;
  }
  for (Index i = 0; i < nrows; ++i)
    std::stable_sort(order.begin() + offsets[i], order.begin() + offsets[i + 1],
                     [&](Index a, Index b) { return cols[a] < cols[b]; });

  SparseStorage out = make_sparse(nrows, ncols, type, Device::cpu());
  {
    std::vector<Index> keys(order.size());
    for (std::size_t p = 0; p < order.size(); ++p) keys[p] = rows[order[p]] * ncols + cols[order[p]];
    std::vector<Index> out_keys;
    out.values = combined_values(order, keys, values, type, dup, out_keys,
                                 [&](Index k) { return tuple_text(k, rows[k], cols[k]); });
    out.nvals = static_cast<Index>(out_keys.size());
    Index* ro = out.row_offsets.as<Index>();
    out.col_indices = RawBuffer(out_keys.size() * sizeof(ColIndex), Device::cpu());
    std::fill(ro, ro + nrows + 1, Index{0});
    for (std::size_t p = 0; p < out_keys.size(); ++p) {
      const Index i = ncols ? out_keys[p] / ncols : 0;
      ++ro[i + 1];
      out.col_indices.as<ColIndex>()[p] = static_cast<ColIndex>(ncols ? out_keys[p] % ncols : 0);
    }
    std::partial_sum(ro, ro + nrows + 1, ro);
  }
  return device.is_cpu() ? out : to_device(out, device);
}

SparseStorage adopt_csr(Index nrows, Index ncols, RawBuffer row_offsets, RawBuffer col_indices,
                        RawBuffer values, TypeId type, Device device) {
  check_dimensions(nrows, ncols, "SparseMatrix::from_csr");
  const char* where = "SparseMatrix::from_csr: ";
  if (row_offsets.bytes() != static_cast<std::size_t>(nrows + 1) * sizeof(Index))
    throw InvalidObject(std::string(where) + "row_offsets must hold nrows + 1 = " + std::to_string(nrows + 1) +
                        " entries, has " + std::to_string(row_offsets.bytes() / sizeof(Index)));
  const Index nvals = static_cast<Index>(col_indices.bytes() / sizeof(ColIndex));
  if (values.bytes() != static_cast<std::size_t>(nvals) * size_of(type))
    throw InvalidObject(std::string(where) + "values and col_indices differ in length");
  const Index* ro = row_offsets.as<Index>();
  const ColIndex* ci = col_indices.as<ColIndex>();
  if (ro[0] != 0) throw InvalidObject(std::string(where) + "row_offsets[0] is " + std::to_string(ro[0]) + ", not 0");
  if (ro[nrows] != nvals)
    throw InvalidObject(std::string(where) + "row_offsets[nrows] is " + std::to_string(ro[nrows]) + " but there are " +
                        std::to_string(nvals) + " entries");
  // All offsets first: a row that ends past nvals (offsets that rise above nvals and
  // come back down) must be caught before its columns are read.
  for (Index i = 0; i < nrows; ++i)
    if (ro[i + 1] < ro[i] || ro[i + 1] > nvals)
      throw InvalidObject(std::string(where) + "row_offsets " + (ro[i + 1] < ro[i] ? "decrease" : "pass nvals") +
                          " at row " + std::to_string(i));
  for (Index i = 0; i < nrows; ++i) {
    for (Index k = ro[i]; k < ro[i + 1]; ++k) {
      if (ci[k] < 0 || ci[k] >= ncols)
        throw InvalidIndex(std::string(where) + "column " + std::to_string(ci[k]) + " of row " + std::to_string(i) +
                           " outside [0, " + std::to_string(ncols) + ")");
      if (k > ro[i] && ci[k] <= ci[k - 1])
        throw InvalidObject(std::string(where) + "columns of row " + std::to_string(i) +
                            " are not sorted and unique at position " + std::to_string(k));
    }
  }
  SparseStorage s;
  s.nrows = nrows;
  s.ncols = ncols;
  s.nvals = nvals;
  s.type = type;
  s.device = row_offsets.device();
  s.row_offsets = std::move(row_offsets);
  s.col_indices = std::move(col_indices);
  s.values = std::move(values);
  return s.device == device ? std::move(s) : to_device(s, device);
}

VectorStorage build_sparse_vector(Index size, const Index* indices, const void* values, Index count, TypeId type,
                                  Duplicates dup, Device device) {
  check_dimensions(size, 1, "Vector::from_tuples");
  for (Index k = 0; k < count; ++k)
    if (indices[k] < 0 || indices[k] >= size)
      throw InvalidIndex("Vector::from_tuples: index " + std::to_string(indices[k]) + " (tuple " + std::to_string(k) +
                         ") outside [0, " + std::to_string(size) + ")");
  std::vector<Index> order(static_cast<std::size_t>(count));
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return indices[a] < indices[b]; });
  VectorStorage out = make_sparse_vector(size, type, Device::cpu());
  {
    std::vector<Index> keys(order.size());
    for (std::size_t p = 0; p < order.size(); ++p) keys[p] = indices[order[p]];
    std::vector<Index> out_keys;
    out.values = combined_values(
        order, keys, values, type, dup, out_keys,
        [&](Index k) { return "index " + std::to_string(indices[k]) + " (tuple " + std::to_string(k) + ")"; });
    out.nvals = static_cast<Index>(out_keys.size());
    out.indices = RawBuffer(out_keys.size() * sizeof(ColIndex), Device::cpu());
    for (std::size_t p = 0; p < out_keys.size(); ++p) out.indices.as<ColIndex>()[p] = static_cast<ColIndex>(out_keys[p]);
  }
  return device.is_cpu() ? out : to_device(out, device);
}

namespace {
// 16-bit values are storage only: no backend entry computes on them, so their
// conversions between dense and sparse go through the host.
bool computable(TypeId t) { return t != TypeId::float16 && t != TypeId::bfloat16; }
}  // namespace

// Both conversions run on the vector's device through the write-back entry (a dense w
// takes `fill` where t is absent; a sparse w receives every present entry), so a vector
// on a GPU never comes through the host.
VectorStorage to_dense_storage(const VectorStorage& v, const void* fill) {
  if (v.dense) return v;
  if (computable(v.type)) {
    VectorStorage out = make_dense_vector(v.size, v.type, v.device);
    VectorResult t{v, {}};
    ScalarBytes identity;
    std::memcpy(identity.data(), fill, size_of(v.type));
    required(backend_for(v.device).write_vector, "densify", v.device)(out, t, Options{}, identity);
    return out;
  }
  const VectorStorage h = v.device.is_cpu() ? VectorStorage{} : to_device(v, Device::cpu());
  const VectorStorage& src = v.device.is_cpu() ? v : h;
  VectorStorage out = make_dense_vector(v.size, v.type, Device::cpu());
  visit_storage_type(v.type, [&]<class T>() {
    T* o = out.values.as<T>();
    std::fill(o, o + v.size, *static_cast<const T*>(fill));
    for (Index k = 0; k < src.nvals; ++k) o[src.indices.as<ColIndex>()[k]] = src.values.as<T>()[k];
  });
  return v.device.is_cpu() ? out : to_device(out, v.device);
}

VectorStorage to_sparse_storage(const VectorStorage& v) {
  if (!v.dense) return v;
  if (computable(v.type)) {
    VectorStorage out = make_sparse_vector(v.size, v.type, v.device);
    VectorResult t{v, {}};  // dense with no presence bytes: every entry present
    required(backend_for(v.device).write_vector, "sparsify", v.device)(out, t, Options{}, ScalarBytes{});
    return out;
  }
  VectorStorage out = make_sparse_vector(v.size, v.type, Device::cpu());
  out.nvals = v.size;
  out.indices = RawBuffer(static_cast<std::size_t>(v.size) * sizeof(ColIndex), Device::cpu());
  std::iota(out.indices.as<ColIndex>(), out.indices.as<ColIndex>() + v.size, ColIndex{0});
  out.values = v.values.to(Device::cpu());
  return v.device.is_cpu() ? out : to_device(out, v.device);
}

}  // namespace geblas::detail
