// Interoperability with Eigen (not included by geblas.hpp, so that Eigen stays optional
// for users): a SparseMatrix from an Eigen sparse matrix and back, dense matrices both
// ways. Eigen's explicit zeros are kept as stored entries.
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>

#include "geblas/dense_matrix.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas {

template <Scalar T, int Options, class StorageIndex>
SparseMatrix<T> from_eigen(const Eigen::SparseMatrix<T, Options, StorageIndex>& E,
                           Device device = Device::cpu()) {
  std::vector<Tuple<T>> tuples;
  tuples.reserve(static_cast<std::size_t>(E.nonZeros()));
  for (Index k = 0; k < E.outerSize(); ++k)
    for (typename Eigen::SparseMatrix<T, Options, StorageIndex>::InnerIterator it(E, k); it; ++it)
      tuples.push_back({static_cast<Index>(it.row()), static_cast<Index>(it.col()), it.value()});
  return SparseMatrix<T>::from_tuples(E.rows(), E.cols(), tuples, {}, device);
}

template <Scalar T>
Eigen::SparseMatrix<T, Eigen::RowMajor, std::int64_t> to_eigen(const SparseMatrix<T>& A) {
  std::vector<Eigen::Triplet<T, std::int64_t>> triplets;
  for (const auto& t : A.extract_tuples()) triplets.emplace_back(t.row, t.col, t.value);
  Eigen::SparseMatrix<T, Eigen::RowMajor, std::int64_t> E(A.nrows(), A.ncols());
  E.setFromTriplets(triplets.begin(), triplets.end());
  return E;
}

template <Scalar T, class Derived>
DenseMatrix<T> from_eigen_dense(const Eigen::MatrixBase<Derived>& E, Device device = Device::cpu()) {
  std::vector<T> v(static_cast<std::size_t>(E.rows() * E.cols()));
  for (Index i = 0; i < E.rows(); ++i)
    for (Index j = 0; j < E.cols(); ++j) v[static_cast<std::size_t>(i * E.cols() + j)] = E(i, j);
  return DenseMatrix<T>::from_row_major(E.rows(), E.cols(), v, device);
}

template <Scalar T>
Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> to_eigen(const DenseMatrix<T>& A) {
  const std::vector<T> v = A.to_row_major();
  Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> E(A.nrows(), A.ncols());
  for (Index i = 0; i < A.nrows(); ++i)
    for (Index j = 0; j < A.ncols(); ++j) E(i, j) = v[static_cast<std::size_t>(i * A.ncols() + j)];
  return E;
}

}  // namespace geblas
