// Reading into half / bfloat16: the readers parse values as float64 and this rounds
// them once (to nearest even) into the 16-bit type, refusing a finite value that would
// become an infinity, as the readers refuse any value the requested type cannot hold.
#pragma once

#include <cmath>
#include <string>

#include "geblas/detail/storage.hpp"
#include "geblas/detail/value_convert.hpp"
#include "geblas/error.hpp"

namespace geblas::io::detail {

// `values` holds `count` doubles on the host; returns them as `to` (float16 / bfloat16).
// `where` names entry k for the error message.
template <class Where>
geblas::detail::RawBuffer narrow_to_16bit(const std::string& path, const geblas::detail::RawBuffer& values,
                                          Index count, TypeId to, Where&& where) {
  geblas::detail::RawBuffer out(static_cast<std::size_t>(count) * 2, Device::cpu());
  geblas::detail::visit_storage_type(to, [&]<class H>() {
    if constexpr (geblas::detail::is_16bit_v<H>) {
      const double* in = values.as<double>();
      H* o = out.as<H>();
      for (Index k = 0; k < count; ++k) {
        o[k] = geblas::detail::convert_value<H>(in[k]);
        if (std::isfinite(in[k]) && !std::isfinite(static_cast<float>(o[k])))
          throw ParseError(path, 0,
                           where(k) + " (value " + std::to_string(in[k]) + ") is beyond the range of " +
                               std::string(to_string(to)) + " (largest finite " +
                               (to == TypeId::float16 ? "65504" : "3.39e38") + ")");
      }
    }
  });
  return out;
}

}  // namespace geblas::io::detail
