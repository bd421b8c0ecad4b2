// Built without CUDA: no CUDA SpMM variants exist.
#include "core/cuda_tensor_cores.hpp"
#include "geblas/detail/spmm_arg.hpp"
#include "geblas/detail/spmm_variants.hpp"
#include "geblas/error.hpp"

namespace geblas::detail {
std::vector<std::string> cuda_spmm_variant_names() { return {}; }
void* cuda_stream_handle(int) { return nullptr; }
void cuda_spmm_arg_extreme(const SparseStorage&, const DenseStorage&, DenseStorage&, DenseStorage&, bool) {
  throw NotImplemented("spmm_arg_extreme: libgeblas.so was built without CUDA");
}
void cuda_spmm_arg_scatter(const DenseStorage&, const DenseStorage&, DenseStorage&, const SparseStorage*) {
  throw NotImplemented("spmm_arg_scatter: libgeblas.so was built without CUDA");
}
// Unreachable: without CUDA no matrix lives on a CUDA device (the core checks first).
WindowPlanInfo cuda::window_plan_info(const SparseStorage&, Index) {
  throw NotImplemented("window_plan_info: libgeblas.so was built without CUDA");
}
// The tensor-core cost model is the CUDA backend's (src/cuda/spmm/policy/).
double cuda::tc_threshold(TypeId, Index) {
  throw NotImplemented(
      "tc_window_threshold: libgeblas.so was built without CUDA (the tensor-core cost model is the "
      "CUDA backend's)");
}
void cuda::set_tc_threshold_override(double) {
  throw NotImplemented(
      "set_tc_window_threshold: libgeblas.so was built without CUDA (the tensor-core cost model is "
      "the CUDA backend's)");
}
}  // namespace geblas::detail
