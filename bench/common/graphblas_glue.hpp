// SuiteSparse:GraphBLAS as the benches call it: GRB_CHECK for every GrB_ call, and Grb<T>,
// the library's names for one value type (its type, the semirings the benches compare,
// their adds, the typed build / extract / assign). bench_cpu_spmm and bench_spgemm both
// use it; it is empty when the build found no GraphBLAS (GEBLAS_HAVE_GRAPHBLAS unset).
#pragma once

#ifdef GEBLAS_HAVE_GRAPHBLAS

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" {  // GraphBLAS.h declares C functions without a C++ guard
#include <GraphBLAS.h>
}

// A failed GraphBLAS call ends the bench: its timings would be of an unfinished product.
#define GRB_CHECK(call)                                                                        \
  do {                                                                                         \
    const GrB_Info info_ = (call);                                                             \
    if (info_ != GrB_SUCCESS) {                                                                \
      std::fprintf(stderr, "GraphBLAS error %d at %s:%d\n", int(info_), __FILE__, __LINE__); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

namespace geblas::bench {

[[noreturn]] inline void unknown_graphblas_semiring(const std::string& name) {
  std::fprintf(stderr, "no SuiteSparse:GraphBLAS semiring for '%s' (plus_times, max_times, min_plus)\n", name.c_str());
  std::exit(2);
}

template <class T>
struct Grb;

template <>
struct Grb<float> {
  static GrB_Type type() { return GrB_FP32; }
  static GrB_Semiring semiring(const std::string& name) {
    if (name == "plus_times") return GrB_PLUS_TIMES_SEMIRING_FP32;
    if (name == "max_times") return GrB_MAX_TIMES_SEMIRING_FP32;
    if (name == "min_plus") return GrB_MIN_PLUS_SEMIRING_FP32;
    unknown_graphblas_semiring(name);
  }
  // The semiring's add: the accumulator of the dense-output path, and the duplicate
  // operator of build.
  static GrB_BinaryOp add(const std::string& name) {
    if (name == "plus_times") return GrB_PLUS_FP32;
    if (name == "max_times") return GrB_MAX_FP32;
    if (name == "min_plus") return GrB_MIN_FP32;
    unknown_graphblas_semiring(name);
  }
  static constexpr auto build = GrB_Matrix_build_FP32;
  static constexpr auto extract = GrB_Matrix_extractTuples_FP32;
  static constexpr auto assign = GrB_Matrix_assign_FP32;
};

template <>
struct Grb<double> {
  static GrB_Type type() { return GrB_FP64; }
  static GrB_Semiring semiring(const std::string& name) {
    if (name == "plus_times") return GrB_PLUS_TIMES_SEMIRING_FP64;
    if (name == "max_times") return GrB_MAX_TIMES_SEMIRING_FP64;
    if (name == "min_plus") return GrB_MIN_PLUS_SEMIRING_FP64;
    unknown_graphblas_semiring(name);
  }
  static GrB_BinaryOp add(const std::string& name) {
    if (name == "plus_times") return GrB_PLUS_FP64;
    if (name == "max_times") return GrB_MAX_FP64;
    if (name == "min_plus") return GrB_MIN_FP64;
    unknown_graphblas_semiring(name);
  }
  static constexpr auto build = GrB_Matrix_build_FP64;
  static constexpr auto extract = GrB_Matrix_extractTuples_FP64;
  static constexpr auto assign = GrB_Matrix_assign_FP64;
};

}  // namespace geblas::bench

#endif  // GEBLAS_HAVE_GRAPHBLAS
