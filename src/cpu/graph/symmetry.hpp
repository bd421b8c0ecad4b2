// Whether a host CSR matrix's pattern is symmetric, a fact the host traversals use to read
// A's rows as in-lists (BFS's pull step, Afforest's skipping of the giant component in
// connected components) when A' is not cached. Kept in A's derived cache, so it is
// computed once per matrix (and dropped, with the cache, when A changes); the look-up
// that never runs the test is core/derived_cache.hpp's pattern_symmetric_if_known.
#pragma once

#include "geblas/detail/storage.hpp"

namespace geblas::detail::cpu::graph {

// Exact: every entry (i, j) has its mirror (j, i). About two reads per entry on a
// symmetric pattern; a directed one usually stops at its first unmatched entry.
bool pattern_symmetric(const SparseStorage& A);

}  // namespace geblas::detail::cpu::graph
