// row_split: a warp per row of A (the row-splitting kernel of Yang, Buluc and Owens'
// merge-based SpMM paper) with the entry-parallel inner loop of warp_row.cuh: 16-byte
// loads of B, 32 entries cached per coalesced load, several entries and loads in flight
// per warp. N wider than one warp's tile loops over column tiles, with the tile index
// the slow grid dimension so that one column slice of B stays in L2 at a time. Assumes
// nothing about row lengths, but a very long row is serialised on one warp: row_pieces
// and merge_path are for those. Takes half and bfloat16 (8 values per 16-byte load of B,
// float accumulators).
#include "cuda/spmm/row_launch.cuh"
#include "cuda/spmm/row_split_kernel.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

struct RowSplitLaunch {
  static constexpr const char* name = "row_split";
  static constexpr int block_threads = RowSplitPolicy::block_threads;
  static LaunchShape shape(Index m, Index n, int v) { return row_split_shape(m, n, v); }
  template <class Ops, int V, bool RowMajor>
  static constexpr auto kernel = row_split_kernel<Ops, V, RowMajor>;
};
using RowSplit = RowLaunchVariant<RowSplitLaunch>;

}  // namespace

const SpmmVariant& row_split_variant() {
  static const SpmmVariant v{"row_split", "a warp per row, entry-parallel slots, 16-byte loads of B",
                             RowSplit::can_implement, RowSplit::workspace_bytes, RowSplit::run};
  return v;
}

}  // namespace geblas::detail::cuda::spmm
