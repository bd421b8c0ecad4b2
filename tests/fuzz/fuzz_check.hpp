// The fuzz targets' oracle failure: print what differs and abort, which libFuzzer (and
// the replay program, through the abort) reports as a crash with the input saved.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>

#define GEBLAS_FUZZ_CHECK(cond, ...)                                        \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::fprintf(stderr, "fuzz check failed: %s (%s:%d): ", #cond, __FILE__, __LINE__); \
      std::fprintf(stderr, __VA_ARGS__);                                    \
      std::fprintf(stderr, "\n");                                           \
      std::abort();                                                         \
    }                                                                       \
  } while (0)
