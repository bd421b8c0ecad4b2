// apply on the GPU: one pass mapping a flat array of values (a sparse matrix's or
// vector's values, a dense matrix's data). The operator is chosen at run time
// (runtime_ops.cuh), so the kernel is compiled once per value type.
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "cuda/ops/runtime_ops.cuh"

namespace geblas::detail::cuda::ops {
namespace {

template <class V>
void apply_typed(void* out, const void* in, Index count, const ApplyArgs& f, cudaStream_t s) {
  V* o = static_cast<V*>(out);
  const V* x = static_cast<const V*>(in);
  const UnaryOpId unary = f.unary;
  const BinaryOpId binary = f.binary;
  const V y = *static_cast<const V*>(f.scalar.data());
  for_each(count, s, [=] __device__(Index k) {
    o[k] = binary != BinaryOpId::none ? binop_apply<V>(binary, x[k], y) : unop_apply<V>(unary, x[k]);
  });
}

}  // namespace

void apply_values(void* out, const void* in, Index count, TypeId type, const ApplyArgs& f, int ordinal) {
  Ctx c(Device::cuda(ordinal));
  visit_type(type, [&]<class V>() { apply_typed<V>(out, in, count, f, c.stream); });
}

}  // namespace geblas::detail::cuda::ops
