// Element-by-element comparison of a geblas result with a reference, reporting the
// first mismatches with their position, so a failure names the case to replay.
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>

#include "geblas/dense_matrix.hpp"
#include "reference/products.hpp"

namespace geblas::test {

template <class T>
bool close(T got, T want, double rel_tol) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == want;
    return std::abs(static_cast<double>(got) - static_cast<double>(want)) <=
           rel_tol * std::max(1.0, std::abs(static_cast<double>(want)));
  } else {
    return got == want;
  }
}

// Empty string when every entry matches; else a description of the mismatches.
template <class T>
std::string compare_dense(const DenseMatrix<T>& got, const ref::Dense<T>& want, double rel_tol = 0) {
  std::ostringstream msg;
  if (got.nrows() != want.rows() || got.ncols() != want.cols()) {
    msg << "shape " << got.nrows() << "x" << got.ncols() << " != " << want.rows() << "x" << want.cols();
    return msg.str();
  }
  const std::vector<T> g = got.to_row_major();
  Index bad = 0;
  for (Index i = 0; i < want.rows(); ++i)
    for (Index j = 0; j < want.cols(); ++j) {
      const T x = g[static_cast<std::size_t>(i * want.cols() + j)];
      if (!close(x, want(i, j), rel_tol)) {
        if (bad < 5) msg << " (" << i << "," << j << "): got " << +x << " want " << +want(i, j) << ";";
        ++bad;
      }
    }
  if (bad) msg << " " << bad << " of " << want.size() << " entries differ";
  return msg.str();
}

}  // namespace geblas::test
