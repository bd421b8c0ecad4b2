// The library's own version string, compiled in so that it reports the library that is
// loaded rather than the headers a program was built with.
#include "geblas/version.hpp"

namespace geblas {
const char* version() { return GEBLAS_VERSION_STRING; }
}  // namespace geblas
