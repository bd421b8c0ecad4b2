// Turning entries read in file order into geblas CSR (sorted, unique columns per row):
// a stable counting sort by row, a per-row column sort only where a row is out of
// order, then duplicates combined (or reported) and zeros dropped. Stability keeps file
// order among equal (i, j), so duplicates combine as dup(dup(v1, v2), v3).
//
// It is separate from detail::build_csr (src/core/build.cpp) because a file reader
// needs 32-bit coordinates to halve memory on large files, must name the file lines of
// a duplicate rather than tuple numbers, and wants the common already-sorted file to
// cost one pass.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "geblas/binary_op.hpp"
#include "geblas/detail/storage.hpp"
#include "geblas/error.hpp"
#include "geblas/sparse_matrix.hpp"

namespace geblas::io::detail {

// Values as read; bool is kept as a byte so that std::vector stays a plain array.
template <class T>
using Stored = std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>;

// Entries in file order (after mirroring), as a list of chunks (one per block of the
// file and thread) so that threads fill their own chunk and nothing is copied to join
// them. `vals` is empty for a pattern file: every value is 1.
template <class T>
struct CooChunk {
  std::vector<ColIndex> rows, cols;
  std::vector<Stored<T>> vals;
};
template <class T>
using Coo = std::vector<CooChunk<T>>;

// CSR row offsets cost 8 bytes per row whatever the entries, so a 74-byte file declaring
// 2e8 rows would cost 1.6 GB (3.2 GB while assembling). A reader refuses dimensions
// beyond `limit` (0: the automatic limit, max(2^24, 16 x entries): 128 MiB of offsets
// at least, else 128 bytes per entry, far above any real graph's vertex/edge ratio
// short of mostly isolated vertices) with a message saying how to raise it.
struct DimensionPolicy {
  static constexpr Index kFloor = Index{1} << 24;
  static constexpr Index kPerEntry = 16;
};
// A byte count for a message, in the largest binary unit that keeps it at least 1.
inline std::string byte_count(std::uint64_t bytes) {
  static constexpr const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  std::uint64_t whole = bytes;
  while (whole >= 1024 && u < 4) {
    whole /= 1024;
    ++u;
  }
  if (u == 0) return std::to_string(bytes) + " bytes";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f %s", static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << (10 * u)), units[u]);
  return buf;
}

inline void check_dimension_limit(const std::string& path, Index nrows, Index ncols, std::size_t entries, Index limit) {
  const Index automatic = std::max<Index>(DimensionPolicy::kFloor, DimensionPolicy::kPerEntry * static_cast<Index>(entries));
  const Index allowed = limit > 0 ? limit : automatic;
  const Index dim = std::max(nrows, ncols);
  if (dim <= allowed) return;
  throw ParseError(path, 0,
                   std::to_string(nrows) + " x " + std::to_string(ncols) + " for " + std::to_string(entries) +
                       " entries exceeds the dimension limit " + std::to_string(allowed) +
                       (limit > 0 ? " (ReadOptions::max_dimension)" : " (automatic: max(2^24, 16 x entries))") +
                       "; the row offsets alone would take " + byte_count(static_cast<std::uint64_t>(nrows + 1) * 8) +
                       ". If the graph really is this sparse, raise ReadOptions::max_dimension");
}

// `on_duplicate(row, col)` is called (and must throw) when (row, col) occurs twice and
// `dup` names no operator.
template <class T, class OnDuplicate>
geblas::detail::SparseStorage assemble_csr(Index nrows, Index ncols, Coo<T>& coo, Duplicates dup, bool drop_zeros,
                                           OnDuplicate&& on_duplicate) {
  using geblas::detail::RawBuffer;
  const Device host = Device::cpu();
  std::size_t n_in = 0;
  for (const auto& c : coo) n_in += c.rows.size();
  geblas::detail::SparseStorage s = geblas::detail::make_sparse(nrows, ncols, type_id<T>, host);
  Index* ro = s.row_offsets.as<Index>();
  std::fill(ro, ro + nrows + 1, Index{0});
  for (const auto& c : coo)
    for (const ColIndex r : c.rows) ++ro[r + 1];
  for (Index i = 0; i < nrows; ++i) ro[i + 1] += ro[i];

  RawBuffer cols_buf(n_in * sizeof(ColIndex), host);
  RawBuffer vals_buf(n_in * sizeof(T), host);
  ColIndex* ci = cols_buf.as<ColIndex>();
  T* v = vals_buf.as<T>();
  {
    std::vector<Index> next(ro, ro + nrows);
    for (auto& c : coo) {
      const bool pattern = c.vals.empty();
      for (std::size_t k = 0; k < c.rows.size(); ++k) {
        const Index p = next[c.rows[k]]++;
        ci[p] = c.cols[k];
        v[p] = pattern ? T(1) : static_cast<T>(c.vals[k]);
      }
      c = CooChunk<T>{};  // release the file-order copy as it is consumed
    }
  }

  // Rows out of column order (rare in real files) are sorted by (column, position),
  // which is a stable sort by column.
  Index repeats = 0;
  // Threads only pay off on large inputs (a parallel region costs ~0.1 ms even idle).
#pragma omp parallel reduction(+ : repeats) if (n_in > (std::size_t{1} << 18))
  {
    std::vector<std::uint64_t> keys;
    std::vector<Stored<T>> tmp;
#pragma omp for schedule(dynamic, 1024)
    for (Index i = 0; i < nrows; ++i) {
      const Index b = ro[i], e = ro[i + 1];
      if (!std::is_sorted(ci + b, ci + e)) {
        keys.resize(static_cast<std::size_t>(e - b));
        tmp.assign(v + b, v + e);
        for (Index k = b; k < e; ++k)
          keys[k - b] = (static_cast<std::uint64_t>(ci[k]) << 32) | static_cast<std::uint64_t>(k - b);
        std::sort(keys.begin(), keys.end());
        for (Index k = b; k < e; ++k) {
          ci[k] = static_cast<ColIndex>(keys[k - b] >> 32);
          v[k] = tmp[keys[k - b] & 0xffffffffu];
        }
      }
      for (Index k = b + 1; k < e; ++k) repeats += ci[k] == ci[k - 1];
    }
  }

  if (repeats > 0 && !dup.op) {
    for (Index i = 0; i < nrows; ++i)
      for (Index k = ro[i] + 1; k < ro[i + 1]; ++k)
        if (ci[k] == ci[k - 1]) on_duplicate(i, static_cast<Index>(ci[k]));
  }

  Index nvals = static_cast<Index>(n_in);
  if (repeats > 0 || drop_zeros) {
    // One in-place forward pass: combine equal columns, then drop zeros of the row.
    auto compact = [&](auto combine) {
      Index w = 0, old_begin = 0;
      for (Index i = 0; i < nrows; ++i) {
        const Index old_end = ro[i + 1];
        const Index row_start = w;
        for (Index k = old_begin; k < old_end; ++k) {
          if (w > row_start && ci[w - 1] == ci[k]) {
            v[w - 1] = combine(v[w - 1], v[k]);
          } else {
            ci[w] = ci[k];
            v[w] = v[k];
            ++w;
          }
        }
        if (drop_zeros) {
          Index w2 = row_start;
          for (Index k = row_start; k < w; ++k)
            if (!(v[k] == T(0))) {
              ci[w2] = ci[k];
              v[w2] = v[k];
              ++w2;
            }
          w = w2;
        }
        old_begin = old_end;
        ro[i + 1] = w;
      }
      return w;
    };
    if (dup.op)
      nvals = visit_binary_op<T>(*dup.op, [&]<class Op>() { return compact([](T a, T b) { return static_cast<T>(Op::apply(a, b)); }); });
    else
      nvals = compact([](T a, T) { return a; });  // no repeats here: on_duplicate threw
  }

  s.nvals = nvals;
  if (static_cast<std::size_t>(nvals) == n_in) {
    s.col_indices = std::move(cols_buf);
    s.values = std::move(vals_buf);
  } else {
    s.col_indices = RawBuffer(static_cast<std::size_t>(nvals) * sizeof(ColIndex), host);
    s.values = RawBuffer(static_cast<std::size_t>(nvals) * sizeof(T), host);
    if (nvals) {
      std::memcpy(s.col_indices.data(), ci, static_cast<std::size_t>(nvals) * sizeof(ColIndex));
      std::memcpy(s.values.data(), v, static_cast<std::size_t>(nvals) * sizeof(T));
    }
  }
  return s;
}

}  // namespace geblas::io::detail
