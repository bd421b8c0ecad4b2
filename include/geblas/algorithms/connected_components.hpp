// Connected components of the undirected graph underlying A (the pattern of A + A',
// self-loops ignored; A's edges are read in both directions, no symmetrised copy is
// made). Runs on A's device as Afforest (Sutton et al. 2018) over a concurrent
// union-find in the manner of ECL-CC (Jaiganesh & Burtscher 2018), on the host and the
// GPU alike: two sampled neighbours per vertex are linked first (the larger root hooked
// under the smaller with atomics), then the rest of the entries; when A's pattern is
// known to be symmetric or A' is cached, only those of the vertices outside the giant
// component, otherwise all of them, but an entry already inside one tree costs one load.
// A last pass points every vertex at its root. Each vertex ends with the smallest vertex
// id of its component. On a GPU only the component count crosses PCIe; the labels stay
// on the device.
#pragma once

#include <cstdint>

#include "geblas/algorithms/common.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas::algo {

struct ComponentsOptions {
  IterationCallback on_iteration{};  // called once, after the pass, with n - count
};

struct ComponentsResult {
  Vector<VertexId> labels;  // dense, n entries, on A's device: the component's smallest vertex
  Index count = 0;          // number of components
  int rounds = 0;           // passes over A's entries: 1 (at most; the hooking needs no convergence rounds)
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
