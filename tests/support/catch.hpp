// The one place that knows whether Catch2 2 (catch2/catch.hpp, Debian 12) or Catch2 3
// (split headers) is in use; tests include this instead of Catch2 directly.
#pragma once

#if GEBLAS_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <string>

namespace geblas::test {

// The substring matcher, whose name differs between Catch2 2 and 3.
inline auto contains(const std::string& text) {
#if GEBLAS_CATCH2_MAJOR >= 3
  return Catch::Matchers::ContainsSubstring(text);
#else
  return Catch::Matchers::Contains(text);
#endif
}

}  // namespace geblas::test
