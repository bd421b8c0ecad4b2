// Plain typed views (pointers and sizes) over storage: what backends and kernels
// operate on. They never own memory and never refer to the public classes.
#pragma once

#include "geblas/detail/storage.hpp"

namespace geblas::detail {

template <class T>
struct CsrView {
  Index nrows = 0;
  Index ncols = 0;
  Index nvals = 0;
  const Index* row_offsets = nullptr;
  const ColIndex* col_indices = nullptr;
  const T* values = nullptr;
};

template <class T>
struct DenseView {
  Index nrows = 0;
  Index ncols = 0;
  Index ld = 0;
  Layout layout = Layout::row_major;
  T* data = nullptr;
  GEBLAS_HD T& operator()(Index i, Index j) const {
    return layout == Layout::row_major ? data[i * ld + j] : data[j * ld + i];
  }
};

template <class T>
struct VectorView {
  Index size = 0;
  Index nvals = 0;
  bool dense = false;
  const ColIndex* indices = nullptr;  // sparse storage only
  T* values = nullptr;
};

template <class T>
CsrView<T> csr_view(const SparseStorage& s) {
  return {s.nrows, s.ncols, s.nvals, s.row_offsets.as<Index>(), s.col_indices.as<ColIndex>(),
          s.values.as<T>()};
}
template <class T>
DenseView<T> dense_view(const DenseStorage& s) {
  return {s.nrows, s.ncols, s.ld, s.layout, const_cast<T*>(s.data.as<T>())};
}
template <class T>
VectorView<T> vector_view(const VectorStorage& s) {
  return {s.size, s.nvals, s.dense, s.indices.as<ColIndex>(), const_cast<T*>(s.values.as<T>())};
}

}  // namespace geblas::detail
