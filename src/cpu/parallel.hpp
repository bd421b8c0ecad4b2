// When a host loop is worth an OpenMP parallel region. Forking and joining a team
// costs microseconds on an idle machine and far more on a loaded one (a descheduled
// thread holds every barrier), so small loops run on the calling thread.
#pragma once

#include "geblas/types.hpp"

namespace geblas::detail::cpu {

struct ParallelPolicy {
  // Not measured as a crossover: chosen so that the operation tests (matrices up to
  // 64 x 64) never fork, after their OpenMP overhead on the 2-core shared build machine
  // made them 40x slower than single-threaded. Loops over elements (cheap bodies):
  static constexpr Index min_elements = Index{1} << 15;
  // Loops over rows of a sparse matrix (each body walks a row):
  static constexpr Index min_rows = Index{1} << 11;
};

inline bool parallel_elements(Index n) { return n >= ParallelPolicy::min_elements; }
inline bool parallel_rows(Index n) { return n >= ParallelPolicy::min_rows; }

}  // namespace geblas::detail::cpu
