// The counters behind geblas::transfer_counts(): every copy between the host and a CUDA
// device goes through one of the CUDA backend's copy functions, which report it here.
#pragma once

#include <cstddef>

#include "geblas/device.hpp"

namespace geblas::detail {

// Records a copy of `bytes` from `src` to `dst` (nothing when both are on one side).
void count_transfer(Device dst, Device src, std::size_t bytes);

}  // namespace geblas::detail
