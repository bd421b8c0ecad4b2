// row_group: a lane group per row of A, as narrow as N allows (group_row.cuh), so that at
// small N one warp works on 32 / W rows at once. The variant for graphs whose rows are
// all a few entries long (road networks, meshes), where row_split's warp per row leaves
// most entry slots empty. A long row is serialised on one group (no cutting). Takes half
// and bfloat16 (8 values per 16-byte load, float accumulators).
#include "cuda/spmm/row_group_kernel.cuh"
#include "cuda/spmm/row_launch.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

struct RowGroupLaunch {
  static constexpr const char* name = "row_group";
  static constexpr int block_threads = RowGroupPolicy::block_threads;
  static LaunchShape shape(Index m, Index n, int v) { return row_group_shape(m, n, v); }
  template <class Ops, int V, bool RowMajor>
  static constexpr auto kernel = row_group_kernel<Ops, V, RowMajor>;
};
using RowGroup = RowLaunchVariant<RowGroupLaunch>;

}  // namespace

const SpmmVariant& row_group_variant() {
  static const SpmmVariant v{"row_group", "a lane group as wide as N per row: several short rows per warp",
                             RowGroup::can_implement, RowGroup::workspace_bytes, RowGroup::run};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
