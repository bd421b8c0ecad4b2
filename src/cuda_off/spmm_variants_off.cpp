// Built without CUDA: no CUDA SpMM variants exist.
#include "geblas/detail/spmm_variants.hpp"

namespace geblas::detail {
std::vector<std::string> cuda_spmm_variant_names() { return {}; }
void* cuda_stream_handle(int) { return nullptr; }
}  // namespace geblas::detail
