// convert on the host: a parallel map of geblas/detail/value_convert.hpp over a flat
// value array, for every pair of stored types (7 x 7 small loops).
#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"
#include "geblas/detail/value_convert.hpp"

namespace geblas::detail::cpu {

void convert_values(void* out, TypeId to, const void* in, TypeId from, Index count, int) {
  visit_storage_type(from, [&]<class From>() {
    visit_storage_type(to, [&]<class To>() {
      const From* x = static_cast<const From*>(in);
      To* y = static_cast<To*>(out);
#pragma omp parallel for schedule(static) if (parallel_elements(count))
      for (Index k = 0; k < count; ++k) y[k] = convert_value<To, From>(x[k]);
    });
  });
}

}  // namespace geblas::detail::cpu
