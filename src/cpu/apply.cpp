// apply on the host: a parallel map over a flat array of values. The core hands it a
// sparse matrix's or vector's values (the pattern is copied unchanged) or a dense
// matrix's data.
#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"

namespace geblas::detail::cpu {

void apply_values(void* out, const void* in, Index count, TypeId type, const ApplyArgs& f, int) {
  visit_type(type, [&]<class V>() {
    const V* x = static_cast<const V*>(in);
    V* y = static_cast<V*>(out);
    if (f.binary != BinaryOpId::none) {
      const V s = *static_cast<const V*>(f.scalar.data());
      visit_binary_op<V>(f.binary, [&]<class Op>() {
#pragma omp parallel for schedule(static) if (parallel_elements(count))
        for (Index k = 0; k < count; ++k) y[k] = Op::apply(x[k], s);
      });
    } else {
      visit_unary_op<V>(f.unary, [&]<class Op>() {
#pragma omp parallel for schedule(static) if (parallel_elements(count))
        for (Index k = 0; k < count; ++k) y[k] = Op::apply(x[k]);
      });
    }
  });
}

}  // namespace geblas::detail::cpu
