// Host-side graph preparation shared by the algorithms: argument checks, and the
// matrices an algorithm iterates with, built once per call from A's CSR arrays (the
// transition matrix of PageRank, the symmetrized pattern of components and triangles).
// This is set-up, O(nnz) once; the iterations themselves are geblas operations on A's
// device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/checks.hpp"
#include "geblas/algorithms/common.hpp"
#include "geblas/error.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas::algo::detail {

// A CSR structure (and optionally values) on the host.
template <class T>
struct HostCsr {
  Index n = 0;
  std::vector<Index> offsets;
  std::vector<ColIndex> cols;
  std::vector<T> values;  // empty for a pattern
  Index nvals() const { return static_cast<Index>(cols.size()); }
};

template <class T>
HostCsr<T> host_csr(const SparseMatrix<T>& A, bool with_values) {
  HostCsr<T> h;
  h.n = A.nrows();
  h.offsets = A.row_offsets();
  h.cols = A.col_indices();
  if (with_values) h.values = A.values();
  return h;
}

// The transpose by a counting sort: columns stay sorted within each row.
template <class T>
HostCsr<T> transpose(const HostCsr<T>& A) {
  HostCsr<T> t;
  t.n = A.n;
  t.offsets.assign(static_cast<std::size_t>(A.n + 1), 0);
  for (ColIndex c : A.cols) ++t.offsets[static_cast<std::size_t>(c) + 1];
  for (Index i = 0; i < A.n; ++i) t.offsets[i + 1] += t.offsets[i];
  t.cols.resize(A.cols.size());
  if (!A.values.empty()) t.values.resize(A.values.size());
  std::vector<Index> next(t.offsets.begin(), t.offsets.end() - 1);
  for (Index i = 0; i < A.n; ++i)
    for (Index k = A.offsets[i]; k < A.offsets[i + 1]; ++k) {
      const Index p = next[static_cast<std::size_t>(A.cols[k])]++;
      t.cols[p] = static_cast<ColIndex>(i);
      if (!A.values.empty()) t.values[p] = A.values[k];
    }
  return t;
}

// The pattern of A + A' without the diagonal (sorted, duplicate-free rows); with
// `lower_only`, only the entries below the diagonal.
template <class T>
HostCsr<VertexId> symmetric_pattern(const HostCsr<T>& A, bool lower_only) {
  HostCsr<T> pattern{A.n, A.offsets, A.cols, {}};
  const HostCsr<T> t = transpose(pattern);
  HostCsr<VertexId> s;
  s.n = A.n;
  s.offsets.assign(static_cast<std::size_t>(A.n + 1), 0);
  s.cols.reserve(A.cols.size() * 2);
  for (Index i = 0; i < A.n; ++i) {
    Index p = A.offsets[i], q = t.offsets[i];
    const Index pe = A.offsets[i + 1], qe = t.offsets[i + 1];
    while (p < pe || q < qe) {  // merge two sorted rows
      ColIndex c;
      if (q >= qe || (p < pe && A.cols[p] < t.cols[q])) c = A.cols[p++];
      else if (p >= pe || t.cols[q] < A.cols[p]) c = t.cols[q++];
      else { c = A.cols[p++]; ++q; }
      if (c == i || (lower_only && c > i)) continue;
      s.cols.push_back(c);
    }
    s.offsets[i + 1] = static_cast<Index>(s.cols.size());
  }
  s.values.assign(s.cols.size(), VertexId{1});
  return s;
}

// The same structure with every value 1.
template <class T>
HostCsr<VertexId> plain_pattern(const HostCsr<T>& A) {
  HostCsr<VertexId> s{A.n, A.offsets, A.cols, {}};
  s.values.assign(s.cols.size(), VertexId{1});
  return s;
}

template <class T>
SparseMatrix<T> to_matrix(const HostCsr<T>& h, Device device) {
  return SparseMatrix<T>::from_csr(h.n, h.n, h.offsets, h.cols, h.values, device);
}

}  // namespace geblas::algo::detail
