// The CPU backend's entries, declared from the backend table's list.
#pragma once

#include "core/backend.hpp"
#include "core/with_semiring.hpp"
#include "geblas/detail/views.hpp"

namespace geblas::detail::cpu {

// One function per entry of the backend table (core/backend.hpp), with its field's
// signature; memory in backend.cpp, the operations in the file of their family.
GEBLAS_BACKEND_ENTRIES(GEBLAS_DECLARE_BACKEND_ENTRY)

}  // namespace geblas::detail::cpu
