// Index-list checks and uploads, and small scalar helpers of the core (see op_support.hpp).
#include "core/op_support.hpp"

#include <cstring>
#include <cstdint>
#include <string>
#include <algorithm>

#include "geblas/detail/host_buffer.hpp"

namespace geblas::detail {

DeviceIndices upload_indices(const char* op, const char* what, const IndexList& list, Index bound,
                             const char* bound_what, bool unique, Device device) {
  DeviceIndices out;
  if (list.is_all()) {
    out.view = IndexArray{nullptr, bound, true};
    return out;
  }
  const std::vector<Index>& idx = list.indices();
  if (static_cast<Index>(idx.size()) > max_dimension)
    throw InvalidValue(std::string(op) + ": " + what + " holds " + std::to_string(idx.size()) +
                       " indices, more than the largest dimension");
  for (std::size_t a = 0; a < idx.size(); ++a)
    if (idx[a] < 0 || idx[a] >= bound)
      throw IndexOutOfBounds(std::string(op) + ": " + what + "[" + std::to_string(a) + "] = " +
                             std::to_string(idx[a]) + " is outside " + bound_what + " [0, " +
                             std::to_string(bound) + ")");
  if (unique) {
    // Sorting a copy costs O(k log k) in the list's length, not O(bound).
    std::vector<Index> sorted(idx);
    std::sort(sorted.begin(), sorted.end());
    const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    if (dup != sorted.end()) {
      const auto first = std::find(idx.begin(), idx.end(), *dup);
      const auto second = std::find(first + 1, idx.end(), *dup);
      throw InvalidIndex(std::string(op) + ": " + what + "[" + std::to_string(second - idx.begin()) + "] = " +
                         std::to_string(*dup) + " repeats " + what + "[" + std::to_string(first - idx.begin()) +
                         "] (assign needs unique indices)");
    }
  }
  out.buffer = host_buffer_from(idx, device);
  out.view = IndexArray{out.buffer.as<Index>(), static_cast<Index>(idx.size()), false};
  return out;
}

ScalarBytes scalar_from(const void* value, TypeId type) {
  ScalarBytes s;
  std::memcpy(s.data(), value, size_of(type));
  return s;
}

Options without_accum(const Options& o) {
  Options r = o;
  r.accum = Accum{};
  return r;
}

}  // namespace geblas::detail
