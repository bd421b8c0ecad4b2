// Reference products on Eigen. plus_times uses Eigen's own sparse x dense product;
// the other semirings loop over Eigen's sparse iterators. Results are dense row-major
// with the identity where no term exists, and a flag per row saying whether any term
// existed (GraphBLAS presence).
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <map>

#include "reference/semirings.hpp"

namespace ref {

template <class T>
using Sparse = Eigen::SparseMatrix<T, Eigen::RowMajor, std::int64_t>;
template <class T>
using Dense = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// C = A (+).(x) B, A sparse, B dense.
template <class T>
Dense<T> spmm(const Sparse<T>& A, const Dense<T>& B, const SemiringOps<T>& s) {
  if constexpr (!std::is_same_v<T, bool>) {
    if (s.name == "plus_times") {
      Dense<T> C = A * B;
      return C;  // empty rows come out as 0, the identity of plus
    }
  }
  Dense<T> C = Dense<T>::Constant(A.rows(), B.cols(), s.identity);
  for (Eigen::Index i = 0; i < A.outerSize(); ++i)
    for (typename Sparse<T>::InnerIterator it(A, i); it; ++it)
      for (Eigen::Index j = 0; j < B.cols(); ++j) C(i, j) = s.add(C(i, j), s.mul(it.value(), B(it.col(), j)));
  return C;
}

// Dense x dense and dense x sparse, by the definition.
template <class T>
Dense<T> gemm(const Dense<T>& A, const Dense<T>& B, const SemiringOps<T>& s) {
  Dense<T> C = Dense<T>::Constant(A.rows(), B.cols(), s.identity);
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index k = 0; k < A.cols(); ++k)
      for (Eigen::Index j = 0; j < B.cols(); ++j) C(i, j) = s.add(C(i, j), s.mul(A(i, k), B(k, j)));
  return C;
}

// Sparse x sparse: the entries with at least one term, as (row, col) -> value.
template <class T>
Sparse<T> spgemm(const Sparse<T>& A, const Sparse<T>& B, const SemiringOps<T>& s) {
  std::vector<Eigen::Triplet<T, std::int64_t>> out;
  for (Eigen::Index i = 0; i < A.outerSize(); ++i) {
    std::map<std::int64_t, T> row;
    for (typename Sparse<T>::InnerIterator a(A, i); a; ++a)
      for (typename Sparse<T>::InnerIterator b(B, a.col()); b; ++b) {
        const T p = s.mul(a.value(), b.value());
        auto [it, fresh] = row.emplace(b.col(), p);
        if (!fresh) it->second = s.add(it->second, p);
      }
    for (auto& [j, v] : row) out.emplace_back(i, j, v);
  }
  Sparse<T> C(A.rows(), B.cols());
  C.setFromTriplets(out.begin(), out.end());
  return C;
}

}  // namespace ref
