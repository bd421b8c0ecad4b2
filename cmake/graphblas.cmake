# SuiteSparse:GraphBLAS (any spec-2.0 GraphBLAS with <GraphBLAS.h>), where it is installed:
# the second oracle of the tests, and the library the GraphBLAS-only algorithms of
# examples/graphblas build against. Found once here, for the tests, the examples and
# the benches alike. Sets GEBLAS_HAVE_GRAPHBLAS, GRAPHBLAS_INCLUDE_DIR, GRAPHBLAS_LIBRARY
# and, where found, the C library geblas_grb_algorithms (the algorithms, no main).
find_path(GRAPHBLAS_INCLUDE_DIR GraphBLAS.h PATH_SUFFIXES suitesparse)
find_library(GRAPHBLAS_LIBRARY graphblas)
if(GRAPHBLAS_INCLUDE_DIR AND GRAPHBLAS_LIBRARY)
  set(GEBLAS_HAVE_GRAPHBLAS ON)
  message(STATUS "geblas: SuiteSparse:GraphBLAS found (${GRAPHBLAS_LIBRARY}); its differential tests, "
                 "the GraphBLAS-only algorithms (examples/graphblas) and bench_vs_graphblas are built")
  enable_language(C)
  file(GLOB geblas_grb_algorithm_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/examples/graphblas/*.c)
  list(FILTER geblas_grb_algorithm_sources EXCLUDE REGEX "/grb_algos\\.c$")
  add_library(geblas_grb_algorithms STATIC ${geblas_grb_algorithm_sources})
  set_target_properties(geblas_grb_algorithms PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_include_directories(geblas_grb_algorithms PUBLIC ${PROJECT_SOURCE_DIR}/examples/graphblas
                                                           ${GRAPHBLAS_INCLUDE_DIR})
  target_link_libraries(geblas_grb_algorithms PUBLIC ${GRAPHBLAS_LIBRARY} PRIVATE ZLIB::ZLIB m)
else()
  set(GEBLAS_HAVE_GRAPHBLAS OFF)
  message(STATUS "geblas: SuiteSparse:GraphBLAS not found (libgraphblas-dev); its differential tests are skipped "
                 "and the GraphBLAS-only algorithms (examples/graphblas) and bench_vs_graphblas are not built")
endif()
