// Small steps the iterative algorithms repeat on dense results, expressed with the
// public operations so that they run on the device holding the data: column sums (a
// reduction per column, k values copied to the host), and a dense n x 1 matrix viewed
// as a dense vector without a copy.
#pragma once

#include <vector>

#include "geblas/dense_matrix.hpp"
#include "geblas/monoid.hpp"
#include "geblas/operations/reduce.hpp"
#include "geblas/vector.hpp"

namespace geblas::algo::detail {

// The sum of each column of Y, on the host.
template <class T>
std::vector<double> column_sums(const DenseMatrix<T>& Y) {
  if (Y.ncols() == 1) return {static_cast<double>(reduce(Y, monoid::plus<T>{}))};
  Vector<T> s = Vector<T>::dense(Y.ncols(), T{0}, Y.device());
  reduce(s, Y, monoid::plus<T>{}, {.transpose_a = true});
  std::vector<double> out;
  for (T v : s.to_std_vector()) out.push_back(static_cast<double>(v));
  return out;
}

// The single column of an n x 1 matrix as a dense vector (the bytes are moved).
template <class T>
Vector<T> column_as_vector(DenseMatrix<T>&& M) {
  geblas::detail::VectorStorage v;
  v.size = M.nrows();
  v.nvals = M.nrows();
  v.dense = true;
  v.type = type_id<T>;
  v.device = M.device();
  v.values = std::move(M.storage().data);
  return Vector<T>(std::move(v));
}

}  // namespace geblas::algo::detail
