// Transposes and layout changes on the GPU. A sparse transpose radix-sorts the entries by
// (column, row) keys (stable, so each row of the result comes out sorted); a dense one
// goes through 32 x 33 shared-memory tiles so that both the reads and the writes are
// coalesced whatever the two layouts are.
#include "cuda/ops/common.cuh"
#include "cuda/ops/ops.hpp"

namespace geblas::detail::cuda::ops {
namespace {

// Tile shape of the dense copies: 32 x 32 elements moved by 32 x 8 threads, the classic
// shape for shared-memory transposes (one warp per tile row, 4 rows per thread); the
// extra column of padding keeps column reads free of bank conflicts.
struct TilePolicy {
  static constexpr int tile = 32;
  static constexpr int rows_per_pass = 8;
};

// out(i, j) = transpose ? in(j, i) : in(i, j) over out's shape. src_fast_j / dst_fast_j:
// whether consecutive j are adjacent in memory on the input / output side.
template <class V>
__global__ void copy_tiles(DenseView<V> out, DenseView<V> in, bool transpose, bool src_fast_j, bool dst_fast_j,
                           Index tiles_i, Index tiles_j) {
  constexpr int TS = TilePolicy::tile, RP = TilePolicy::rows_per_pass;
  __shared__ V tile[TS][TS + 1];
  for (Index t = blockIdx.x; t < tiles_i * tiles_j; t += gridDim.x) {
    const Index i0 = (t / tiles_j) * TS, j0 = (t % tiles_j) * TS;
    for (int r = threadIdx.y; r < TS; r += RP) {
      const int a = src_fast_j ? r : threadIdx.x, b = src_fast_j ? threadIdx.x : r;
      const Index i = i0 + a, j = j0 + b;
      if (i < out.nrows && j < out.ncols) tile[a][b] = transpose ? in(j, i) : in(i, j);
    }
    __syncthreads();
    for (int r = threadIdx.y; r < TS; r += RP) {
      const int a = dst_fast_j ? r : threadIdx.x, b = dst_fast_j ? threadIdx.x : r;
      const Index i = i0 + a, j = j0 + b;
      if (i < out.nrows && j < out.ncols) out(i, j) = tile[a][b];
    }
    __syncthreads();
  }
}

void copy_dense(DenseStorage& out, const DenseStorage& in, bool transpose, cudaStream_t s) {
  if (out.nrows == 0 || out.ncols == 0) return;
  constexpr int TS = TilePolicy::tile;
  const Index ti = (out.nrows + TS - 1) / TS, tj = (out.ncols + TS - 1) / TS;
  // input element in(i, j) of the logical source: row-major input has j fast, unless transposed
  const bool src_fast_j = (in.layout == Layout::row_major) != transpose;
  const bool dst_fast_j = out.layout == Layout::row_major;
  const dim3 block(TS, TilePolicy::rows_per_pass);
  const unsigned grid = blocks_for(ti * tj, 1);
  visit_type(in.type, [&]<class V>() {
    copy_tiles<V><<<grid, block, 0, s>>>(dense_view<V>(out), dense_view<V>(in), transpose, src_fast_j, dst_fast_j,
                                         ti, tj);
  });
  GEBLAS_CUDA_CHECK_LAUNCH();
}

}  // namespace

void transpose_sparse(SparseStorage& T, const SparseStorage& A) {
  Ctx c(A.device);
  const Index m = A.nrows, n = A.ncols, K = A.nvals;
  RawBuffer keys = temp<std::uint64_t>(K, c.device);
  std::uint64_t* k = keys.as<std::uint64_t>();
  const Index* ro = A.row_offsets.as<Index>();
  const ColIndex* ci = A.col_indices.as<ColIndex>();
  for_each(K, c.stream, [=] __device__(Index p) {
    const Index i = row_of_entry(ro, m, p);
    k[p] = static_cast<std::uint64_t>(ci[p]) * static_cast<std::uint64_t>(m) + static_cast<std::uint64_t>(i);
  });
  T = csr_from_keys(n, m, keys, A.values, K, A.type, c);
}

void transpose_dense(DenseStorage& T, const DenseStorage& A) {
  Ctx c(A.device);
  DenseStorage out = new_dense(A.ncols, A.nrows, Layout::row_major, A.type, c.device);
  copy_dense(out, A, true, c.stream);
  T = std::move(out);
}

void relayout_dense(DenseStorage& T, const DenseStorage& A, Layout layout) {
  if (&T == &A) throw InvalidValue("relayout_dense: output aliases input");
  Ctx c(A.device);
  DenseStorage out = new_dense(A.nrows, A.ncols, layout, A.type, c.device);
  copy_dense(out, A, false, c.stream);
  T = std::move(out);
}

}  // namespace geblas::detail::cuda::ops
