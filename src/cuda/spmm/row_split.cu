// row_split: a warp per row of A (the row-splitting kernel of Yang, Buluc and Owens'
// merge-based SpMM paper) with the entry-parallel inner loop of warp_row.cuh: 16-byte
// loads of B, 32 entries cached per coalesced load, several entries and loads in flight
// per warp. N wider than one warp's tile loops over column tiles, with the tile index
// the slow grid dimension so that one column slice of B stays in L2 at a time. Assumes
// nothing about row lengths, but a very long row is serialised on one warp: row_pieces
// and merge_path are for those. Takes half and bfloat16 (8 values per 16-byte load of B,
// float accumulators).
#include "cuda/spmm/row_launch.cuh"

namespace geblas::detail::cuda::spmm {
namespace {

struct RowSplitKernel {
  template <class Ops, int V, bool RowMajor>
  static constexpr auto fn() { return row_split_kernel<Ops, V, RowMajor>; }
};

}  // namespace

const FamilyOps row_split_family = RowFamily<RowSplitKernel>::ops;

}  // namespace geblas::detail::cuda::spmm
