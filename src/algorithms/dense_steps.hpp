// Small steps the iterative algorithms repeat on dense results, expressed with the
// public operations so that they run on the device holding the data: column sums (one
// SpMM with a row of ones, k values copied to the host), and a dense n x 1 matrix viewed
// as a dense vector (and back) without a copy.
#pragma once

#include <vector>

#include "geblas/dense_matrix.hpp"
#include "geblas/monoid.hpp"
#include "geblas/operations/assign.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/operations/reduce.hpp"
#include "geblas/operations/transpose.hpp"
#include "geblas/semiring.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas::algo::detail {

// The sum of each column of n x k matrices, on the host. For k > 1 it is one SpMM with
// a 1 x n row of ones built once: a per-column reduce would transpose Y (an n x k
// temporary) and then fold each of the k long rows with a single warp on the GPU, which
// cost milliseconds per call on 64 columns; the SpMM spreads the one long row over the
// device and writes into a 1 x k result kept here.
template <class T>
class ColumnSums {
 public:
  // The 1 x n row of ones is made on the device, by one assign of the scalar 1 to every
  // position: nothing of size n crosses from the host.
  ColumnSums(Index n, Index k, Device device) : k_(k) {
    if (k_ == 1) return;
    ones_ = SparseMatrix<T>(1, n, device);
    assign(ones_, T{1}, IndexList::all(), IndexList::all());
    sums_ = DenseMatrix<T>(1, k, device);
  }

  // The n x 1 column of ones (the transpose of the row), for broadcasting k values.
  SparseMatrix<T> ones_column() const {
    SparseMatrix<T> c(ones_.ncols(), 1, ones_.device());
    transpose(c, ones_);
    return c;
  }

  std::vector<double> operator()(const DenseMatrix<T>& Y) {
    if (k_ == 1) return {static_cast<double>(reduce(Y, monoid::plus<T>{}))};
    mxm(sums_, ones_, Y, semiring::plus_times<T>{});
    std::vector<double> out;
    for (T v : sums_.to_row_major()) out.push_back(static_cast<double>(v));
    return out;
  }

 private:
  Index k_ = 0;
  SparseMatrix<T> ones_;
  DenseMatrix<T> sums_;
};

// A dense vector as an n x 1 matrix (the bytes are moved).
template <class T>
DenseMatrix<T> vector_as_column(Vector<T>&& v) {
  geblas::detail::DenseStorage m;
  m.nrows = v.size();
  m.ncols = 1;
  m.ld = 1;
  m.layout = Layout::row_major;
  m.type = type_id<T>;
  m.device = v.device();
  m.data = std::move(v.storage().values);
  return DenseMatrix<T>(std::move(m));
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
