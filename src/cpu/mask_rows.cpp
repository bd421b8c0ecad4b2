#include "cpu/mask_rows.hpp"

#include <algorithm>

namespace geblas::detail::cpu {

std::span<const ColIndex> MaskRows::listed(Index i, std::vector<ColIndex>& buf) const {
  const SparseStorage& m = *mask_.sparse();
  const Index b = m.row_offsets.as<Index>()[i], e = m.row_offsets.as<Index>()[i + 1];
  const ColIndex* ci = m.col_indices.as<ColIndex>();
  if (mask_.structural()) return {ci + b, static_cast<std::size_t>(e - b)};
  if (buf.size() < static_cast<std::size_t>(e - b)) buf.resize(static_cast<std::size_t>(e - b));
  std::size_t n = 0;
  visit_type(m.type, [&]<class U>() {
    const U* v = m.values.as<U>();
    for (Index k = b; k < e; ++k)
      if (v[k] != U(0)) buf[n++] = ci[k];
  });
  return {buf.data(), n};
}

void MaskRows::fill(Index i, std::uint8_t* flags, Index ncols) const {
  const bool structural = mask_.structural();
  switch (mask_.kind()) {
    case Mask::Kind::none:
      std::fill(flags, flags + ncols, std::uint8_t{1});
      return;
    case Mask::Kind::sparse: {
      const SparseStorage& m = *mask_.sparse();
      std::fill(flags, flags + ncols, std::uint8_t{0});
      const Index* ro = m.row_offsets.as<Index>();
      const ColIndex* ci = m.col_indices.as<ColIndex>();
      visit_type(m.type, [&]<class U>() {
        const U* v = m.values.as<U>();
        for (Index k = ro[i]; k < ro[i + 1]; ++k) flags[ci[k]] = structural || v[k] != U(0);
      });
      break;
    }
    case Mask::Kind::dense: {
      const DenseStorage& m = *mask_.dense();
      if (structural) {
        std::fill(flags, flags + ncols, std::uint8_t{1});
        break;
      }
      visit_type(m.type, [&]<class U>() {
        const U* v = m.data.as<U>();
        for (Index j = 0; j < ncols; ++j)
          flags[j] = (m.layout == Layout::row_major ? v[i * m.ld + j] : v[j * m.ld + i]) != U(0);
      });
      break;
    }
    case Mask::Kind::vector: {
      const VectorStorage& m = *mask_.vector();
      if (m.dense) {
        if (structural) {
          std::fill(flags, flags + ncols, std::uint8_t{1});
          break;
        }
        visit_type(m.type, [&]<class U>() {
          const U* v = m.values.as<U>();
          for (Index j = 0; j < ncols; ++j) flags[j] = v[j] != U(0);
        });
      } else {
        std::fill(flags, flags + ncols, std::uint8_t{0});
        visit_type(m.type, [&]<class U>() {
          const U* v = m.values.as<U>();
          const ColIndex* idx = m.indices.as<ColIndex>();
          for (Index k = 0; k < m.nvals; ++k) flags[idx[k]] = structural || v[k] != U(0);
        });
      }
      break;
    }
  }
  if (mask_.complemented())
    for (Index j = 0; j < ncols; ++j) flags[j] = !flags[j];
}

}  // namespace geblas::detail::cpu
