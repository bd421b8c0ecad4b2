// convert on the GPU: one grid-stride map of geblas/detail/value_convert.hpp (the same
// constexpr code as the CPU, so the two give identical bits) for every pair of stored
// types, on the device's geblas stream.
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"
#include "geblas/detail/value_convert.hpp"

namespace geblas::detail::cuda::ops {
namespace {

template <class To, class From>
void convert_typed(void* out, const void* in, Index count, cudaStream_t s) {
  const From* x = static_cast<const From*>(in);
  To* y = static_cast<To*>(out);
  for_each(count, s, [=] __device__(Index k) { y[k] = convert_value<To, From>(x[k]); });
}

}  // namespace

void convert_values(void* out, TypeId to, const void* in, TypeId from, Index count, int ordinal) {
  if (count <= 0) return;
  Ctx c(Device::cuda(ordinal));
  visit_storage_type(from, [&]<class From>() {
    visit_storage_type(to, [&]<class To>() { convert_typed<To, From>(out, in, count, c.stream); });
  });
}

}  // namespace geblas::detail::cuda::ops
