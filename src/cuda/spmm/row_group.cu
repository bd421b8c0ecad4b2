// row_group: a lane group per row of A, as narrow as N allows (group_row.cuh), so that at
// small N one warp works on 32 / W rows at once. The variant for graphs whose rows are
// all a few entries long (road networks, meshes), where row_split's warp per row leaves
// most entry slots empty. A long row is serialised on one group (no cutting). Takes half
// and bfloat16 (8 values per 16-byte load, float accumulators).
#include "cuda/spmm/row_launch.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

struct RowGroupKernel {
  template <class Ops, int V, bool RowMajor>
  static constexpr auto fn() { return row_group_kernel<Ops, V, RowMajor>; }
};

}  // namespace

const FamilyOps row_group_family = RowFamily<RowGroupKernel>::ops;

}  // namespace geblas::detail::cuda::spmm
