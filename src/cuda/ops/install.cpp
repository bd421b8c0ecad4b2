// Puts the entries of src/cuda/ops/ into the CUDA backend's table (called once by
// cuda_backend() in src/cuda/backend.cu).
#include "cuda/ops/ops.hpp"

namespace geblas::detail::cuda::ops {

void install(Backend& b) {
  b.mxm_sparse_sparse = mxm_sparse_sparse;
  b.mxm_dense_sparse = mxm_dense_sparse;
  b.mxm_dense_dense = mxm_dense_dense;
  b.row_stats = row_stats;
  b.transpose_sparse = transpose_sparse;
  b.transpose_dense = transpose_dense;
  b.relayout_dense = relayout_dense;
  b.mxv_pull = mxv_pull;
  b.mxv_push = mxv_push;
  b.ewise_sparse = ewise_sparse;
  b.ewise_dense = ewise_dense;
  b.ewise_vector = ewise_vector;
  b.apply_values = apply_values;
  b.convert_values = convert_values;
  b.reduce_rows_sparse = reduce_rows_sparse;
  b.reduce_rows_dense = reduce_rows_dense;
  b.reduce_values = reduce_values;
  b.select_sparse = select_sparse;
  b.select_vector = select_vector;
  b.extract_sparse = extract_sparse;
  b.extract_vector = extract_vector;
  b.assign_sparse = assign_sparse;
  b.assign_vector = assign_vector;
  b.write_dense = write_dense;
  b.write_sparse = write_sparse;
  b.write_vector = write_vector;
}

}  // namespace geblas::detail::cuda::ops
