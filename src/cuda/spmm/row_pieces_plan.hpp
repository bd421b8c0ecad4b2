// row_pieces' work list (rows cut into pieces of at most P entries), built on A's device
// and kept in A's derived cache; used by row_pieces.cu and by run-time semirings.
#pragma once

#include <memory>

#include "cuda/spmm/problem.hpp"

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

}  // namespace geblas::detail::cuda::spmm
