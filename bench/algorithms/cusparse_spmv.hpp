// One cuSPARSE SpMV (y = A x, float, CSR) timed with CUDA events: the baseline that a
// PageRank iteration is compared with. Only built when CUDA is on; a stub reports
// "unavailable" otherwise.
#pragma once

#include <cstdint>
#include <vector>

namespace geblas::bench {

struct SpmvTiming {
  bool available = false;
  double median_ms = 0;
  std::vector<float> y;  // the product, for checking against geblas
};

// CSR on the host (offsets n + 1, 32-bit columns); x has ncols entries.
SpmvTiming cusparse_spmv(std::int64_t nrows, std::int64_t ncols, const std::vector<std::int64_t>& offsets,
                         const std::vector<std::int32_t>& cols, const std::vector<float>& vals,
                         const std::vector<float>& x, int repeat);

}  // namespace geblas::bench
