// What the OpenMP runtime says about its wait policy when OMP_DISPLAY_ENV=verbose makes it
// print its settings at start: the runtime's own view, independent of geblas's code.
// GCC's libgomp prints "GOMP_SPINCOUNT = '0'" under the passive policy and its policy as
// "OMP_WAIT_POLICY = 'ACTIVE'"; LLVM's libomp (the clang sanitizer build) prints
// "KMP_BLOCKTIME='0'" and "OMP_WAIT_POLICY='ACTIVE'".
#pragma once

#include <string>

namespace test {

inline bool openmp_says_passive(const std::string& settings) {
  return settings.find("GOMP_SPINCOUNT = '0'") != std::string::npos ||
         settings.find("KMP_BLOCKTIME='0'") != std::string::npos;
}

inline bool openmp_says_active(const std::string& settings) {
  return settings.find("OMP_WAIT_POLICY = 'ACTIVE'") != std::string::npos ||
         settings.find("OMP_WAIT_POLICY='ACTIVE'") != std::string::npos;
}

// libgomp alone prints its spin count.
inline bool openmp_is_libgomp(const std::string& settings) {
  return settings.find("GOMP_SPINCOUNT = '") != std::string::npos;
}

}  // namespace test
