// The row_pieces family's launcher (the algorithm is described in row_pieces.cu): its work
// list (rows cut into pieces of at most P entries, built on A's device and kept in A's
// derived cache) and the launches, for the built-in kernels and run-time semirings' alike.
#pragma once

#include <memory>

#include "cuda/spmm/early_launch.cuh"
#include "cuda/spmm/ops.cuh"
#include "cuda/spmm/piece_fold.cuh"
#include "cuda/spmm/problem.hpp"
#include "cuda/spmm/row_pieces_kernel.cuh"

namespace geblas::detail::cuda::spmm {

// The work list for piece length P, on A's device.
struct PiecesPlan {
  RawBuffer units, cut_rows;
  Index unit_count = 0, cut_count = 0, piece_count = 0;  // piece_count: partial rows (one per block of pieces)
  Index synced_units = 0;  // the blocked and packed runs: the blocks whose warps add across warps
  Index short_rows = 0;    // rows of at most slot_row_max entries: the last units of the list
};

std::shared_ptr<const PiecesPlan> row_pieces_plan(const SparseStorage& A, Index piece);
// P for the problem at V = v values per lane: pieces take a fixed number of a warp's
// steps (RowPiecesPolicy); long_pieces: row_pieces_long's floor of min_long_piece entries.
Index row_pieces_piece_length(const SpmmProblem& p, bool long_pieces, int v);
// V, the values per lane, of a launch for p: a 16-byte vector where B and C allow it
// (else 1); with `wide`, two of them for float32 on plus_times, max_times and min_plus
// where N is a multiple of 8 (row_pieces_wide).
int row_pieces_vector(const SpmmProblem& p, bool wide);
// The V that sets the piece length of variant v on p: row_pieces_vector for the built-in
// kernels; a run-time semiring's one vector per lane (runtime_vector: they take
// row_pieces_wide's rule, two vectors for the built-in fast semirings only, as row_pieces).
inline int row_pieces_piece_vector(const SpmmVariant& v, const SpmmProblem& p) {
  return p.runtime_semiring ? runtime_vector(p) : row_pieces_vector(p, v.shape.wide);
}

// Kernel 0 is row_pieces_kernel (taking op, ops, log_w, units, unit_count, synced_units,
// slot_rows, partial), kernel 1 the fold of cut rows, fold_pieces over CutRow; pieces of
// `piece` entries, V = vec values per lane. `workspace` holds the variant's
// workspace_bytes: a partial row of the compute type per block of pieces.
template <class Kernels>
void launch_row_pieces(const SpmmProblem& p, Index piece, int vec, const Kernels& k, void* workspace,
                       cudaStream_t stream) {
  using T = typename Kernels::Compute;
  const auto plan = row_pieces_plan(*p.matrix, piece);
  const Index slot_rows = row_pieces_slot_rows(plan->unit_count, plan->short_rows, p.n, vec);
  const LaunchShape s = row_pieces_shape(plan->unit_count, slot_rows, p.n, vec);
  T* const partial = static_cast<T*>(workspace);
  const int log_w = s.log_w;
  const Unit* const units = plan->units.as<Unit>();
  const Index unit_count = plan->unit_count, synced_units = plan->synced_units;
  k.template launch<0>(Start::early, dim3(s.grid_x, s.grid_y), RowPiecesPolicy::block_threads, stream, log_w, units,
                       unit_count, synced_units, slot_rows, partial);
  launch_fold<1>(k, static_cast<const CutRow*>(plan->cut_rows.as<CutRow>()), plan->cut_count,
                 static_cast<const T*>(partial), stream);
}

}  // namespace geblas::detail::cuda::spmm
