// How many derived facts (transposes, degree vectors, kernel plans) the library has built
// since the process started: tests read it to check that a second call on an unchanged
// matrix builds nothing and that a changed matrix rebuilds. Not part of the stable API.
#pragma once

#include <cstdint>

#include "geblas/config.hpp"

namespace geblas::detail {

GEBLAS_API std::uint64_t derived_builds();

}  // namespace geblas::detail
