// Connected components of the undirected graph underlying A (the pattern of A + A',
// self-loops ignored), by min-label propagation over min_second with the
// pointer-jumping shortcut of Shiloach-Vishkin / FastSV (label <- label[label]) after
// every round, which cuts the rounds on long paths. Each vertex ends with the smallest
// vertex id of its component.
#pragma once

#include <cstdint>

#include "geblas/algorithms/common.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas::algo {

struct ComponentsOptions {
  IterationCallback on_iteration{};
};

struct ComponentsResult {
  Vector<VertexId> labels;  // dense, n entries, on A's device: the component's smallest vertex
  Index count = 0;          // number of components
  int rounds = 0;
};

// Throws DimensionMismatch when A is not square.
#define GEBLAS_ALGO_CC(T) \
  GEBLAS_API ComponentsResult connected_components(const SparseMatrix<T>& A, const ComponentsOptions& options = {});
GEBLAS_ALGO_CC(bool)
GEBLAS_ALGO_CC(std::int32_t)
GEBLAS_ALGO_CC(std::int64_t)
GEBLAS_ALGO_CC(float)
GEBLAS_ALGO_CC(double)
#undef GEBLAS_ALGO_CC

}  // namespace geblas::algo
