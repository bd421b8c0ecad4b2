# GEBLAS_SANITIZE and GEBLAS_FUZZ: instrumented builds that make memory errors, undefined
# behaviour and leaks fail loudly. Both are CPU only (the CUDA runtime and ASan's shadow
# memory do not mix without special options, and CI has no GPU to run CUDA code anyway),
# so either one switches the CUDA backend off. Included before the CUDA section.
option(GEBLAS_SANITIZE "Build everything with AddressSanitizer + UndefinedBehaviorSanitizer (CPU only)" OFF)
option(GEBLAS_FUZZ "Build the libFuzzer targets of tests/fuzz (clang only; implies the sanitizers)" OFF)

if(GEBLAS_SANITIZE OR GEBLAS_FUZZ)
  if(GEBLAS_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GEBLAS_SANITIZE / GEBLAS_FUZZ build the CPU backend only: use -DGEBLAS_CUDA=OFF")
  endif()
  set(GEBLAS_CUDA OFF CACHE STRING "Build the CUDA backend: AUTO, ON or OFF" FORCE)
  # -O1 keeps the instrumented build quick to compile and its stack traces readable;
  # -fno-sanitize-recover turns every UBSan report into a failing exit, so ctest sees it.
  set(geblas_sanitize_flags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1)
  if(GEBLAS_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      message(FATAL_ERROR "GEBLAS_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
    endif()
    # Coverage feedback for libFuzzer in every object, the library included; only the
    # fuzz programs link libFuzzer's main (-fsanitize=fuzzer, tests/fuzz/CMakeLists.txt).
    list(APPEND geblas_sanitize_flags -fsanitize=fuzzer-no-link)
  endif()
  add_compile_options(${geblas_sanitize_flags})
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "geblas: sanitizers on (${geblas_sanitize_flags}); CUDA backend off")
endif()
