// Row-length facts of a sparse matrix, the inputs of the SpMM dispatchers, computed by
// the backend on the matrix's device (only these few numbers reach the host) and cached
// with the matrix (derived_cache.hpp).
#pragma once

#include "geblas/types.hpp"

namespace geblas::detail {

struct RowStats {
  Index nrows = 0;
  Index nvals = 0;
  Index max_row = 0;
  Index empty_rows = 0;
  double mean_row = 0;
  double stddev_row = 0;
};

}  // namespace geblas::detail
