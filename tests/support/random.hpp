// Random test matrices, each built together with its Eigen twin from the same tuples
// (so geblas's CSR builder and Eigen's are compared, not shared). Shapes cover the
// cases SpMM kernels get wrong: empty rows, a row holding half the entries, N = 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "geblas/dense_matrix.hpp"
#include "geblas/sparse_matrix.hpp"
#include "reference/products.hpp"

namespace geblas::test {

enum class Shape { uniform, empty_rows, heavy_row, empty };

inline const char* to_string(Shape s) {
  switch (s) {
    case Shape::uniform: return "uniform";
    case Shape::empty_rows: return "empty_rows";
    case Shape::heavy_row: return "heavy_row";
    case Shape::empty: return "empty";
  }
  return "?";
}

// A value for entry k: small integers (exact in every type and every summation order)
// unless `real` asks for arbitrary values in [0, 1).
template <class T>
T random_value(std::mt19937_64& rng, bool real) {
  if constexpr (std::is_same_v<T, bool>) return (rng() & 1) != 0;
  else if constexpr (std::is_floating_point_v<T>) {
    if (real) return static_cast<T>(std::uniform_real_distribution<double>(0, 1)(rng));
    return static_cast<T>(static_cast<int>(rng() % 7) - 3);
  } else {
    return static_cast<T>(static_cast<int>(rng() % 7) - 3);
  }
}

template <class T>
struct RandomSparse {
  std::vector<Tuple<T>> tuples;
  Index nrows = 0, ncols = 0;
  SparseMatrix<T> geblas() const { return SparseMatrix<T>::from_tuples(nrows, ncols, tuples); }
  ref::Sparse<T> eigen() const {
    std::vector<Eigen::Triplet<T, std::int64_t>> t;
    for (const auto& x : tuples) t.emplace_back(x.row, x.col, x.value);
    ref::Sparse<T> E(nrows, ncols);
    E.setFromTriplets(t.begin(), t.end());
    return E;
  }
};

template <class T>
RandomSparse<T> random_sparse(Index nrows, Index ncols, double density, Shape shape, std::uint64_t seed,
                              bool real = false) {
  std::mt19937_64 rng(seed);
  RandomSparse<T> out;
  out.nrows = nrows;
  out.ncols = ncols;
  if (shape == Shape::empty || nrows == 0 || ncols == 0) return out;
  std::set<std::pair<Index, Index>> seen;
  const auto target = static_cast<Index>(density * static_cast<double>(nrows) * static_cast<double>(ncols));
  auto add = [&](Index i, Index j) {
    if (seen.emplace(i, j).second) out.tuples.push_back({i, j, random_value<T>(rng, real)});
  };
  if (shape == Shape::heavy_row) {
    const Index heavy = static_cast<Index>(rng() % static_cast<std::uint64_t>(nrows));
    for (Index j = 0; j < ncols && j < std::max<Index>(target / 2, 1); ++j) add(heavy, j);
  }
  for (Index k = 0; k < target; ++k) {
    Index i = static_cast<Index>(rng() % static_cast<std::uint64_t>(nrows));
    if (shape == Shape::empty_rows) i = (i / 3) * 3;  // rows not divisible by 3 stay empty
    add(i, static_cast<Index>(rng() % static_cast<std::uint64_t>(ncols)));
  }
  std::shuffle(out.tuples.begin(), out.tuples.end(), rng);
  return out;
}

template <class T>
ref::Dense<T> random_dense(Index nrows, Index ncols, std::uint64_t seed, bool real = false) {
  std::mt19937_64 rng(seed);
  ref::Dense<T> D(nrows, ncols);
  for (Index i = 0; i < nrows; ++i)
    for (Index j = 0; j < ncols; ++j) D(i, j) = random_value<T>(rng, real);
  return D;
}

template <class T>
DenseMatrix<T> to_geblas(const ref::Dense<T>& D, Layout layout = Layout::row_major, Device device = Device::cpu()) {
  std::vector<T> v(static_cast<std::size_t>(D.size()));
  for (Index i = 0; i < D.rows(); ++i)
    for (Index j = 0; j < D.cols(); ++j) {
      const Index p = layout == Layout::row_major ? i * D.cols() + j : j * D.rows() + i;
      v[static_cast<std::size_t>(p)] = D(i, j);
    }
  return layout == Layout::row_major ? DenseMatrix<T>::from_row_major(D.rows(), D.cols(), v, device)
                                     : DenseMatrix<T>::from_col_major(D.rows(), D.cols(), v, device);
}

// A value no kernel produces, written into outputs before a run so that an unwritten
// entry shows up.
template <class T>
T poison() {
  if constexpr (std::is_same_v<T, bool>) return true;
  else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(-12345.678);
  else return static_cast<T>(-987654);
}

}  // namespace geblas::test
